import Foundation
import TestSupport
import Testing

/// The catalogue of real programs in `docs/programs.md` stays true: every row that says a program works names a test,
/// and that test exists in this target; a row that does not work says why.
struct CatalogueTests {
    /// The catalogue's rows: the cells of each table line after its header, up to the next section.
    private func rows() throws -> [[String]] {
        let text = try String(contentsOfFile: packageRoot + "/docs/programs.md", encoding: .utf8)
        guard let start = text.range(of: "## Catalogue: real programs by device class") else { return [] }
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return section[..<end].split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| class ") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func everyWorkingProgramNamesATestThatExists() throws {
        let rows = try rows()
        #expect(rows.count >= 15, "the catalogue in docs/programs.md has \(rows.count) rows")
        let folder = packageRoot + "/Tests/ProgramDevicesTests"
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined()
        for row in rows {
            #expect(row.count == 5, "\(row)")
            guard row.count == 5 else { continue }
            let (works, test) = (row[3], row[4])
            if works == "yes" || works == "partly" {
                let name = test.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                #expect(!name.isEmpty && sources.contains("func \(name)("), "\(row[1]): no test \(test)")
            } else {
                #expect(works.hasPrefix("no: "), "\(row[1]): a program that does not work says why: \(works)")
            }
        }
    }
}
