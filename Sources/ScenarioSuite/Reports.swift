public import Foundation

extension SuiteReport {
    /// The report as JUnit XML, the form CI systems render: one `testcase` per scenario (its app as the class),
    /// a `failure` per failed expectation or diff, an `error` for a scenario that could not run, `skipped` with its
    /// reason, and the tail of the event log as `system-out`.
    public func junitXML(suiteName: String = "hal test") -> String {
        let errors = results.filter { $0.status == .error }.count
        let failures = results.filter { $0.status == .failed }.count
        let counts = "tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(Self.time(seconds))\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(Self.escape(suiteName))\" \(counts)>\n"
        xml += "  <testsuite name=\"\(Self.escape(suiteName))\" \(counts)>\n"
        for result in results {
            xml += "    <testcase name=\"\(Self.escape(result.path))\" classname=\"\(Self.escape(result.app ?? "scenario"))\""
            xml += " file=\"\(Self.escape(result.path))\" time=\"\(Self.time(result.seconds))\">\n"
            for failure in result.failures {
                let message = Self.escape(String(failure.prefix { $0 != "\n" }))
                switch result.status {
                case .failed: xml += "      <failure message=\"\(message)\" type=\"failure\">\(Self.escape(failure))</failure>\n"
                case .error: xml += "      <error message=\"\(message)\" type=\"error\">\(Self.escape(failure))</error>\n"
                case .skipped: xml += "      <skipped message=\"\(message)\"/>\n"
                case .passed: break
                }
            }
            if !result.logTail.isEmpty {
                xml += "      <system-out>\(Self.escape(result.logTail.joined(separator: "\n")))</system-out>\n"
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(
            Document(passed: passed, failed: failed, skipped: skipped, seconds: seconds, interrupted: interrupted, scenarios: results))
    }

    private static func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    /// Text as XML character data or an attribute value; characters XML 1.0 cannot hold become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
