import LibC
/// The earth frame an attitude is expressed in. Every attitude in the HAL names its frame.
public enum EarthFrame: String, Sendable, Hashable, Codable, CaseIterable {
    /// x east, y north, z up.
    case enu = "ENU"
    /// x north, y east, z down (aerospace).
    case ned = "NED"
    /// x north, y west, z up (x-io Fusion's default).
    case nwu = "NWU"

    /// The unit vector pointing up, in this frame.
    public var up: Vector3 {
        switch self {
        case .enu, .nwu: Vector3(x: 0, y: 0, z: 1)
        case .ned: Vector3(x: 0, y: 0, z: -1)
        }
    }

    /// The unit vector pointing to true north, in this frame.
    public var north: Vector3 {
        switch self {
        case .enu: Vector3(x: 0, y: 1, z: 0)
        case .ned, .nwu: Vector3(x: 1, y: 0, z: 0)
        }
    }

    /// The unit vector pointing east, in this frame.
    public var east: Vector3 { north.cross(up) }

    /// The rotation that takes a vector's coordinates in this frame to its coordinates in `other`.
    public func rotation(to other: EarthFrame) -> Quaternion {
        Quaternion(rotating: (east, north, up), onto: (other.east, other.north, other.up))
    }
}

extension Quaternion {
    /// The rotation that takes three orthonormal directions onto three others, pairwise.
    public init(rotating from: (Vector3, Vector3, Vector3), onto to: (Vector3, Vector3, Vector3)) {
        // M = Σ toᵢ · fromᵢᵀ.
        let pairs = [(to.0, from.0), (to.1, from.1), (to.2, from.2)]
        let matrix = (0..<3).map { row in
            (0..<3).map { column in pairs.reduce(0) { $0 + $1.0[row] * $1.1[column] } }
        }
        self.init(matrix: matrix)
    }

    /// The rotation whose 3×3 matrix is `m` (rows of columns), by Shepperd's method.
    public init(matrix m: [[Double]]) {
        let trace = m[0][0] + m[1][1] + m[2][2]
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(w: s / 4, x: (m[2][1] - m[1][2]) / s, y: (m[0][2] - m[2][0]) / s, z: (m[1][0] - m[0][1]) / s)
        } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
            let s = (1 + m[0][0] - m[1][1] - m[2][2]).squareRoot() * 2
            self.init(w: (m[2][1] - m[1][2]) / s, x: s / 4, y: (m[0][1] + m[1][0]) / s, z: (m[0][2] + m[2][0]) / s)
        } else if m[1][1] > m[2][2] {
            let s = (1 + m[1][1] - m[0][0] - m[2][2]).squareRoot() * 2
            self.init(w: (m[0][2] - m[2][0]) / s, x: (m[0][1] + m[1][0]) / s, y: s / 4, z: (m[1][2] + m[2][1]) / s)
        } else {
            let s = (1 + m[2][2] - m[0][0] - m[1][1]).squareRoot() * 2
            self.init(w: (m[1][0] - m[0][1]) / s, x: (m[0][2] + m[2][0]) / s, y: (m[1][2] + m[2][1]) / s, z: s / 4)
        }
        self = normalized
    }
}

/// An orientation at one instant: how the device sits relative to the earth.
public struct AttitudeSample: Sendable, Hashable {
    /// When the attitude held.
    public var timestamp: Timestamp
    /// The rotation from the device frame to ``frame``.
    public var quaternion: Quaternion
    /// The earth frame.
    public var frame: EarthFrame
    /// The estimated heading error in degrees (1σ), where the source estimates it.
    public var headingAccuracy: Double?

    /// Creates a sample.
    public init(timestamp: Timestamp, quaternion: Quaternion, frame: EarthFrame, headingAccuracy: Double? = nil) {
        self.timestamp = timestamp
        self.quaternion = quaternion
        self.frame = frame
        self.headingAccuracy = headingAccuracy
    }

    /// The same attitude expressed in another earth frame.
    public func expressed(in other: EarthFrame) -> AttitudeSample {
        var sample = self
        sample.quaternion = (frame.rotation(to: other) * quaternion).normalized
        sample.frame = other
        return sample
    }

    /// The compass heading of a device direction (the device's back-camera axis −z by
    /// default): degrees clockwise from true north, 0..<360.
    public func heading(of deviceDirection: Vector3 = Vector3(x: 0, y: 0, z: -1)) -> Double {
        let direction = quaternion.rotate(deviceDirection)
        let degrees = atan2(direction.dot(frame.east), direction.dot(frame.north)) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The elevation of a device direction above the horizon, in degrees, -90...90.
    public func elevation(of deviceDirection: Vector3 = Vector3(x: 0, y: 0, z: -1)) -> Double {
        let direction = quaternion.rotate(deviceDirection).normalized
        return asin(max(-1, min(1, direction.dot(frame.up)))) * 180 / .pi
    }
}
