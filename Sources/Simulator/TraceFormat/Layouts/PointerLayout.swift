import HAL

/// A pointer record: its `phase`, the `pointer` (0 when absent) and the normalized position `x`, `y`.
struct PointerLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .pointer(let event) = reading else { return false }
        out.key("phase")
        out.string(event.phase.rawValue)
        out.key("pointer")
        out.int(event.pointer)
        out.key("x")
        try out.finite(event.x, field: "x")
        out.key("y")
        try out.finite(event.y, field: "y")
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let phase = try fields.enumeration("phase", PointerPhase.self)!
        let pointer = try fields.optional("pointer", Read.int) ?? 0
        let x = try fields.required("x", "position x", Read.double)
        let y = try fields.required("y", "position y", Read.double)
        return .pointer(PointerEvent(timestamp: timestamp, pointer: Int(pointer), phase: phase, x: x, y: y))
    }
}
