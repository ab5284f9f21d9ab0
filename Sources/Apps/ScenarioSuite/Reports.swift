public import FoundationEssentials
import HAL

extension SuiteReport {
    /// The report as JUnit XML, the form CI systems render: one `testcase` per scenario (its app as the class),
    /// a `failure` per failed expectation or diff, an `error` for a scenario that could not run, `skipped` with its
    /// reason, and the tail of the event log as `system-out`.
    public func junitXML(suiteName: String = "hal test") -> String {
        let errors = results.filter { $0.status == .error }.count
        let failures = results.filter { $0.status == .failed }.count
        let counts = "tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(Self.time(seconds))\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(XMLText.escape(suiteName))\" \(counts)>\n"
        xml += "  <testsuite name=\"\(XMLText.escape(suiteName))\" \(counts)>\n"
        for result in results {
            xml += "    <testcase name=\"\(XMLText.escape(result.path))\" classname=\"\(XMLText.escape(result.app ?? "scenario"))\""
            xml += " file=\"\(XMLText.escape(result.path))\" time=\"\(Self.time(result.seconds))\">\n"
            for failure in result.failures {
                let message = XMLText.escape(String(failure.prefix { $0 != "\n" }))
                switch result.status {
                case .failed: xml += "      <failure message=\"\(message)\" type=\"failure\">\(XMLText.escape(failure))</failure>\n"
                case .error: xml += "      <error message=\"\(message)\" type=\"error\">\(XMLText.escape(failure))</error>\n"
                case .skipped: xml += "      <skipped message=\"\(message)\"/>\n"
                case .passed: break
                }
            }
            if !result.logTail.isEmpty {
                xml += "      <system-out>\(XMLText.escape(result.logTail.joined(separator: "\n")))</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// The report as JSON: the counts and each scenario's result.
    public func json() throws -> Data {
        struct Document: Encodable {
            let passed: Int, failed: Int, skipped: Int, seconds: Double, interrupted: Bool
            let scenarios: [ScenarioResult]
        }
        return try WrittenJSON.encoder.encode(
            Document(passed: passed, failed: failed, skipped: skipped, seconds: seconds, interrupted: interrupted, scenarios: results))
    }

    private static func time(_ seconds: Double) -> String { printfFormat("%.3f", seconds) }

}

/// JSON as the files `hal test` writes hold it (a JSON report, a shrunk case's scenario and plan): indented, keys
/// sorted, slashes plain. The same value gives the same bytes.
public enum WrittenJSON {
    /// The encoder.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as a file's bytes, with a final newline.
    public static func file(_ value: some Encodable) throws -> [UInt8] {
        Array(try encoder.encode(value)) + [UInt8(ascii: "\n")]
    }
}
