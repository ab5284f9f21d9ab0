public import AppCore
/// A spot in a panorama that does something when tapped.
public struct Hotspot: Sendable, Hashable, Codable {
    /// What a hotspot does.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Plays a sound clip (speaker icon); tapping again pauses it.
        case sound
        /// Opens a video (clapperboard icon).
        case video
        /// Leads to another panorama.
        case door
    }

    /// The id, unique in its panorama.
    public var id: String
    /// What it does.
    public var kind: Kind
    /// Degrees clockwise from the panorama's forward direction.
    public var yaw: Double
    /// Degrees above the horizon.
    public var pitch: Double
    /// The hotspot's angular diameter, degrees.
    public var size: Double
    /// The sound or video file, for sound and video hotspots; a sound may be a tone (`tone:440,0.5`, `tone:chime`).
    public var clip: String?
    /// A video's sound, a file (or a tone) the speaker plays with the frames (a video file's own sound is not decoded).
    public var soundtrack: String?
    /// The panorama a door leads to, by id.
    public var to: String?

    /// Creates a hotspot.
    public init(id: String, kind: Kind, yaw: Double, pitch: Double, size: Double, clip: String? = nil, soundtrack: String? = nil, to: String? = nil) {
        self.id = id
        self.kind = kind
        self.yaw = yaw
        self.pitch = pitch
        self.size = size
        self.clip = clip
        self.soundtrack = soundtrack
        self.to = to
    }
}

/// One 360° image and its hotspots.
public struct Panorama: Sendable, Hashable, Codable {
    /// The id doors use.
    public var id: String
    /// The equirectangular image file.
    public var image: String?
    /// The hotspots.
    public var hotspots: [Hotspot]

    /// Creates a panorama.
    public init(id: String, image: String? = nil, hotspots: [Hotspot]) {
        self.id = id
        self.image = image
        self.hotspots = hotspots
    }

    /// The sound and video hotspots: what must be played before leaving without a warning.
    public var clips: [Hotspot] { hotspots.filter { $0.kind != .door } }
}

/// An experience: panoramas to go through, such as the rooms of a new school.
public struct Experience: Sendable, Hashable, Codable {
    /// The title, 4–16 characters, unique in the library. The editor gives `experience #N` when absent.
    public var title: String?
    /// At most 128 characters.
    public var description: String?
    /// The panoramas; the first is where the experience starts and the last where it completes.
    public var panoramas: [Panorama]

    /// Creates an experience.
    public init(title: String? = nil, description: String? = nil, panoramas: [Panorama]) {
        self.title = title
        self.description = description
        self.panoramas = panoramas
    }
}

/// The custom experiences a user made, with the editor's rules.
public struct ExperienceLibrary: Sendable, Hashable, Codable {
    /// The experiences.
    public private(set) var experiences: [Experience] = []

    /// The editor's limits.
    public enum Limits {
        /// A title's length.
        public static let title = 4...16
        /// The longest description.
        public static let description = 128
        /// The most custom experiences.
        public static let experiences = 10
    }

    /// An empty library.
    public init() {}

    /// Adds an experience, giving it the title `experience #N` (the smallest N not taken) when it has none.
    /// Returns the title.
    @discardableResult
    public mutating func add(_ experience: Experience) throws(AppConfigError) -> String {
        let field = "experiences[\(experiences.count)]"
        guard experiences.count < Limits.experiences else {
            throw AppConfigError(field: field, "at most \(Limits.experiences) custom experiences; delete one first")
        }
        var experience = experience
        if experience.title == nil {
            let taken = Set(experiences.compactMap { $0.title?.lowercased() })
            let number = (1...).first { !taken.contains("experience #\($0)") }!
            experience.title = "experience #\(number)"
        }
        try Self.validate(experience, field: field, others: experiences)
        experiences.append(experience)
        return experience.title!
    }

    /// Removes the experience with a title.
    public mutating func remove(title: String) {
        experiences.removeAll { $0.title == title }
    }

    /// Checks an experience against the rules and the library's other titles.
    public static func validate(_ experience: Experience, field: String, others: [Experience] = []) throws(AppConfigError) {
        let title = experience.title ?? ""
        guard Limits.title.contains(title.count) else {
            throw AppConfigError(field: "\(field).title", "'\(title)' has \(title.count) characters; expected 4–16")
        }
        if others.contains(where: { $0.title?.lowercased() == title.lowercased() }) {
            throw AppConfigError(field: "\(field).title", "'\(title)' is taken; titles are unique")
        }
        if let description = experience.description, description.count > Limits.description {
            throw AppConfigError(field: "\(field).description", "\(description.count) characters; at most \(Limits.description)")
        }
        guard !experience.panoramas.isEmpty else { throw AppConfigError(field: "\(field).panoramas", "an experience needs a panorama") }
        var ids: Set<String> = []
        for (index, panorama) in experience.panoramas.enumerated() {
            let place = "\(field).panoramas[\(index)]"
            guard !panorama.id.isEmpty, ids.insert(panorama.id).inserted else {
                throw AppConfigError(field: "\(place).id", "'\(panorama.id)' is empty or used twice")
            }
            var hotspotIDs: Set<String> = []
            for (spot, hotspot) in panorama.hotspots.enumerated() {
                let at = "\(place).hotspots[\(spot)]"
                guard hotspotIDs.insert(hotspot.id).inserted else { throw AppConfigError(field: "\(at).id", "'\(hotspot.id)' is used twice") }
                guard (-90...90).contains(hotspot.pitch) else { throw AppConfigError(field: "\(at).pitch", "\(hotspot.pitch); expected −90…90 degrees") }
                guard (0..<360).contains(hotspot.yaw) else { throw AppConfigError(field: "\(at).yaw", "\(hotspot.yaw); expected 0…<360 degrees") }
                guard (1...90).contains(hotspot.size) else { throw AppConfigError(field: "\(at).size", "\(hotspot.size); expected 1…90 degrees") }
                switch hotspot.kind {
                case .sound, .video:
                    guard let clip = hotspot.clip, !clip.isEmpty else { throw AppConfigError(field: "\(at).clip", "a \(hotspot.kind.rawValue) hotspot needs a clip") }
                    if hotspot.kind == .sound { try ClipFiles.check(clip, field: "\(at).clip") }
                case .door:
                    break
                }
                if let soundtrack = hotspot.soundtrack {
                    guard hotspot.kind == .video else { throw AppConfigError(field: "\(at).soundtrack", "only a video hotspot has a soundtrack") }
                    guard !soundtrack.isEmpty else { throw AppConfigError(field: "\(at).soundtrack", "empty; name a sound file or leave it out") }
                    try ClipFiles.check(soundtrack, field: "\(at).soundtrack")
                }
            }
        }
        for (index, panorama) in experience.panoramas.enumerated() {
            for (spot, hotspot) in panorama.hotspots.enumerated() where hotspot.kind == .door {
                let at = "\(field).panoramas[\(index)].hotspots[\(spot)].to"
                guard let target = hotspot.to, ids.contains(target), target != panorama.id else {
                    let known = experience.panoramas.map(\.id).filter { $0 != panorama.id }.joined(separator: ", ")
                    throw AppConfigError(field: at, "'\(hotspot.to ?? "")' is not another panorama of this experience (\(known))")
                }
            }
        }
    }
}
