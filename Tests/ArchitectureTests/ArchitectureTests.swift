import Foundation
import Testing
import TestSupport

/// The package's shape, checked: the import rules written in `docs/architecture.md`, and the light core's dependency
/// closure, read from `swift package describe --type json`.
@Suite struct ArchitectureTests {
    /// Modules every module may import: the Swift toolchain's own.
    static let toolchain: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "FoundationXML", "Dispatch", "Synchronization", "Testing", "XCTest"]

    /// The rules: each module and the modules it may import, from the `import-rules` block of docs/architecture.md.
    static func rules(in text: String) throws -> [String: Set<String>] {
        guard let start = text.range(of: "```import-rules\n"), let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
            throw RuleError(description: "docs/architecture.md has no ```import-rules block")
        }
        var rules: [String: Set<String>] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw RuleError(description: "import-rules: '\(line)' is not 'Module: Allowed …'") }
            rules[String(parts[0]).trimmingCharacters(in: .whitespaces)] = Set(parts[1].split(separator: " ").map(String.init).filter { $0 != "-" })
        }
        return rules
    }

    struct RuleError: Error, CustomStringConvertible { var description: String }

    /// Every Swift file's module (the folder under a group of Sources/) and the modules it imports.
    static func imports(under root: String) throws -> [(file: String, module: String, imported: String)] {
        var found: [(String, String, String)] = []
        for (file, module) in swiftFiles(under: root) {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                // Any attribute or access modifier before `import` is read past, so that an `@_implementationOnly` or
                // `@_spi(…)` import is checked like any other; `import struct M.T` names its module after the kind.
                let modifiers: Set<String> = ["public", "package", "internal", "private", "fileprivate"]
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                      words[..<index].allSatisfy({ $0.hasPrefix("@") || modifiers.contains($0) })
                else { continue }
                let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
                let target = kinds.contains(words[index + 1]) && index + 2 < words.count ? words[index + 2] : words[index + 1]
                found.append((file, module, String(target.split(separator: ".").first ?? "")))
            }
        }
        return found
    }

    /// Every Swift file in a module folder, `Sources/GROUP/MODULE/…`, with its module, in path order.
    static func swiftFiles(under root: String) -> [(file: String, module: String)] {
        let files = FileManager.default.enumerator(atPath: root + "/Sources")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return files.sorted().compactMap { file in
            let parts = file.split(separator: "/")
            return parts.count >= 3 ? ("Sources/" + file, String(parts[1])) : nil
        }
    }

    /// The folders of Swift modules: `Sources/GROUP/MODULE` holding a Swift file.
    static func moduleFolders(under root: String) -> Set<String> {
        Set(swiftFiles(under: root).map(\.module))
    }

    /// The offences against `rules` among `imports`.
    static func offences(_ imports: [(file: String, module: String, imported: String)], rules: [String: Set<String>]) -> [String] {
        imports.compactMap { entry in
            guard let allowed = rules[entry.module] else { return "\(entry.file): module \(entry.module) has no import rule" }
            if toolchain.contains(entry.imported) || allowed.contains(entry.imported) || entry.imported == entry.module { return nil }
            return "\(entry.file): \(entry.module) may not import \(entry.imported)"
        }
    }

    @Test func everyImportFollowsTheRules() throws {
        let rules = try Self.rules(in: String(contentsOfFile: packageRoot + "/docs/architecture.md", encoding: .utf8))
        let imports = try Self.imports(under: packageRoot)
        #expect(imports.count > 200)
        #expect(Self.offences(imports, rules: rules) == [])
        // Every module folder has a rule, and every rule a module.
        let folders = Self.moduleFolders(under: packageRoot)
        #expect(folders.subtracting(rules.keys).sorted() == [])
        #expect(Set(rules.keys).subtracting(folders).sorted() == [])
    }

    /// The check can fail: an import the rules do not allow, and a module with no rule, are offences.
    @Test func aForbiddenImportIsAnOffence() throws {
        let rules = try Self.rules(in: "```import-rules\nHAL: LibC\nSession: HAL AppCore\n```\n")
        let imports = [
            (file: "Sources/HAL/HAL/A.swift", module: "HAL", imported: "LibC"),
            (file: "Sources/Apps/Session/B.swift", module: "Session", imported: "Audio"),
            (file: "Sources/Apps/Session/C.swift", module: "Session", imported: "Foundation"),
            (file: "Sources/Sensors/Audio/D.swift", module: "Audio", imported: "HAL"),
        ]
        #expect(Self.offences(imports, rules: rules) == [
            "Sources/Apps/Session/B.swift: Session may not import Audio",
            "Sources/Sensors/Audio/D.swift: module Audio has no import rule",
        ])
    }

    /// The products a user's app and its tests depend on, whose closure must hold no C target.
    static let lightProducts = ["HAL", "HALTestDoubles", "AppCore", "Session", "TraceFormat", "Replay", "Synthesis", "ScenarioSuite", "Exploration"]
    /// Products of other packages the light core may use: swift-system's typed system calls.
    static let allowedExternalProducts: Set<String> = ["SystemPackage"]

    /// A target of `swift package describe --type json`.
    struct Target: Decodable {
        var name: String
        var type: String
        var module_type: String?
        var target_dependencies: [String]?
        var product_dependencies: [String]?
    }
    struct Description: Decodable {
        var targets: [Target]
        var products: [Product]
        struct Product: Decodable { var name: String; var targets: [String] }
    }

    /// The offences in the closure of `product`: C and system-library targets, and other packages' products that
    /// are not allowed.
    static func closureOffences(of product: String, in description: Description) -> [String] {
        let targets = Dictionary(description.targets.map { ($0.name, $0) }) { first, _ in first }
        guard let roots = description.products.first(where: { $0.name == product })?.targets else { return ["no product \(product)"] }
        var seen: Set<String> = []
        var offences: [String] = []
        var queue = roots
        while let name = queue.popLast() {
            guard seen.insert(name).inserted, let target = targets[name] else { continue }
            if target.type == "system-target" || target.module_type == "SystemLibraryTarget" {
                offences.append("\(product) → \(name): a system library")
            } else if target.module_type == "ClangTarget" {
                offences.append("\(product) → \(name): a C target")
            }
            for external in target.product_dependencies ?? [] where !allowedExternalProducts.contains(external) {
                offences.append("\(product) → \(name) → \(external): another package's product")
            }
            queue += target.target_dependencies ?? []
        }
        return offences.sorted()
    }

    @Test func theLightCoreNeedsNoCLibrary() throws {
        let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_PATH"] ?? "/opt/swift/usr/bin/swift"
        // A scratch folder of its own: the running test holds the package's .build lock.
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let result = try runProcess(
            swift, ["package", "--package-path", packageRoot, "--scratch-path", scratch, "describe", "--type", "json"], timeout: 600)
        try #require(result.status == 0, "\(result.output)")
        // `describe` may print resolution lines before the JSON.
        let json = try #require(result.output.firstIndex(of: "{").map { result.output[$0...] })
        let description = try JSONDecoder().decode(Description.self, from: Data(json.utf8))
        for product in Self.lightProducts {
            #expect(Self.closureOffences(of: product, in: description) == [], "\(product)")
        }
        // The check can fail: the tool's closure holds C libraries.
        #expect(Self.closureOffences(of: "HALCommandLine", in: description).contains { $0.hasSuffix("CIIO: a C target") })
        #expect(Self.closureOffences(of: "FrameSources", in: description).contains { $0.hasSuffix("COpenCV: a C target") })
    }
}

extension ArchitectureTests {
    /// An import written with an attribute the parser has not seen is read like any other, and so checked.
    @Test func anImportWithAnyAttributeIsRead() throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/Sources/Apps/Session", withIntermediateDirectories: true)
        try """
            @_implementationOnly import CALSA
            @_spi(Internal) public import Audio
            import struct FrameSources.VideoFiles
            // import Expressions
            """.write(toFile: folder + "/Sources/Apps/Session/A.swift", atomically: true, encoding: .utf8)
        let imports = try Self.imports(under: folder)
        #expect(imports.map(\.imported) == ["CALSA", "Audio", "FrameSources"])
        let rules = try Self.rules(in: "```import-rules\nSession: HAL\n```\n")
        #expect(Self.offences(imports, rules: rules).count == 3)
    }
}
