import HAL

/// An expression record: the `face` box `[x,y,width,height]` and its seven `scores`, with the face's `id`, and its
/// `rank` among the frame's `faces` when there is more than one. A reading with no face has none of these.
struct ExpressionLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .expression(let reading) = reading else { return false }
        try Self.encode(reading, into: &out)
        return true
    }

    /// Writes an expression reading's fields (none for a reading with no face).
    static func encode(_ reading: ExpressionReading, into out: inout JSONOutput) throws(TraceError) {
        guard let face = reading.face, let scores = reading.scores else { return }
        out.key("face")
        out.byte(UInt8(ascii: "["))
        out.int(face.x)
        out.byte(UInt8(ascii: ","))
        out.int(face.y)
        out.byte(UInt8(ascii: ","))
        out.int(face.width)
        out.byte(UInt8(ascii: ","))
        out.int(face.height)
        out.byte(UInt8(ascii: "]"))
        out.key("scores")
        out.byte(UInt8(ascii: "{"))
        for (index, expression) in Expression.allCases.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.string(expression.rawValue)
            out.byte(UInt8(ascii: ":"))
            try out.finite(scores[expression], field: "scores.\(expression.rawValue)")
        }
        out.byte(UInt8(ascii: "}"))
        if let id = reading.faceID {
            out.key("id")
            out.int(id)
        }
        if reading.faceCount != 1 || reading.rank != 0 {
            out.key("rank")
            out.int(reading.rank)
            out.key("faces")
            out.int(reading.faceCount)
        }
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let face = try fields.optional("face") { (s: inout JSONScanner) throws(JSONSyntaxError) -> FaceBox in
            try s.expect(UInt8(ascii: "["), "[x, y, width, height]")
            var numbers: [Int] = []
            for index in 0..<4 {
                if index > 0 { try s.expect(UInt8(ascii: ","), "4 whole numbers") }
                numbers.append(Int(try s.readInt64()))
            }
            try s.expect(UInt8(ascii: "]"), "exactly 4 whole numbers")
            return FaceBox(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }
        guard let face else {
            for field in ["scores", "id", "rank", "faces"] where fields.has(field) {
                throw fields.error(.invalidValue, field, "a reading with no face has no \(field)")
            }
            return .expression(.noFace(at: timestamp))
        }
        let faceID = try fields.optional("id", Read.int)
        let faceCount = try fields.optional("faces", Read.int) ?? 1
        let rank = try fields.optional("rank", Read.int) ?? 0
        if let faceID, faceID < 0 || faceID > Int64(Int32.max) {
            throw fields.error(.invalidValue, "id", "\(faceID) is not a face id (0...\(Int32.max))")
        }
        guard (1...1024).contains(faceCount) else { throw fields.error(.invalidValue, "faces", "\(faceCount) is not a face count (1...1024)") }
        guard (0..<faceCount).contains(rank) else {
            throw fields.error(.invalidValue, "rank", "\(rank) is not a place among \(faceCount) faces (0...\(faceCount - 1))")
        }
        guard var scoresScanner = fields.value("scores") else {
            throw fields.error(.missingField, "scores", "a reading with a face needs its 7 scores")
        }
        var scratch: [JSONScanner.Field] = []
        var scoreFields = try RecordFields(scanner: &scoresScanner, scratch: &scratch, file: fields.file, line: fields.line, path: "scores.")
        var values: [Double] = []
        for expression in Expression.allCases {
            guard let score = try scoreFields.optional(named: expression.rawValue, Read.double) else {
                throw scoreFields.error(.missingField, expression.rawValue, "a reading with a face needs all 7 scores")
            }
            guard (0...1).contains(score) else {
                throw scoreFields.error(.invalidValue, expression.rawValue, "\(score) is outside 0...1")
            }
            values.append(score)
        }
        try scoreFields.rejectUnread("scores")
        return .expression(ExpressionReading(
            timestamp: timestamp, face: face, scores: ExpressionScores(values)!, faceID: faceID.map { Int($0) }, rank: Int(rank),
            faceCount: Int(faceCount)))
    }
}
