public import AppCore
public import HAL

/// The talk board (goTalk): tap words into a display bar and press GO to speak them.
///
/// The screen, in normalised coordinates:
///
/// | area | y | what |
/// |---|---|---|
/// | display bar | 0–0.15 | the words (x 0–0.7), **X** (0.7–0.85), **GO** (0.85–1) |
/// | tabs | 0.15–0.25 | Favourites, pinned (x 0–0.25), then three category tabs; swipe the row for the next three |
/// | word grid | 0.25–0.9 | a screen of the page, ``WordBoard/columns`` × ``WordBoard/rows``; swipe for the next screen |
/// | bottom bar | 0.9–1 | **Scroll back** on/off (x 0–0.5), **Speak selected word** on/off (0.5–1) |
///
/// - X deletes the last word, GO speaks the bar in the board's voice; both do nothing on an empty bar.
/// - Holding a word (a long press) adds it to Favourites, or removes it when it is one (`favourite.added`,
///   `favourite.removed`).
/// - With scroll back on, the board goes back to Favourites after each word is tapped (goTalk §3.11).
/// - **Waiting** (goTalk §4.1): speech should start within 0.1 s of GO; when the speaker has not started it
///   ``waitingAfter`` after the request, `waiting.shown` says so, and `waiting.hidden` when it starts (or the
///   speaker fails). The speaker's `started` playback events, fed back as inputs, tell the board.
///
/// Commands: `setVoice voice`, `toggleFavourite word`.
public struct TalkBoard: AppLogic {
    /// `talkboard`.
    public static let name = "talkboard"
    /// Every event the app emits and every command it takes, so that a scenario's typo is refused before the run.
    public static let vocabulary: AppVocabulary? = AppVocabulary(
        events: [
            "bar.deleted", "bar.full", "bar.spoken", "board.started", "favourite.added", "favourite.refused",
            "favourite.removed", "option.scrollBack", "option.speakSelectedWord", "page.shown", "tabs.shown",
            "voice.set", "waiting.hidden", "waiting.shown", "word.added", "word.spoken",
        ],
        commands: ["setVoice", "toggleFavourite"],
        attributes: [
            "bar.deleted": ["bar", "word"],
            "bar.full": ["capacity"],
            "bar.spoken": ["text", "voice"],
            "board.started": ["categories", "scrollBack", "speakSelectedWord", "voice"],
            "favourite.added": ["word"],
            "favourite.refused": ["reason", "word"],
            "favourite.removed": ["word"],
            "option.scrollBack": ["on"],
            "option.speakSelectedWord": ["on"],
            "page.shown": ["page", "screen", "words"],
            "tabs.shown": ["categories"],
            "voice.set": ["voice"],
            "waiting.hidden": ["text"],
            "waiting.shown": ["text"],
            "word.added": ["bar", "word"],
            "word.spoken": ["voice", "word"],
        ])
    /// How long speech may take to start before the board shows that it is waiting.
    public static let waitingAfter: Duration = .seconds(1)
    /// Category tabs shown at once beside Favourites.
    public static let visibleTabs = 3

    /// Screen areas.
    public enum Layout {
        /// Where the words show; tapping it does nothing.
        public static let bar = ScreenRegion(x: 0, y: 0, width: 0.7, height: 0.15)
        /// Deletes the last word.
        public static let delete = ScreenRegion(x: 0.7, y: 0, width: 0.15, height: 0.15)
        /// Speaks the bar.
        public static let go = ScreenRegion(x: 0.85, y: 0, width: 0.15, height: 0.15)
        /// The tabs: Favourites, then ``TalkBoard/visibleTabs`` categories, equal widths.
        public static let tabs = ScreenRegion(x: 0, y: 0.15, width: 1, height: 0.1)
        /// The word grid.
        public static let grid = ScreenRegion(x: 0, y: 0.25, width: 1, height: 0.65)
        /// The scroll-back switch.
        public static let scrollBack = ScreenRegion(x: 0, y: 0.9, width: 0.5, height: 0.1)
        /// The speak-selected-word switch.
        public static let speakSelected = ScreenRegion(x: 0.5, y: 0.9, width: 0.5, height: 0.1)
    }

    /// The shortest swipe that scrolls, in screen widths.
    static let swipeDistance = 0.1

