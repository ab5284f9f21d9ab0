import AppCore
import HAL

/// Sound and video files an app's config names: a clip keeps the name as written (what logs and traces show) and plays from
/// the config's folder when the name is relative. A clip may also be a tone, `tone:HZ,SECONDS` or `tone:chime`
/// (``HAL/Tone``), made when played and never looked for in a folder.
enum ClipFiles {
    /// The clip `name`: a tone, or the file read from `folder` unless the name is absolute. The config's check
    /// (``check(_:field:)``) has refused a malformed tone; one that gets here anyway plays as a file of that name,
    /// which the speaker reports missing.
    static func clip(_ name: String, in folder: String?, loudnessGuard: LoudnessGuard? = nil) -> AudioClip {
        let source = (try? AudioClip.Source(clipName: name) { path($0, in: folder) }) ?? .file(path: path(name, in: folder))
        return AudioClip(name: name, source: source, loudnessGuard: loudnessGuard)
    }

    /// Where the file `name` is: in `folder` unless the name is absolute.
    static func path(_ name: String, in folder: String?) -> String {
        name.hasPrefix("/") ? name : folder.map { "\($0)/\(name)" } ?? name
    }

    /// Refuses a clip name that starts `tone:` but is not a tone, naming the config's `field`.
    static func check(_ name: String, field: String) throws(AppConfigError) {
        do {
            _ = try AudioClip.Source(clipName: name)
        } catch {
            throw AppConfigError(field: field, error.description)
        }
    }
}
