import HAL
import Testing

/// A backend with one fixed device, to exercise the factory without the simulator.
private struct FixedBackend: DeviceBackend {
    struct Sensor: MotionSensor {
        let info: DeviceInfo
        func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<MotionSample, any Error> {
            AsyncThrowingStream { continuation in
                for index in 0..<3 {
                    continuation.yield(MotionSample(
                        timestamp: Timestamp(nanoseconds: Int64(index) * 10), quantity: .angularVelocity,
                        value: Vector3(x: Double(index), y: 0, z: 0)))
                }
                continuation.finish(throwing: DeviceError(.disconnected, uri: info.uri, "unplugged"))
            }
        }
    }

    var scheme: String { "fixed" }
    var summary: String { "one gyroscope" }
    func open(_ uri: DeviceURI) throws -> any Device {
        guard uri.body == "gyro" else { throw DeviceError(.notFound, uri: uri.description, "no such device") }
        return Sensor(info: DeviceInfo(uri: uri.description, name: "Fixed", kind: .gyroscope, backend: "fixed", rate: 100))
    }
    func discover() throws -> [DeviceInfo] { [try open(DeviceURI("fixed:gyro")).info] }
}

private struct BrokenBackend: DeviceBackend {
    var scheme: String { "broken" }
    var summary: String { "cannot look" }
    func open(_ uri: DeviceURI) throws -> any Device { throw DeviceError(.permissionDenied, uri: uri.description, "no access") }
    func discover() throws -> [DeviceInfo] { throw DeviceError(.permissionDenied, uri: "broken:", "add yourself to group 'input'") }
}

@Suite struct DeviceFactoryTests {
    let factory = DeviceFactory(backends: [FixedBackend(), BrokenBackend()])

    @Test func opensByScheme() throws {
        let sensor = try factory.open("fixed:gyro", as: (any MotionSensor).self)
        #expect(sensor.info.kind == .gyroscope)
        #expect(sensor.info.uri == "fixed:gyro")
    }

    @Test func refusesTheWrongKind() {
        do {
            _ = try factory.open("fixed:gyro", as: (any LocationProvider).self)
            Issue.record("opened a gyroscope as a location provider")
        } catch let error as DeviceError {
            #expect(error.code == .wrongKind)
            #expect(error.description.contains("gyroscope"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func namesTheKnownSchemesForAnUnknownOne() {
        do {
            _ = try factory.open("v4l2:/dev/video0")
            Issue.record("opened an unregistered scheme")
        } catch let error as DeviceError {
            #expect(error.code == .invalidURI)
            #expect(error.message.contains("fixed:, broken:"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func discoveryReportsBackendsThatCannotLook() {
        let discovery = factory.discover()
        #expect(discovery.devices.map(\.uri) == ["fixed:gyro"])
        #expect(discovery.problems.count == 1)
        #expect("\(discovery.problems[0])".contains("group 'input'"))
    }

    @Test func aDeviceThatGoesAwayEndsItsStreamWithATypedError() async throws {
        let sensor = try factory.open("fixed:gyro", as: (any MotionSensor).self)
        var received: [Reading] = []
        do {
            for try await reading in sensor.anyReadings() { received.append(reading) }
            Issue.record("the stream ended without the disconnect")
        } catch let error as DeviceError {
            #expect(error.code == .disconnected)
        }
        #expect(received.count == 3)
        #expect(received.map(\.timestamp.nanoseconds) == [0, 10, 20])
    }
}
