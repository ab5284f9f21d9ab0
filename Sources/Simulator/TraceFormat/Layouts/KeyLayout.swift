import HAL

/// A key record: the key's `code` and its `state`.
struct KeyLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .key(let event) = reading else { return false }
        out.key("code")
        out.int(event.code)
        out.key("state")
        out.string(event.state.rawValue)
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let code = try fields.required("code", "key code", Read.int)
        let state = try fields.enumeration("state", KeyState.self)!
        return .key(KeyEvent(timestamp: timestamp, code: Int(code), state: state))
    }
}
