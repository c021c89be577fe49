/// Scanning text that embeds JSON values in brackets, as view paths do (`/App/Row["a/b"]`):
/// a `/` or `]` inside a JSON string, or a `/` inside brackets, is part of the id, not syntax.
/// It reads Unicode scalars, not Characters: a quote followed by a combining mark (an id that
/// begins with one) is one Character, and still a quote.
public enum EmbeddedJSONScanner {
    /// Where `separator` occurs outside brackets and JSON strings.
    public static func topLevelIndices(of separator: Unicode.Scalar, in text: String) -> [String.Index] {
        var found: [String.Index] = []
        scan(text, from: text.startIndex) { index, character, depth in
            if character == separator && depth == 0 { found.append(index) }
            return true
        }
        return found
    }

    /// The `]` that closes the `[` at `start`; nil when it is never closed.
    public static func closingBracket(in text: String, from start: String.Index) -> String.Index? {
        var closing: String.Index?
        scan(text, from: start) { index, character, depth in
            guard character == "]", depth == 0 else { return true }
            closing = index
            return false
        }
        return closing
    }

    /// Calls `visit` with each scalar outside JSON strings and the bracket depth after it,
    /// until it returns false.
    private static func scan(_ text: String, from start: String.Index, _ visit: (String.Index, Unicode.Scalar, Int) -> Bool) {
        let scalars = text.unicodeScalars
        var depth = 0
        var inString = false
        var escaped = false
        var index = start
        while index < scalars.endIndex {
            let character = scalars[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else {
                if character == "[" { depth += 1 } else if character == "]" { depth = max(0, depth - 1) }
                guard visit(index, character, depth) else { return }
            }
            index = scalars.index(after: index)
        }
    }
}
