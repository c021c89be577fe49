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
