/// The device kinds this process knows: the built-in ones, and those a program registers.
///
/// Register a kind once, before opening a device or reading a trace of it (at the start of `main`, or in a test's
/// set-up). Registering the same kind again replaces its description.
public enum KindRegistry {
    private static let table = Locked(Table())

    private struct Table {
        var order: [DeviceKind] = []
        var descriptions: [DeviceKind: KindDescription] = [:]

        init() {
            for description in BuiltinKinds.all + EnvironmentKinds.all { add(description) }
        }

        mutating func add(_ description: KindDescription) {
            if descriptions.updateValue(description, forKey: description.kind) == nil { order.append(description.kind) }
        }
    }

    /// Registers a kind, or replaces its description.
    public static func register(_ description: KindDescription) {
        table.withLock { $0.add(description) }
    }

    /// The description of `kind`, or `nil` when it is not registered.
    public static func description(of kind: DeviceKind) -> KindDescription? {
        table.withLock { $0.descriptions[kind] }
    }

    /// Every registered kind: the built-in ones first, then the rest in the order they were registered.
    public static var kinds: [DeviceKind] {
        table.withLock { $0.order }
    }
}
