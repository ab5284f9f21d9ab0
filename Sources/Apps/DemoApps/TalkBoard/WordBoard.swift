public import AppCore
/// The talk board's words: categories, favourites and the voice.
public struct WordBoard: Sendable, Hashable, Codable {
    /// A named page of words.
    public struct Category: Sendable, Hashable, Codable {
        /// The tab's name.
        public var name: String
        /// The words, in grid order.
        public var words: [String]

        /// Creates a category.
        public init(name: String, words: [String]) {
            self.name = name
            self.words = words
        }
    }

    /// The categories, in tab order after Favourites.
    public var categories: [Category]
    /// The favourite words: the first page, and where "scroll back" returns.
    public var favourites: [String]
    /// The text-to-speech voice or language, such as `en` or `fr`.
    public var voice: String?
    /// Whether each word is spoken as it is tapped.
    public var speakSelectedWord: Bool?
    /// Whether the board goes back to Favourites after each word is tapped ("scroll back").
    public var scrollBack: Bool?
    /// Word grid columns, 4 by default.
    public var columns: Int?
    /// Word grid rows, 3 by default.
    public var rows: Int?

    /// The most words the bar holds.
    public static let barCapacity = 20
    /// The most categories (tabs after Favourites).
    public static let maximumCategories = 16
    /// The most screens of words one page scrolls through.
    public static let maximumScreens = 8

    /// Creates a board.
    public init(categories: [Category], favourites: [String], voice: String = "en") {
        self.categories = categories
        self.favourites = favourites
        self.voice = voice
    }

    /// Checks the board, naming the first field that breaks a rule.
    public func validate() throws(AppConfigError) {
        let columns = columns ?? 4, rows = rows ?? 3
        guard (1...8).contains(columns) else { throw AppConfigError(field: "columns", "\(columns); expected 1…8") }
        guard (1...8).contains(rows) else { throw AppConfigError(field: "rows", "\(rows); expected 1…8") }
        guard !categories.isEmpty, categories.count <= Self.maximumCategories else {
            throw AppConfigError(field: "categories", "\(categories.count) categories; expected 1…\(Self.maximumCategories)")
        }
        let pageCapacity = columns * rows * Self.maximumScreens
        for (index, category) in categories.enumerated() {
            guard !category.name.isEmpty else { throw AppConfigError(field: "categories[\(index)].name", "empty; a tab needs a name") }
            guard (1...pageCapacity).contains(category.words.count) else {
                throw AppConfigError(field: "categories[\(index)].words", "\(category.words.count) words; a page holds 1…\(pageCapacity)")
            }
            if let blank = category.words.firstIndex(where: \.isEmpty) {
                throw AppConfigError(field: "categories[\(index)].words[\(blank)]", "empty word")
            }
        }
        guard favourites.count <= pageCapacity else {
            throw AppConfigError(field: "favourites", "\(favourites.count) words; a page holds at most \(pageCapacity)")
        }
        if let voice, voice.isEmpty { throw AppConfigError(field: "voice", "empty; expected a language such as en") }
    }
}
