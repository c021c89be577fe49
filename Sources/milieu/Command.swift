import MilieuJSON

/// One line a person typed, understood: a command with its arguments checked and its JSON
/// values parsed.
enum Command: Equatable {
    case get(path: String)
    case set(path: String, value: JSON)
    case call(path: String, arguments: [JSON])
    case mount(declaration: JSONObject)
    case unmount(path: String)
    case provide(path: String, changes: JSONObject)
    /// `view/controls`, `view/tap` and `view/input`: a view's controls, pressed and typed into.
    case controls(path: String)
    case tap(path: String, label: String)
    case input(path: String, label: String, value: JSON)
    /// `depth`: levels below the path to draw; nil for all. `picture`: drawn with Graphviz instead.
    case tree(path: String?, depth: Int?, picture: Picture?)
    /// The cause and effect of commit `version` (`graph/explain`), as text or drawn.
    case explain(version: Int, picture: Picture?)
    /// Why the view at `path` re-rendered at `version`, or at its latest re-render.
    case why(path: String, version: Int?)
    /// `view/dependencies` of a view.
    case dependencies(path: String)
    /// `graph/readers` of a key path.
    case readers(path: String)
    /// `view/environment` of a view, as text or drawn.
    case environment(path: String, picture: Picture?)
    /// No targets and no lifecycle: list the watches.
    case watch(targets: [String], lifecycle: Bool, commits: Bool)
    /// No numbers: every watch.
    case unwatch(numbers: [Int])
    case types(name: String?)
    /// `daemon/info` and `daemon/clients`.
    case info
    case clients
    /// `graph/reset`; `confirmed` by `--yes`, or by answering yes at the prompt.
    case reset(confirmed: Bool)
    /// A scene by name, a scene file, or Swift source files loaded together; none lists the
    /// scenes. `replace`: unload what it mounted first, so that it can be loaded again.
    case load(sources: [String], replace: Bool)
    case unload(sources: [String])
    /// A JSON-RPC line, sent as typed.
    case raw(line: String)
    case help(command: String?)
    case quit
}

/// A line that is not a valid command, with the usage to show.
struct CommandError: Error, Equatable {
    let message: String
    let usage: String?
}

extension Command {
    /// Parses a line; nil for a blank line or a `#` comment.
    static func parse(_ line: String) throws(CommandError) -> Command? {
        let text = line.trimmingWhitespace()
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        if text.hasPrefix("{") || text.hasPrefix("[") { return .raw(line: String(text)) }
        let name = String(text.prefix { !$0.isWhitespace })
        let rest = text.dropFirst(name.count).trimmingWhitespace()
        guard let spec = CommandCatalog.spec(named: name) else {
            throw CommandError(message: "unknown command \(name)\(CommandCatalog.didYouMean(name)); help lists the commands", usage: nil)
        }
        var arguments = CommandArguments(rest, spec: spec)
        let command = try spec.parse(&arguments)
        try arguments.finish()
        return command
    }
}

/// The arguments after a command name, taken one at a time by the command's parser
/// (`CommandSpec.parse`).
struct CommandArguments {
    private var rest: Substring
    private let spec: CommandSpec

    init(_ rest: Substring, spec: CommandSpec) {
        self.rest = rest
        self.spec = spec
    }

    func failure(_ message: String) -> CommandError { CommandError(message: message, usage: spec.usage) }

    mutating func optionalWord() -> String? {
        guard let first = ArgumentScanner.words(in: rest).first else { return nil }
        rest = rest[first.endIndex...].trimmingWhitespace()
        return String(first)
    }

    mutating func word(_ what: String) throws(CommandError) -> String {
        guard let word = optionalWord() else { throw failure("\(spec.name) needs \(what)") }
        return word
    }

    /// A control's label: a bare word as it is (`+`, `로그인`), or a JSON string for one with spaces.
    mutating func label() throws(CommandError) -> String {
        let word = try self.word("a control's label")
        guard word.hasPrefix("\"") else { return word }
        guard case .string(let label) = try ArgumentScanner.parse(word, failure: failure) else {
            throw failure("\(word) is not a label; write it bare or as a JSON string")
        }
        return label
    }

    /// The rest of the line as one JSON value.
    mutating func json(_ what: String) throws(CommandError) -> JSON {
        guard !rest.isEmpty else { throw failure("\(spec.name) needs \(what)") }
        let text = String(rest)
        rest = ""
        return try ArgumentScanner.parse(text, failure: failure)
    }

