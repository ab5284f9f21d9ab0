import HALTestDoubles
import AppCore
import DemoApps
import Audio
import HAL
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
        inputs += tap(2, 0.375, 0.2)  // the Food tab: Favourites, then three category tabs
        inputs += Self.word(1, at: 3) + Self.word(0, at: 4) + tap(5, Self.delete.x, Self.delete.y)
        let log = await events(try TalkBoard(board: Self.board), inputs)
        #expect(log.named("word.spoken").map { $0.attributes["word"] } == [.string("juice"), .string("apple")])
        #expect(log.named("bar.deleted").first?.attributes["bar"] == .string("juice"))
        #expect(log.named("page.shown").map { $0.attributes["page"] } == [.string("Favourites"), .string("Food")])
    }

    /// A press held past a tap, and a drag, as pointer events.
    static func hold(_ seconds: Double, _ x: Double, _ y: Double) -> [AppInput] {
        [.reading(.pointer(PointerEvent(timestamp: at(seconds), phase: .press, x: x, y: y))),
         .reading(.pointer(PointerEvent(timestamp: at(seconds + 1), phase: .release, x: x, y: y)))]
    }

    static func swipe(_ seconds: Double, from x: Double, to x1: Double, y: Double) -> [AppInput] {
        [.reading(.pointer(PointerEvent(timestamp: at(seconds), phase: .press, x: x, y: y))),
         .reading(.pointer(PointerEvent(timestamp: at(seconds + 0.1), phase: .move, x: (x + x1) / 2, y: y))),
         .reading(.pointer(PointerEvent(timestamp: at(seconds + 0.2), phase: .release, x: x1, y: y)))]
    }

    @Test func holdingAWordTogglesItsFavouriteAndScrollBackReturnsAfterEachWord() async throws {
        var inputs = tap(1, 0.375, 0.2)  // Food
        let apple = TalkBoard.Layout.grid.centre(ofCell: 0, columns: 4, rows: 3)
        inputs += Self.hold(2, apple.x, apple.y)  // apple: into Favourites, no word added
        inputs += tap(4, 0.25, 0.95)  // scroll back: on
        inputs += Self.word(1, at: 5)  // juice, then back to Favourites
        inputs += Self.hold(6, TalkBoard.Layout.grid.centre(ofCell: 2, columns: 4, rows: 3).x, apple.y)  // apple again: out
        let log = await events(try TalkBoard(board: Self.board), inputs)
        #expect(log.named("favourite.added").map(\.timestamp) == [at(3)])
        #expect(log.named("favourite.removed").map { $0.attributes["word"] } == [.string("apple")])
        #expect(log.named("word.added").map { $0.attributes["word"] } == [.string("juice")])
        #expect(log.named("option.scrollBack").map { $0.attributes["on"] } == [.bool(true)])
        #expect(log.named("page.shown").map { "\($0.attributes["page"]!) \($0.attributes["words"]!)" } == [
            "Favourites I,want", "Food apple,juice", "Favourites I,want,apple", "Favourites I,want",
        ])
    }

    @Test func swipesScrollTheTabsByThreeAndThePagesByAScreen() async throws {
        let categories = (1...7).map { WordBoard.Category(name: "C\($0)", words: ["w\($0)"]) }
            + [WordBoard.Category(name: "Many", words: (1...30).map { "m\($0)" })]
        let board = WordBoard(categories: categories, favourites: ["I"])
        var inputs = Self.swipe(1, from: 0.9, to: 0.5, y: 0.2)  // tabs: C4, C5, C6
        inputs += Self.swipe(2, from: 0.9, to: 0.5, y: 0.2)  // C6, C7, Many: the last three
        inputs += Self.swipe(3, from: 0.9, to: 0.5, y: 0.2)  // no further
        inputs += tap(4, 0.875, 0.2)  // Many
        inputs += Self.swipe(5, from: 0.9, to: 0.3, y: 0.6) + Self.swipe(6, from: 0.9, to: 0.3, y: 0.6)  // screens 2 and 3
        inputs += Self.swipe(7, from: 0.9, to: 0.3, y: 0.6)  // no fourth screen
        inputs += Self.swipe(8, from: 0.3, to: 0.9, y: 0.6)  // back to 2
        inputs += Self.swipe(8.5, from: 0.5, to: 0.9, y: 0.2)  // tabs back: C4, C5, C6 again, the way they came
        inputs += Self.word(0, at: 9)
        inputs += Self.swipe(10, from: 0.5, to: 0.55, y: 0.6)  // too short to scroll, too long to tap
        let log = await events(try TalkBoard(board: board), inputs)
        #expect(log.named("tabs.shown").map { $0.attributes["categories"] } == [.string("C4,C5,C6"), .string("C6,C7,Many"), .string("C4,C5,C6")])
        #expect(log.named("page.shown").map { "\($0.attributes["page"]!) \($0.attributes["screen"]!)" } == [
            "Favourites 1/1", "Many 1/3", "Many 2/3", "Many 3/3", "Many 2/3",
        ])
        #expect(log.named("word.added").map { $0.attributes["word"] } == [.string("m13")])
    }

    @Test func aGoneSpeakerHidesWaitingAndShowsItNoMore() async throws {
        var inputs = Self.word(0, at: 1) + tap(2, Self.go.x, Self.go.y)
        inputs.append(.speakerFailed(at(3.5), reason: "unplugged"))
        inputs += tap(4, Self.go.x, Self.go.y)
        let log = await events(try TalkBoard(board: Self.board), inputs, end: 10)  // no speaker: speech never starts
        #expect(log.filter { $0.name.hasPrefix("waiting.") }.map { "\($0.name) \($0.timestamp.seconds)" } == [
            "waiting.shown 3.08", "waiting.hidden 3.5",
        ])
    }

    @Test func speechThatHasNotStartedAfterASecondShowsWaitingUntilItStarts() async throws {
        for (latency, waiting) in [(1.5, ["waiting.shown 3.0", "waiting.hidden 3.5"]), (0.05, [])] {
            let speaker = CapturingSpeaker(
                info: DeviceInfo(uri: "capture:slow", name: "slow", kind: .speaker, backend: "capture"), clock: VirtualClock(),
                latency: SpeakerLatency(base: .milliseconds(Int64(latency * 1000))), speech: .estimated)
            let inputs = Self.word(0, at: 1) + tap(1.92, Self.go.x, Self.go.y)
            let log = await events(try TalkBoard(board: Self.board), inputs, end: 10, speaker: speaker)
            #expect(log.filter { $0.name.hasPrefix("waiting.") }.map { "\($0.name) \($0.timestamp.seconds)" } == waiting)
            #expect(log.named("speaker.started").first?.attributes["latency"] == .double(latency))
        }
    }

    @Test func aBoardOutsideTheRulesNamesTheField() {
        var board = Self.board
        board.columns = 9
        #expect(throws: AppConfigError(field: "columns", "9; expected 1…8")) { try TalkBoard(board: board) }
    }
}