    private let board: WordBoard
    private var favourites: [String]
    private var voice: String
    private var speakSelected: Bool
    private var scrollBack: Bool
    private var page = 0  // 0 is Favourites, then the categories
    private var screen = 0  // which screen of the page's words
    private var tabGroup = 0  // which three category tabs show: group n starts at tab 3n, the last group ends at the last tab
    private var speakerGone = false
    private var bar: [String] = []
    private var taps = TapDetector()
    /// Speech asked for and not yet started, oldest first: the words, when asked, and whether `waiting` shows.
    private var unstarted: [(text: String, asked: Timestamp, waiting: Bool)] = []

    /// Creates the board on a validated config.
    public init(board: WordBoard) throws(AppConfigError) {
        try board.validate()
        self.board = board
        favourites = board.favourites
        voice = board.voice ?? "en"
        speakSelected = board.speakSelectedWord ?? false
        scrollBack = board.scrollBack ?? false
    }

    private var columns: Int { board.columns ?? 4 }
    private var rows: Int { board.rows ?? 3 }
    private var pageNames: [String] { ["Favourites"] + board.categories.map(\.name) }
    private var words: [String] { page == 0 ? favourites : board.categories[page - 1].words }
    private var screens: Int { max(1, (words.count + columns * rows - 1) / (columns * rows)) }
    private var shownWords: ArraySlice<String> { words.dropFirst(screen * columns * rows).prefix(columns * rows) }
    /// The first category tab shown: the group's, or the last three for the last group.
    private var firstTab: Int { min(tabGroup * Self.visibleTabs, max(0, board.categories.count - Self.visibleTabs)) }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        output.emit("board.started", at: time, [
            "voice": .string(voice), "speakSelectedWord": .bool(speakSelected), "scrollBack": .bool(scrollBack),
            "categories": .int(Int64(board.categories.count)),
        ])
        show(page: 0, at: time, output: &output)
    }

    public var nextDeadline: Timestamp? {
        unstarted.first { !$0.waiting }.map { $0.asked.advanced(by: Self.waitingAfter) }
    }

    public mutating func advance(to time: Timestamp, output: inout AppOutput) {
        for index in unstarted.indices where !unstarted[index].waiting && unstarted[index].asked.advanced(by: Self.waitingAfter) <= time {
            unstarted[index].waiting = true
            output.emit("waiting.shown", at: unstarted[index].asked.advanced(by: Self.waitingAfter), ["text": .string(unstarted[index].text)])
        }
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        switch input {
        case .reading(.pointer(let event), _):
            switch taps.gesture(event) {
            case .tap(let x, let y): tap(x: x, y: y, at: event.timestamp, output: &output)
            case .longPress(let x, let y): hold(x: x, y: y, at: event.timestamp, output: &output)
            case .swipe(let x, let y, let dx, _): swipe(x: x, y: y, dx: dx, at: event.timestamp, output: &output)
            case nil: break
            }
        case .reading(.playback(let event), _):
            guard event.phase == .started, case .speech(let text, _) = event.item,
                  let index = unstarted.firstIndex(where: { $0.text == text }) else { break }
            if unstarted.remove(at: index).waiting { output.emit("waiting.hidden", at: event.timestamp, ["text": .string(text)]) }
        case .speakerFailed(let time, _):
            // Nothing will start now: each waiting symbol goes, and no new one comes.
            for item in unstarted where item.waiting { output.emit("waiting.hidden", at: time, ["text": .string(item.text)]) }
            unstarted.removeAll()
            speakerGone = true
        case .command(let command):
            handle(command, output: &output)
        default:
            break
        }
    }

    private mutating func speak(_ text: String, at time: Timestamp, output: inout AppOutput) {
        output.request(.speak(Utterance(text: text, voice: voice)))
        if !speakerGone { unstarted.append((text, time, false)) }
    }

    private mutating func tap(x: Double, y: Double, at time: Timestamp, output: inout AppOutput) {
        if Layout.delete.contains(x: x, y: y) {
            guard let removed = bar.popLast() else { return }
            output.emit("bar.deleted", at: time, ["word": .string(removed), "bar": .string(bar.joined(separator: " "))])
        } else if Layout.go.contains(x: x, y: y) {
            guard !bar.isEmpty else { return }
            let text = bar.joined(separator: " ")
            output.emit("bar.spoken", at: time, ["text": .string(text), "voice": .string(voice)])
            speak(text, at: time, output: &output)
        } else if let tab = Layout.tabs.cell(x: x, y: y, columns: Self.visibleTabs + 1, rows: 1) {
            let target = tab == 0 ? 0 : firstTab + tab
            guard target < pageNames.count else { return }
            show(page: target, at: time, output: &output)
        } else if let cell = Layout.grid.cell(x: x, y: y, columns: columns, rows: rows) {
            guard let word = word(at: cell) else { return }
            guard bar.count < WordBoard.barCapacity else {
                output.emit("bar.full", at: time, ["capacity": .int(Int64(WordBoard.barCapacity))])
                return
            }
            bar.append(word)
            output.emit("word.added", at: time, ["word": .string(word), "bar": .string(bar.joined(separator: " "))])
            if speakSelected {
                output.emit("word.spoken", at: time, ["word": .string(word), "voice": .string(voice)])
                speak(word, at: time, output: &output)
            }
            if scrollBack && (page != 0 || screen != 0) { show(page: 0, at: time, output: &output) }
        } else if Layout.scrollBack.contains(x: x, y: y) {
            scrollBack.toggle()
            output.emit("option.scrollBack", at: time, ["on": .bool(scrollBack)])
        } else if Layout.speakSelected.contains(x: x, y: y) {
            speakSelected.toggle()
            output.emit("option.speakSelectedWord", at: time, ["on": .bool(speakSelected)])
        }
    }

    private func word(at cell: Int) -> String? {
        let index = screen * columns * rows + cell
        return index < words.count ? words[index] : nil
    }

    /// A long press: a word of the grid goes into Favourites, or out of them.
    private mutating func hold(x: Double, y: Double, at time: Timestamp, output: inout AppOutput) {
        guard let cell = Layout.grid.cell(x: x, y: y, columns: columns, rows: rows), let word = word(at: cell) else { return }
        toggleFavourite(word, at: time, output: &output)
    }

    /// A swipe along the tabs scrolls them by three; along the grid, to the next or previous screen of words.
    private mutating func swipe(x: Double, y: Double, dx: Double, at time: Timestamp, output: inout AppOutput) {
        guard abs(dx) >= Self.swipeDistance else { return }
        let step = dx < 0 ? 1 : -1
        if Layout.tabs.contains(x: x, y: y) {
            let groups = (board.categories.count + Self.visibleTabs - 1) / Self.visibleTabs
            let group = min(groups - 1, max(0, tabGroup + step))
            guard group != tabGroup else { return }
            tabGroup = group
            let first = firstTab
            output.emit("tabs.shown", at: time, [
                "categories": .string(board.categories[first..<min(board.categories.count, first + Self.visibleTabs)].map(\.name).joined(separator: ",")),
            ])
        } else if Layout.grid.contains(x: x, y: y) {
            let next = screen + step
            guard (0..<screens).contains(next) else { return }
            screen = next
            emitPage(at: time, output: &output)
        }
    }

    private mutating func show(page: Int, at time: Timestamp, output: inout AppOutput) {
        self.page = page
        screen = 0
        emitPage(at: time, output: &output)
    }

    private func emitPage(at time: Timestamp, output: inout AppOutput) {
        output.emit("page.shown", at: time, [
            "page": .string(pageNames[page]), "words": .string(shownWords.joined(separator: ",")),
            "screen": .string("\(screen + 1)/\(screens)"),
        ])
    }

    private mutating func toggleFavourite(_ word: String, at time: Timestamp, output: inout AppOutput) {
        if let index = favourites.firstIndex(of: word) {
            favourites.remove(at: index)
            output.emit("favourite.removed", at: time, ["word": .string(word)])
        } else if favourites.count < columns * rows * WordBoard.maximumScreens {
            favourites.append(word)
            output.emit("favourite.added", at: time, ["word": .string(word)])
        } else {
            output.emit("favourite.refused", at: time, ["word": .string(word), "reason": .string("favourites are full (\(columns * rows * WordBoard.maximumScreens))")])
            return
        }
        if page == 0 {
            screen = min(screen, screens - 1)
            emitPage(at: time, output: &output)
        }
    }

    private mutating func handle(_ command: AppCommand, output: inout AppOutput) {
        let time = command.timestamp
        switch command.action {
        case "setVoice":
            guard let value = command.arguments["voice"], !value.isEmpty else {
                return output.refuse(command, "a voice such as en or fr is needed")
            }
            voice = value
            output.emit("voice.set", at: time, ["voice": .string(value)])
        case "toggleFavourite":
            guard let word = command.arguments["word"], !word.isEmpty else {
                return output.refuse(command, "a word is needed")
            }
            toggleFavourite(word, at: time, output: &output)
        default:
            output.refuse(command, "unknown action")
        }
    }
}
