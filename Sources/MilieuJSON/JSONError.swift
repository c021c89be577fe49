/// Why a JSON text was rejected, and where.
///
/// `reason` is a short phrase meant for people ("duplicate key \"a\"", "nesting deeper than 128");
/// `offset` is the zero-based byte offset in the input where the problem was found.
/// `description` joins the two: "invalid UTF-8 at byte 12".
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Zero-based byte offset into the input at which the problem was detected.
    public var offset: Int
    /// What is wrong, in words (without the offset).
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) at byte \(offset)" }

    /// Where the problem is in `text` (the input that was parsed), as an editor counts: line
    /// and column from 1, the column in characters.
    public func location(in text: [UInt8]) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), text.count)
        let before = text[..<end]
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let line = before.count { $0 == UInt8(ascii: "\n") } + 1
        return (line, String(decoding: text[lineStart..<end], as: UTF8.self).count + 1)
    }

    /// The reason and where it is in `text`: `expected ',' or '}' at line 3, column 14`.
    public func described(in text: [UInt8]) -> String {
        let (line, column) = location(in: text)
        return "\(reason) at line \(line), column \(column)"
    }
}

/// How much nesting the parser accepts before refusing the input.
public struct JSONLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted; a document nested deeper is an
    /// error ("nesting deeper than 128"). Scalars at the top level are depth 0, `[]` is depth 1.
    ///
    /// The parser's own stack use is bounded, so any limit is safe to *parse*; but very deep
    /// values (tens of thousands of levels) are destroyed, compared and written recursively,
    /// so keep this modest.
    public var maxDepth: Int

    public init(maxDepth: Int = 128) {
        self.maxDepth = maxDepth
    }

    /// `maxDepth` 128.
    public static let `default` = JSONLimits()
}
