import TraceFormat
import HAL

/// A facial-expression reading: `hal.ExpressionReading`, empty for a reading with no face.
struct ExpressionMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.expression.name: .expression] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .expression(let reading) = reading, let face = reading.face, let scores = reading.scores else { return .expression }
        out.message(1) { box in
            box.int64(1, Int64(face.x))
            box.int64(2, Int64(face.y))
            box.int64(3, Int64(face.width))
            box.int64(4, Int64(face.height))
        }
        out.message(2) { out in
            for (index, expression) in Expression.allCases.enumerated() { out.double(index + 1, scores[expression]) }
        }
        if let id = reading.faceID { out.int64(3, Int64(id)) }
        out.int64(4, Int64(reading.rank))
        out.int64(5, Int64(reading.faceCount))
        return .expression
    }
}
