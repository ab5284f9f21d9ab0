import Foundation
import HAL
import Testing
import TestSupport

/// The small helpers that stand in for Foundation's: printf formats, trimming, folders and file versions.
@Suite struct TextAndFileTests {
    @Test func printfFormatsAsC() {
        #expect(printfFormat("%.1f s", 2.25) == "2.2 s")
        #expect(printfFormat("%7.2f|%+.1f|%g|%.0f", 3.14159, 2.0, 0.5, 1e20) == "   3.14|+2.0|0.5|100000000000000000000")
        // Longer than the first buffer: formatted again at its length.
        #expect(printfFormat("%300.1f", 1.0).count == 300)
    }

    @Test func trimmingRemovesWhitespaceAroundOnly() {
        #expect(" \t a b \n".trimmedWhitespace == "a b")
        #expect("  \n".trimmedWhitespace == "")
        #expect("x".trimmedWhitespace == "x")
    }

    @Test func aFileVersionChangesWithTheFile() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/file"
        #expect(isFolder(folder) && !isFolder(path) && FileVersion(path: path) == nil)
        try "one".write(toFile: path, atomically: false, encoding: .utf8)
        let first = try #require(FileVersion(path: path))
        #expect(first.size == 3 && !isFolder(path))
        #expect(FileVersion(path: path) == first)
        try "three".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(FileVersion(path: path)?.size == 5 && FileVersion(path: path) != first)
    }
}
