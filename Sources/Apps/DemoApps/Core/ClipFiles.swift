import HAL

/// Sound and video files an app's config names: a clip keeps the name as written (what logs and traces show) and plays from
/// the config's folder when the name is relative.
enum ClipFiles {
    /// The clip `name`, read from `folder` unless the name is absolute.
    static func clip(_ name: String, in folder: String?, loudnessGuard: LoudnessGuard? = nil) -> AudioClip {
        AudioClip(name: name, source: .file(path: path(name, in: folder)), loudnessGuard: loudnessGuard)
    }

    /// Where the file `name` is: in `folder` unless the name is absolute.
    static func path(_ name: String, in folder: String?) -> String {
        name.hasPrefix("/") ? name : folder.map { "\($0)/\(name)" } ?? name
    }
}
