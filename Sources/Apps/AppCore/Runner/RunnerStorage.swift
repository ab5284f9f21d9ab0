import HAL

/// Where an app's stored files go, and whether that storage failed: a storage the app cannot restore from is
/// logged as `storage.failed` and the app starts empty; nothing is written to it in the run (each write the app asks
/// for is logged as `storage.skipped`), so what is there stays for repair. One of ``AppRunner``'s concerns.
struct RunnerStorage: Sendable {
    /// The storage, if any.
    let storage: (any AppStorage)?
    /// Whether restoring from it failed.
    private(set) var failed = false

    /// Storage in `storage`, or none.
    init(storage: (any AppStorage)?) {
        self.storage = storage
    }

    /// Restores `logic` from the storage; a restore that fails halfway leaves the app as it was, and is logged.
    mutating func restore<Logic: AppLogic>(_ logic: inout Logic, at time: Timestamp, output: inout AppOutput) {
        guard let storage else { return }
        do {
            var restored = logic
            try restored.restore(from: storage)
            logic = restored
        } catch {
            output.emit("storage.failed", at: time, ["error": .string("\(error)")])
            failed = true
        }
    }

    /// Writes the files the app stored at `time`, and returns the events of those skipped or not written.
    func write(_ files: [AppOutput.StoredFile], at time: Timestamp) -> [AppEvent] {
        guard let storage else { return [] }
        var events: [AppEvent] = []
        for file in files {
            guard !failed else {
                events.append(AppEvent(timestamp: time, name: "storage.skipped", attributes: ["file": .string(file.name)]))
                continue
            }
            do {
                try storage.write(file.contents, as: file.name)
            } catch {
                events.append(AppEvent(timestamp: time, name: "storage.failed", attributes: ["file": .string(file.name), "error": .string("\(error)")]))
            }
        }
        return events
    }
}
