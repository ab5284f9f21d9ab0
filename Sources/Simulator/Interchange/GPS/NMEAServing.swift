import TraceFormat
public import Replay
import HAL
import NMEA

extension LocationTrack {
    /// Writes the track as NMEA, one epoch per fix, paced by `pacing` on `clock`: at real
    /// time by default, so that a program reading it sees a live receiver. Each fix's
    /// UTC time is written as recorded; fixes without one get 2000-01-01T00:00:00Z plus
    /// their timestamp.
    public func serveNMEA<C: Clock>(
        pacing: ReplayPacing = .realtime, clock: C, write: ([UInt8]) throws -> Void
    ) async throws where C.Duration == Duration {
        let encoder = NMEAEncoder()
        let replay = try TraceReplay(trace: withUTC().trace(source: "serve"), options: ReplayOptions(pacing: pacing))
        try await replay.run(pacingClock: clock) { record in
            guard case .location(let fix) = record.reading else { return }
            try write(Array(encoder.sentences(for: fix).joined().utf8))
        }
    }
}