    mutating func jsonObject(_ what: String) throws(CommandError) -> JSONObject {
        guard case .object(let object) = try json(what) else { throw failure("\(spec.name) needs \(what) ({...})") }
        return object
    }

    /// The rest of the line as JSON values separated by spaces.
    mutating func jsonValues() throws(CommandError) -> [JSON] {
        var values: [JSON] = []
        for word in ArgumentScanner.words(in: rest) { values.append(try ArgumentScanner.parse(String(word), failure: failure)) }
        rest = ""
        return values
    }

    /// `--dot`, or `--svg FILE` / `--png FILE` with its file; nil for any other word.
    mutating func picture(_ word: String) throws(CommandError) -> Picture? {
        if word == "--dot" { return .dot }
        guard word.hasPrefix("--"), Picture.formats.contains(String(word.dropFirst(2))) else { return nil }
        guard let path = optionalWord() else { throw failure("\(word) needs a file to write") }
        return .file(path: path, format: String(word.dropFirst(2)))
    }

    /// A version as typed: `12` or `v12`.
    func version(_ word: String) throws(CommandError) -> Int {
        guard let number = Int(word.hasPrefix("v") ? String(word.dropFirst()) : word), number > 0 else {
            throw failure("\(word) is not a version (v12, or 12)")
        }
        return number
    }

    func finish() throws(CommandError) {
        guard rest.isEmpty else { throw failure("unexpected \(rest) after the arguments of \(spec.name)") }
    }
}

/// Lines typed until their JSON brackets balance, as one command: `mount {` on one line and
/// `"parent": "/App", "name": "V"}` on the next are `mount {"parent": "/App", "name": "V"}`.
/// The lines are joined with a space, so a raw JSON-RPC request stays one line on the wire.
struct LineJoiner {
    /// The text typed so far of a command not complete yet.
    private(set) var pending: String?

    /// The command `line` completes; nil while brackets are still open (more lines are needed).
    mutating func add(_ line: String) -> String? {
        let text = pending.map { $0 + " " + line } ?? line
        guard ArgumentScanner.openBrackets(in: Substring(text)) == 0 else {
            pending = text
            return nil
        }
        pending = nil
        return text
    }

    /// Forgets the lines typed so far (Ctrl-C at `...>`).
    mutating func abandon() { pending = nil }
}

/// Splits argument text into words at spaces outside JSON strings and brackets, so that
/// `Row["a b"].x` and `[1, 2]` are one word each.
enum ArgumentScanner {
    /// How many `{` and `[` outside JSON strings are still open at the end of `text`.
    static func openBrackets(in text: Substring) -> Int {
        var depth = 0
        var inString = false
        var escaped = false
        for character in text {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "[", "{": depth += 1
            case "]", "}": depth = max(0, depth - 1)
            default: break
            }
        }
        return depth
    }

    static func words(in text: Substring) -> [Substring] {
        var words: [Substring] = []
        var start: Substring.Index?
        var depth = 0
        var inString = false
        var escaped = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character.isWhitespace && depth == 0 {
                if let begin = start { words.append(text[begin..<index]) }
                start = nil
            } else {
                if start == nil { start = index }
                switch character {
                case "\"": inString = true
                case "[", "{": depth += 1
                case "]", "}": depth = max(0, depth - 1)
                default: break
                }
            }
            index = text.index(after: index)
        }
        if let begin = start { words.append(text[begin...]) }
        return words
    }

    /// Whether `text` has the shape of a bare word: a letter, then letters, digits and `@._-`.
    static func isBareWord(_ text: String) -> Bool {
        guard let first = text.first, first.isLetter else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || "@._-".contains($0) }
    }

    /// Parses JSON text. A bare word — a letter, then letters, digits and `@._-`, which no JSON
    /// value is — is the string it spells (`set theme.colorScheme dark`); `true`, `false`,
    /// `null` and numbers stay JSON, and anything else that is not JSON is a mistake.
    static func parse(_ text: String, failure: (String) -> CommandError) throws(CommandError) -> JSON {
        let bytes = Array(text.utf8)
        do {
            return try JSON(parsing: bytes)
        } catch {
            if isBareWord(text) { return .string(text) }
            throw failure("\(text) is not JSON (\(error.described(in: bytes))); a string with spaces or other signs needs double quotes")
        }
    }
}

extension StringProtocol where SubSequence == Substring {
    /// The text without leading and trailing whitespace.
    func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return self[first...last]
    }
}
