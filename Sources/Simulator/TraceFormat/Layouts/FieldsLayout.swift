import HAL

/// A registered kind's record: the named fields its ``HAL/KindDescription`` gives, in the codec's order, as JSON
/// numbers, strings, booleans and arrays.
struct FieldsLayout: RecordLayout {
    let codec: FieldCodec

    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .custom(let custom) = reading, custom.kind == channel.kind else { return false }
        guard let fields = codec.encode(reading) else {
            throw TraceError(.invalidValue, line: 0, field: "ch", "\(channel.kind.rawValue) readings have no registered trace fields")
        }
        try out.fields(fields)
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        var values = RecordValues(try fields.remainingValues())
        let reading: Reading
        do {
            reading = try codec.decode(&values, timestamp)
        } catch {
            throw fields.error(error.isMissing ? .missingField : .invalidValue, error.field, error.message)
        }
        if let unread = values.unread.first {
            throw fields.error(.unknownField, unread, "\(channel.kind.rawValue) records have no such field")
        }
        return reading
    }
}
