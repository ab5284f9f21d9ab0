public import FrameSources

/// Pictures made from the shipped test face (the astronaut of `models/astronaut.png`, whose face fer finds at
/// 177, 66, 95×95): copies of the picture, scaled bilinearly and placed on a gray canvas. The multiple-face tests
/// and the stream-detection test and benchmark compose their frames with it.
public struct FaceScene: Sendable {
    /// One copy of the picture: its top-left corner on the canvas and its scale (1: the picture's own size).
    public struct Placement: Sendable, Hashable {
        /// The corner, canvas pixels.
        public var x: Int, y: Int
        /// The scale of the picture (1: 512×512).
        public var scale: Double

        /// A placement.
        public init(x: Int, y: Int, scale: Double = 1) {
            self.x = x
            self.y = y
            self.scale = scale
        }

    }

    /// The picture's gray pixels, row by row.
    public let pixels: [UInt8]
    /// The picture's side (it is square).
    public let size: Int

    /// Where the picture was cut from the astronaut: its top-left corner there.
    public let origin: (x: Int, y: Int)

    /// Reads the astronaut from a models folder (`scripts/fetch-expression-model`); with `headOnly`, only the
    /// 240×240 square around her head (from 100, 0), without the spacesuit that the detector sometimes takes for
    /// a second face.
    public init(models: String, headOnly: Bool = false) throws(CameraError) {
        let gray = try CVImage(path: models + "/astronaut.png", as: .bgr).grayscale()
        let stride = gray.bytesPerRow, rows = gray.pixels
        origin = headOnly ? (100, 0) : (0, 0)
        size = headOnly ? 240 : gray.width
        var pixels = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size { for x in 0..<size { pixels[y * size + x] = rows[(origin.y + y) * stride + origin.x + x] } }
        self.pixels = pixels
    }

    /// A gray canvas (value 128) with the picture at each placement, clipped at the canvas's edges; later
    /// placements cover earlier ones.
    public func frame(width: Int, height: Int, _ placements: [Placement]) throws(CameraError) -> CVImage {
        var canvas = [UInt8](repeating: 128, count: width * height)
        pixels.withUnsafeBufferPointer { source in
            canvas.withUnsafeMutableBufferPointer { target in
                for placement in placements {
                    let scaled = Int((Double(size) * placement.scale).rounded())
                    let last = Double(size - 1)
                    for row in max(0, -placement.y)..<min(scaled, height - placement.y) {
                        let sy = min(last, max(0, (Double(row) + 0.5) / placement.scale - 0.5))
                        let y0 = Int(sy), y1 = min(y0 + 1, size - 1), fy = sy - Double(y0)
                        for column in max(0, -placement.x)..<min(scaled, width - placement.x) {
                            let sx = min(last, max(0, (Double(column) + 0.5) / placement.scale - 0.5))
                            let x0 = Int(sx), x1 = min(x0 + 1, size - 1), fx = sx - Double(x0)
                            let top = Double(source[y0 * size + x0]) * (1 - fx) + Double(source[y0 * size + x1]) * fx
                            let bottom = Double(source[y1 * size + x0]) * (1 - fx) + Double(source[y1 * size + x1]) * fx
                            target[(placement.y + row) * width + placement.x + column] = UInt8((top * (1 - fy) + bottom * fy).rounded())
                        }
                    }
                }
            }
        }
        return try CVImage(pixels: canvas, width: width, height: height, channels: 1)
    }

    /// For a head-only scene: a 640×480 stream of `count` frames (60 by default) with the face moving across, growing
    /// by a third, leaving the frame to the right, gone for a while, and coming back smaller from the left; `nil`
    /// where it is out of view. About 10 px of movement a frame, 35 while it leaves.
    public static func movingFace(frames count: Int = 60) -> [Placement?] {
        (0..<count).map { frame -> Placement? in
            let phase = Double(frame) / Double(count)
            switch phase {
            case ..<0.33:  // across, at full size
                return Placement(x: 20 + Int(phase / 0.33 * 200), y: 60 + Int(phase / 0.33 * 40), scale: 1)
            case ..<0.58:  // growing by a third
                let t = (phase - 0.33) / 0.25
                return Placement(x: 220 - Int(t * 40), y: 100 - Int(t * 40), scale: 1 + t / 3)
            case ..<0.75:  // leaving to the right
                let t = (phase - 0.58) / 0.17
                return Placement(x: 180 + Int(t * 400), y: 60, scale: 4.0 / 3)
            case ..<0.83:  // gone
                return nil
            default:  // back from the left, at 0.8
                let t = (phase - 0.83) / 0.17
                return Placement(x: -60 + Int(t * 160), y: 150, scale: 0.8)
            }
        }
    }
}
