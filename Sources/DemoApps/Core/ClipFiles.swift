import HAL

/// Sound files an app's config names: a clip keeps the name as written (what logs and traces show) and plays from
/// the config's folder when the name is relative.
enum ClipFiles {
    /// The clip `name`, read from `folder` unless the name is absolute.
    static func clip(_ name: String, in folder: String?, loudnessGuard: LoudnessGuard? = nil) -> AudioClip {
        let path = name.hasPrefix("/") ? name : folder.map { "\($0)/\(name)" } ?? name
        return AudioClip(name: name, source: .file(path: path), loudnessGuard: loudnessGuard)
    }
}
