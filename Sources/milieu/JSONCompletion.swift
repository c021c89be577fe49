import MilieuProtocol

/// Tab inside the JSON of `mount {…}` and `provide PATH {…}`: where the cursor is in the
/// unfinished JSON, and what fits there — a declaration's member names (`"stateObjects":`), an
/// object entry's (`"type":`), and after `"type":` the registered type names.
enum JSONCompletion {
    /// Where the text before the cursor leaves off: the keys from the top to the object being
    /// written, whether a member name comes next, and the key whose value comes next.
    struct Position: Equatable {
        var keys: [String]
        var expectsKey: Bool
        var valueOf: String?
    }

    /// The position at the end of `text`, the start of a JSON object not yet closed; nil when it
    /// is not inside one, or inside an array (a body's lines are the user's own).
    static func position(in text: Substring) -> Position? {
        enum Frame {
            case object(key: String?, expectsKey: Bool)
            case array
        }
        var frames: [Frame] = []
        var string: String?
        var escaped = false
        var lastString: String?
        for character in text {
            if var current = string {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    lastString = current
                    string = nil
                    continue
                } else {
                    current.append(character)
                }
                string = current
                continue
            }
            switch character {
            case "\"": string = ""
            case "{": frames.append(.object(key: nil, expectsKey: true))
            case "[": frames.append(.array)
            case "}", "]": if !frames.isEmpty { frames.removeLast() }
            case ":":
                if case .object(_, true)? = frames.last { frames[frames.count - 1] = .object(key: lastString, expectsKey: false) }
            case ",":
                if case .object(let key, false)? = frames.last { frames[frames.count - 1] = .object(key: key, expectsKey: true) }
            default: break
            }
            if character != "\"" { lastString = character.isWhitespace ? lastString : nil }
        }
        guard case .object(let key, let expectsKey)? = frames.last else { return nil }
        var keys: [String] = []
        for frame in frames.dropLast() {
            guard case .object(let outer?, false) = frame else { return nil }
            keys.append(outer)
        }
        return Position(keys: keys, expectsKey: expectsKey, valueOf: expectsKey ? nil : key)
    }

    /// The candidates for `word` (what is typed of the member or value so far, its opening quote
    /// and any `{` or `,` glued before it included) after `before`.
    static func candidates(before: String, word: String, provideChanges: Bool, typeNames: () -> [String]) -> [LineEditor.Candidate] {
        let lead = String(word.prefix { "{[,:".contains($0) })
        let typed = word.dropFirst(lead.count)
        guard typed.isEmpty || typed.hasPrefix("\""), let at = position(in: (before + lead)[...]) else { return [] }
        let prefix = typed.dropFirst()
        if at.expectsKey {
            guard let members = DeclarationMembers.members(at: at.keys, provideChanges: provideChanges) else { return [] }
            return members.filter { $0.hasPrefix(prefix) }.map { .init(text: "\(lead)\"\($0)\":", terminal: true) }
        }
        guard at.valueOf == "type" || (at.keys.first == "environmentObjects" && at.keys.count == 1) else { return [] }
        return typeNames().filter { $0.hasPrefix(prefix) }.map { .init(text: "\(lead)\"\($0)\"", terminal: false) }
    }
}
