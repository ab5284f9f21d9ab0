import HAL
import Testing

@Suite struct DeviceURITests {
    @Test func parsesSchemeBodyQueryAndFragment() throws {
        let uri = try DeviceURI("trace:walks/campus.jsonl?rate=10&loop=2#gps")
        #expect(uri.scheme == "trace")
        #expect(uri.body == "walks/campus.jsonl")
        #expect(uri.queryValue("rate") == "10")
        #expect(uri.queryValue("loop") == "2")
        #expect(uri.fragment == "gps")
        #expect(uri.description == "trace:walks/campus.jsonl?rate=10&loop=2#gps")
    }

    @Test func keepsColonsInTheBody() throws {
        let iio = try DeviceURI("iio:ip:192.168.1.5/iio:device0")
        #expect(iio.scheme == "iio")
        #expect(iio.body == "ip:192.168.1.5/iio:device0")
        let alsa = try DeviceURI("alsa:hw:1,0")
        #expect(alsa.body == "hw:1,0")
    }

    @Test func readsAuthority() throws {
        let gpsd = try DeviceURI("gpsd://127.0.0.1:2947")
        #expect(gpsd.scheme == "gpsd")
        #expect(gpsd.authority == "127.0.0.1:2947")
        let nmea = try DeviceURI("nmea:/dev/ttyACM0?baud=9600")
        #expect(nmea.authority == nil)
        #expect(nmea.queryValue("baud") == "9600")
    }

    @Test(arguments: ["no-scheme-here", "9p:/x", "trace:", "trace:#gyro", ":body"])
    func rejectsMalformedURIs(_ text: String) {
        #expect(throws: DeviceError.self) { try DeviceURI(text) }
        do {
            _ = try DeviceURI(text)
        } catch {
            #expect(error.code == .invalidURI)
            #expect(error.uri == text)
        }
    }
}

extension DeviceURITests {
    @Test func keepsTheTextAsWritten() throws {
        let uri = try DeviceURI("trace:walk.jsonl?realtime&loop=0#gyro")
        #expect(uri.description == "trace:walk.jsonl?realtime&loop=0#gyro")
        #expect(uri.queryValue("realtime") == "")
        #expect(uri.queryValue("loop") == "0")
    }
}
