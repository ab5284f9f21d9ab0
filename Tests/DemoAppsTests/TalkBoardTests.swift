import AppCore
import DemoApps
import Audio
import HAL
import Interchange
import Replay
import Synthesis
import TraceFormat
import Testing

@Suite struct TalkBoardTests {
    static let board = WordBoard(
        categories: [WordBoard.Category(name: "Food", words: ["apple", "juice"])], favourites: ["I", "want"], voice: "en")
    static let go = (x: 0.92, y: 0.07), delete = (x: 0.77, y: 0.07)

    static func word(_ index: Int, at seconds: Double) -> [AppInput] {
        let centre = TalkBoard.Layout.grid.centre(ofCell: index, columns: 4, rows: 3)
        return tap(seconds, centre.x, centre.y)
    }

    @Test func goSpeaksTheBarThroughTextToSpeechInTheChosenVoice() async throws {
        let speaker = CapturingSpeaker(info: DeviceInfo(uri: "capture:t", name: "t", kind: .speaker, backend: "capture"), clock: VirtualClock())
        var inputs = tap(0.5, Self.go.x, Self.go.y) + tap(1, Self.delete.x, Self.delete.y)  // empty bar: nothing
        inputs += Self.word(0, at: 2) + Self.word(1, at: 3) + tap(4, Self.go.x, Self.go.y)
        inputs.append(.command(AppCommand(timestamp: at(5), action: "setVoice", arguments: ["voice": "es"])))
        inputs += tap(6, Self.go.x, Self.go.y)
        let log = await events(try TalkBoard(board: Self.board), inputs, speaker: speaker)
        #expect(!log.contains { $0.timestamp < at(2) && $0.timestamp > .zero })
        #expect(speaker.captures.map(\.item) == [.speech(text: "I want", voice: "en"), .speech(text: "I want", voice: "es")])
        #expect(speaker.captures.allSatisfy { $0.duration > .milliseconds(300) })  // espeak-ng really spoke
    }

    @Test func xDeletesTheLastWordAndSpeakSelectedSpeaksEachTap() async throws {
        var inputs = tap(1, 0.75, 0.95)  // speak selected word: on
        inputs += tap(2, (1 + 0.5) / 2, 0.2)  // the Food tab (of Favourites, Food)
        inputs += Self.word(1, at: 3) + Self.word(0, at: 4) + tap(5, Self.delete.x, Self.delete.y)
        inputs += tap(6, 0.25, 0.95)  // scroll back
        let log = await events(try TalkBoard(board: Self.board), inputs)
        #expect(log.named("word.spoken").map { $0.attributes["word"] } == [.string("juice"), .string("apple")])
        #expect(log.named("bar.deleted").first?.attributes["bar"] == .string("juice"))
        #expect(log.named("page.shown").map { $0.attributes["page"] } == [.string("Favourites"), .string("Food"), .string("Favourites")])
    }

    @Test func aBoardOutsideTheRulesNamesTheField() {
        var board = Self.board
        board.columns = 9
        #expect(throws: AppConfigError(field: "columns", "9; expected 1…8")) { try TalkBoard(board: board) }
    }
}
