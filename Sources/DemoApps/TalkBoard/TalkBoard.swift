public import AppCore
public import HAL

/// The talk board (goTalk): tap words into a display bar and press GO to speak them.
///
/// The screen, in normalised coordinates:
///
/// | area | y | what |
/// |---|---|---|
/// | display bar | 0–0.15 | the words (x 0–0.7), **X** (0.7–0.85), **GO** (0.85–1) |
/// | tabs | 0.15–0.25 | Favourites, then each category, equal widths |
/// | word grid | 0.25–0.9 | the shown page, ``WordBoard/columns`` × ``WordBoard/rows`` |
/// | bottom bar | 0.9–1 | **Scroll back** (x 0–0.5), **Speak selected word** on/off (0.5–1) |
///
/// X deletes the last word, GO speaks the bar in the board's voice; both do nothing on an empty bar.
/// Commands: `setVoice voice`, `toggleFavourite word`.
public struct TalkBoard: AppLogic {
    /// `talkboard`.
    public static let name = "talkboard"

    /// Screen areas.
    public enum Layout {
        /// Where the words show; tapping it does nothing.
        public static let bar = ScreenRegion(x: 0, y: 0, width: 0.7, height: 0.15)
        /// Deletes the last word.
        public static let delete = ScreenRegion(x: 0.7, y: 0, width: 0.15, height: 0.15)
        /// Speaks the bar.
        public static let go = ScreenRegion(x: 0.85, y: 0, width: 0.15, height: 0.15)
        /// The tabs.
        public static let tabs = ScreenRegion(x: 0, y: 0.15, width: 1, height: 0.1)
        /// The word grid.
        public static let grid = ScreenRegion(x: 0, y: 0.25, width: 1, height: 0.65)
        /// Back to favourites.
        public static let scrollBack = ScreenRegion(x: 0, y: 0.9, width: 0.5, height: 0.1)
        /// The speak-selected-word switch.
        public static let speakSelected = ScreenRegion(x: 0.5, y: 0.9, width: 0.5, height: 0.1)
    }

    private let board: WordBoard
    private var favourites: [String]
    private var voice: String
    private var speakSelected: Bool
    private var page = 0  // 0 is Favourites, then the categories
    private var bar: [String] = []
    private var taps = TapDetector()

    /// Creates the board on a validated config.
    public init(board: WordBoard) throws(AppConfigError) {
        try board.validate()
        self.board = board
        favourites = board.favourites
        voice = board.voice ?? "en"
        speakSelected = board.speakSelectedWord ?? false
    }

    private var columns: Int { board.columns ?? 4 }
    private var rows: Int { board.rows ?? 3 }
    private var pageNames: [String] { ["Favourites"] + board.categories.map(\.name) }
    private var words: [String] { page == 0 ? favourites : board.categories[page - 1].words }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        output.emit("board.started", at: time, ["voice": .string(voice), "speakSelectedWord": .bool(speakSelected)])
        show(page: 0, at: time, output: &output)
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        switch input {
        case .reading(.pointer(let event), _):
            if let tap = taps.handle(event) { self.tap(x: tap.x, y: tap.y, at: event.timestamp, output: &output) }
        case .command(let command):
            handle(command, output: &output)
        default:
            break
        }
    }

    private mutating func tap(x: Double, y: Double, at time: Timestamp, output: inout AppOutput) {
        if Layout.delete.contains(x: x, y: y) {
            guard let removed = bar.popLast() else { return }
            output.emit("bar.deleted", at: time, ["word": .string(removed), "bar": .string(bar.joined(separator: " "))])
        } else if Layout.go.contains(x: x, y: y) {
            guard !bar.isEmpty else { return }
            let text = bar.joined(separator: " ")
            output.emit("bar.spoken", at: time, ["text": .string(text), "voice": .string(voice)])
            output.request(.speak(Utterance(text: text, voice: voice)))
        } else if let tab = Layout.tabs.cell(x: x, y: y, columns: pageNames.count, rows: 1) {
            show(page: tab, at: time, output: &output)
        } else if let cell = Layout.grid.cell(x: x, y: y, columns: columns, rows: rows) {
            guard cell < words.count else { return }
            let word = words[cell]
            guard bar.count < WordBoard.barCapacity else {
                output.emit("bar.full", at: time, ["capacity": .int(Int64(WordBoard.barCapacity))])
                return
            }
            bar.append(word)
            output.emit("word.added", at: time, ["word": .string(word), "bar": .string(bar.joined(separator: " "))])
            if speakSelected {
                output.emit("word.spoken", at: time, ["word": .string(word), "voice": .string(voice)])
                output.request(.speak(Utterance(text: word, voice: voice)))
            }
        } else if Layout.scrollBack.contains(x: x, y: y) {
            show(page: 0, at: time, output: &output)
        } else if Layout.speakSelected.contains(x: x, y: y) {
            speakSelected.toggle()
            output.emit("option.speakSelectedWord", at: time, ["on": .bool(speakSelected)])
        }
    }

    private mutating func show(page: Int, at time: Timestamp, output: inout AppOutput) {
        self.page = page
        output.emit("page.shown", at: time, ["page": .string(pageNames[page]), "words": .string(words.joined(separator: ","))])
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
            if let index = favourites.firstIndex(of: word) {
                favourites.remove(at: index)
                output.emit("favourite.removed", at: time, ["word": .string(word)])
            } else if favourites.count < columns * rows {
                favourites.append(word)
                output.emit("favourite.added", at: time, ["word": .string(word)])
            } else {
                output.refuse(command, "favourites are full (\(columns * rows))")
            }
            if page == 0 { show(page: 0, at: time, output: &output) }
        default:
            output.refuse(command, "unknown action")
        }
    }
}
