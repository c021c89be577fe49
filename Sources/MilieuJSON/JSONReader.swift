// A strict JSON reader: RFC 8259 plus the I-JSON restrictions (RFC 7493).
//
// - The input must be UTF-8 without a byte order mark; invalid UTF-8 (overlong forms, encoded
//   surrogates, code points past U+10FFFF, truncated sequences) is an error wherever it occurs.
// - `\u` escapes must not leave lone or mismatched surrogates.
// - Control characters (U+0000...U+001F) must be escaped inside strings; outside strings only
//   space, tab, CR and LF may separate tokens.
// - No comments, no trailing commas, no leading zeros or `+`, no NaN/Infinity.
// - A key may appear only once per object. Keys are compared as Swift strings (canonical
//   equivalence), the same comparison `JSONObject` uses for lookup, so an object never holds
//   two keys that its subscript could not tell apart.
// - Nesting deeper than `JSONLimits.maxDepth` is an error. The parser recurses only for the
//   first 64 levels and keeps its own stack below that, so no input and no limit can make it
//   overflow the thread's stack.
//
// Numbers: an integer (no fraction, no exponent) that fits `Int` becomes `.int`. Any other
// number becomes `.double` when finite, and "number out of range" otherwise (`1e400`).
// `-0` becomes `.double(-0.0)` so the sign survives a round trip (it is written back as `-0.0`).
// Tiny numbers that underflow (`1e-400`) become `0.0`, as IEEE rounding has it.

extension JSON {
    /// Parses one JSON value from `text`.
    public init(parsing text: String, limits: JSONLimits = .default) throws(JSONParseError) {
        var text = text
        let result = text.withUTF8 { utf8 in
            JSONParser.parse(UnsafeRawBufferPointer(utf8), limits: limits, inputIsValidUTF8: true)
        }
        self = try result.get()
    }

    /// Parses one JSON value from raw UTF-8 bytes.
    public init(parsing bytes: UnsafeRawBufferPointer, limits: JSONLimits = .default) throws(JSONParseError) {
        self = try JSONParser.parse(bytes, limits: limits, inputIsValidUTF8: false).get()
    }

    /// Parses one JSON value from UTF-8 bytes.
    public init(parsing bytes: [UInt8], limits: JSONLimits = .default) throws(JSONParseError) {
        let result = bytes.withUnsafeBytes { raw in
            JSONParser.parse(raw, limits: limits, inputIsValidUTF8: false)
        }
        self = try result.get()
    }

    /// Parses one JSON value from UTF-8 bytes (offsets in errors count from the slice's start).
    public init(parsing bytes: ArraySlice<UInt8>, limits: JSONLimits = .default) throws(JSONParseError) {
        let result = bytes.withUnsafeBytes { raw in
            JSONParser.parse(raw, limits: limits, inputIsValidUTF8: false)
        }
        self = try result.get()
    }

    /// Parses one JSON-RPC message (a request object or a batch array of them) as `init(parsing:)`
    /// does, except for each message's `id`: a number there that is not an `.int` — `2^63`,
    /// `1e400`, `1.50`, `-0` — is any number RFC 8259 allows, never out of range, and comes back
    /// in `idTexts` as written, one for each such id in the order they appear, so that it can be
    /// echoed exactly; in the value it is a `.double` (infinite past a double's range).
    public static func parsingMessage(
        _ bytes: UnsafeRawBufferPointer, limits: JSONLimits = .default
    ) throws(JSONParseError) -> (message: JSON, idTexts: [String]) {
        try JSONParser.parseMessage(bytes, limits: limits).get()
    }

    /// Parses the one value that starts at `offset` of `bytes` (after any whitespace), as the
    /// value of a member `depth` containers down in a document, against `limits.maxDepth`; returns
    /// it with the offset just past it, or nil if the bytes there are not a valid value. What
    /// follows the value is not looked at: the caller reads on from `end`. Lets a reader that knows
    /// a message's shape (`HotRequest`) take each member's value without building the whole tree,
    /// with the same checks as the whole-document parse.
    public static func parseValue(
        in bytes: UnsafeRawBufferPointer, at offset: Int, depth: Int, limits: JSONLimits = .default
    ) -> (value: JSON, end: Int)? {
        JSONParser.parseValue(bytes, at: offset, depth: depth, limits: limits)
    }

    /// Parses one JSON value from any collection of UTF-8 bytes (`Data`, `UnsafeBufferPointer`, …).
    /// Contiguous collections are read in place; others are copied first.
    public init(parsing bytes: some Collection<UInt8>, limits: JSONLimits = .default) throws(JSONParseError) {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            JSONParser.parse(UnsafeRawBufferPointer(buffer), limits: limits, inputIsValidUTF8: false)
        }
        if let contiguous {
            self = try contiguous.get()
        } else {
            try self.init(parsing: Array(bytes), limits: limits)
        }
    }
}

// MARK: - The parser

private enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}

/// One open array or object on the parser's explicit stack.
private struct Frame {
    var isObject: Bool
    /// Where this container's values start on the value stack.
    var valueStart: Int
    /// Where this object's keys start on the key stack.
    var keyStart: Int
    /// Index into the key-set stack once the object has many keys; -1 before.
    var keySet: Int
}

/// Objects with at least this many keys switch from a linear duplicate scan to a hash set.
private let keySetThreshold = 16

struct JSONParser {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var pos = 0
    private let maxDepth: Int
    /// True when the bytes come from a Swift `String`, which is always valid UTF-8.
    private let inputIsValidUTF8: Bool
    /// Reused buffer for strings with escapes.
    private var scratch: [UInt8] = []
    /// The depth of the objects whose `id` is a JSON-RPC message id (`parseMessage`); 0 otherwise.
    private var messageDepth = 0
    /// The text of each message id that is a number but not an `.int`, in order.
    private var idTexts: [String] = []

    private init(base: UnsafePointer<UInt8>, count: Int, limits: JSONLimits, inputIsValidUTF8: Bool) {
        self.base = base
        self.end = count
        self.maxDepth = limits.maxDepth
        self.inputIsValidUTF8 = inputIsValidUTF8
    }

    static func parse(
        _ bytes: UnsafeRawBufferPointer, limits: JSONLimits, inputIsValidUTF8: Bool
    ) -> Result<JSON, JSONParseError> {
        bytes.withMemoryRebound(to: UInt8.self) { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return .failure(JSONParseError(offset: 0, reason: "unexpected end of input"))
            }
            var parser = JSONParser(base: base, count: buffer.count, limits: limits, inputIsValidUTF8: inputIsValidUTF8)
            return Result { () throws(JSONParseError) -> JSON in try parser.parseDocument() }
        }
    }

    static func parseMessage(
        _ bytes: UnsafeRawBufferPointer, limits: JSONLimits
    ) -> Result<(message: JSON, idTexts: [String]), JSONParseError> {
        bytes.withMemoryRebound(to: UInt8.self) { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return .failure(JSONParseError(offset: 0, reason: "unexpected end of input"))
            }
            var parser = JSONParser(base: base, count: buffer.count, limits: limits, inputIsValidUTF8: false)
            // A batch's requests are one level down. The first byte that is not whitespace says
            // which; anything else is an error parseDocument reports.
            var first = 0
            while first < buffer.count, buffer[first] <= ASCII.space { first += 1 }
            parser.messageDepth = first < buffer.count && buffer[first] == ASCII.openBracket ? 2 : 1
            return Result { () throws(JSONParseError) in
                let message = try parser.parseDocument()
                return (message, parser.idTexts)
            }
        }
    }

    static func parseValue(_ bytes: UnsafeRawBufferPointer, at offset: Int, depth: Int, limits: JSONLimits) -> (value: JSON, end: Int)? {
        bytes.withMemoryRebound(to: UInt8.self) { buffer -> (value: JSON, end: Int)? in
            guard let base = buffer.baseAddress, offset < buffer.count else { return nil }
            var parser = JSONParser(base: base, count: buffer.count, limits: limits, inputIsValidUTF8: false)
            parser.pos = offset
            guard let value = try? parser.parseValueRecursively(depth: depth) else { return nil }
            return (value, parser.pos)
        }
    }

    private mutating func parseDocument() throws(JSONParseError) -> JSON {
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            throw JSONParseError(offset: 0, reason: "byte order mark not allowed")
        }
        let value = try parseValueRecursively(depth: 0)
        skipWhitespace()
        if pos < end {
            throw JSONParseError(offset: pos, reason: "trailing characters after value")
        }
        return value
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < end {
            let b = base[pos]
            if b > ASCII.space { return }
            guard b == ASCII.space || b == ASCII.lineFeed || b == ASCII.carriageReturn || b == ASCII.tab else {
                return
            }
            pos &+= 1
        }
    }

    // MARK: Values and containers

    /// Containers this many levels down and deeper are parsed with an explicit stack
    /// (`parseValue(depthAbove:)`); shallower ones by recursion, which is faster. This bounds the
    /// parser's use of the thread's stack (to some 15 KB optimized, 250 KB unoptimized) whatever
    /// the input and `maxDepth`.
    static let recursionLimit = 64

    private mutating func parseValueRecursively(depth: Int) throws(JSONParseError) -> JSON {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        switch base[pos] {
        case ASCII.quote:
            pos &+= 1
            return .string(try parseString())
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return try parseNumber()
        case ASCII.openBrace:
            if depth >= Self.recursionLimit { return try parseValue(depthAbove: depth) }
            return try parseObjectRecursively(depth: depth &+ 1)
        case ASCII.openBracket:
            if depth >= Self.recursionLimit { return try parseValue(depthAbove: depth) }
            return try parseArrayRecursively(depth: depth &+ 1)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw unexpected(expecting: "a value", atValue: true)
        }
    }

    private mutating func parseArrayRecursively(depth: Int) throws(JSONParseError) -> JSON {
        if depth > maxDepth { throw tooDeep() }
        pos &+= 1
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        if base[pos] == ASCII.closeBracket {
            pos &+= 1
            return .array([])
        }
        var elements: [JSON] = []
        elements.reserveCapacity(4)
        while true {
            elements.append(try parseValueRecursively(depth: depth))
            skipWhitespace()
            guard pos < end else { throw endOfInput() }
            let b = base[pos]
            if b == ASCII.comma {
                pos &+= 1
                skipWhitespace()
                if pos < end, base[pos] == ASCII.closeBracket {
                    throw JSONParseError(offset: pos, reason: "trailing comma")
                }
            } else if b == ASCII.closeBracket {
                pos &+= 1
                return .array(elements)
            } else {
                throw unexpected(expecting: "',' or ']'")
            }
        }
    }

    private mutating func parseObjectRecursively(depth: Int) throws(JSONParseError) -> JSON {
        if depth > maxDepth { throw tooDeep() }
        pos &+= 1
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        if base[pos] == ASCII.closeBrace {
            pos &+= 1
            return .object(JSONObject())
        }
        var members: [JSONObject.Member] = []
        members.reserveCapacity(4)
        var keySet: Set<String>? = nil
        var key = try parseKey(afterComma: false)
        while true {
            if depth == messageDepth, key == "id" {
                members.append((key: key, value: try parseMessageID()))
            } else {
                members.append((key: key, value: try parseValueRecursively(depth: depth)))
            }
            skipWhitespace()
            guard pos < end else { throw endOfInput() }
            let b = base[pos]
            if b == ASCII.comma {
                pos &+= 1
                skipWhitespace()
                let keyOffset = pos
                key = try parseKey(afterComma: true)
                if keySet != nil {
                    if keySet?.insert(key).inserted == false { throw duplicate(key, at: keyOffset) }
                } else {
                    for member in members where member.key == key { throw duplicate(key, at: keyOffset) }
                    if members.count + 1 >= keySetThreshold {
                        var set = Set(members.lazy.map(\.key))
                        set.insert(key)
                        keySet = set
                    }
                }
            } else if b == ASCII.closeBrace {
                pos &+= 1
                return .object(JSONObject(uniqueMembers: members))
            } else {
                throw unexpected(expecting: "',' or '}'")
            }
        }
    }

    /// Parses a complete value, containers included, with an explicit stack instead of recursion;
    /// the value sits inside `depthAbove` containers already.
    private mutating func parseValue(depthAbove: Int) throws(JSONParseError) -> JSON {
        var values: [JSON] = []
        var keys: [String] = []
        var frames: [Frame] = []
        var keySets: [Set<String>] = []

        nextValue: while true {
            skipWhitespace()
            guard pos < end else { throw endOfInput() }
            var value: JSON
            switch base[pos] {
            case ASCII.quote:
                pos &+= 1
                value = .string(try parseString())
            case ASCII.minus, ASCII.zero...ASCII.nine:
                value = try parseNumber()
            case ASCII.openBrace:
                if depthAbove &+ frames.count >= maxDepth { throw tooDeep() }
                pos &+= 1
                skipWhitespace()
                guard pos < end else { throw endOfInput() }
                if base[pos] == ASCII.closeBrace {
                    pos &+= 1
                    value = .object(JSONObject())
                } else {
                    if frames.isEmpty { reserveStacks(&values, &keys, &frames) }
                    frames.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count, keySet: -1))
                    keys.append(try parseKey(afterComma: false))
                    continue nextValue
                }
            case ASCII.openBracket:
                if depthAbove &+ frames.count >= maxDepth { throw tooDeep() }
                pos &+= 1
                skipWhitespace()
                guard pos < end else { throw endOfInput() }
                if base[pos] == ASCII.closeBracket {
                    pos &+= 1
                    value = .array([])
                } else {
                    if frames.isEmpty { reserveStacks(&values, &keys, &frames) }
                    frames.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count, keySet: -1))
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw unexpected(expecting: "a value", atValue: true)
            }

            // A value is complete: attach it to the open containers, closing those that end here.
            while true {
                guard let top = frames.last else { return value }
                skipWhitespace()
                guard pos < end else { throw endOfInput() }
                let b = base[pos]
                if top.isObject {
                    if b == ASCII.comma {
                        pos &+= 1
                        values.append(value)
                        skipWhitespace()
                        let keyOffset = pos
                        let key = try parseKey(afterComma: true)
                        if top.keySet >= 0 {
                            if !keySets[top.keySet].insert(key).inserted { throw duplicate(key, at: keyOffset) }
                        } else {
                            for index in top.keyStart..<keys.count where keys[index] == key {
                                throw duplicate(key, at: keyOffset)
                            }
                            if keys.count - top.keyStart + 1 >= keySetThreshold {
                                var set = Set(keys[top.keyStart...])
                                set.insert(key)
                                keySets.append(set)
                                frames[frames.count - 1].keySet = keySets.count - 1
                            }
                        }
                        keys.append(key)
                        continue nextValue
                    } else if b == ASCII.closeBrace {
                        pos &+= 1
                        values.append(value)
                        let count = values.count - top.valueStart
                        var members: [JSONObject.Member] = []
                        members.reserveCapacity(count)
                        for index in 0..<count {
                            members.append((key: keys[top.keyStart + index], value: values[top.valueStart + index]))
                        }
                        keys.removeSubrange(top.keyStart...)
                        values.removeSubrange(top.valueStart...)
                        if top.keySet >= 0 { keySets.removeLast() }
                        frames.removeLast()
                        value = .object(JSONObject(uniqueMembers: members))
                    } else {
                        throw unexpected(expecting: "',' or '}'")
                    }
                } else {
                    if b == ASCII.comma {
                        pos &+= 1
                        values.append(value)
                        skipWhitespace()
                        if pos < end, base[pos] == ASCII.closeBracket {
                            throw JSONParseError(offset: pos, reason: "trailing comma")
                        }
                        continue nextValue
                    } else if b == ASCII.closeBracket {
                        pos &+= 1
                        values.append(value)
                        let elements = Array(values[top.valueStart...])
                        values.removeSubrange(top.valueStart...)
                        frames.removeLast()
                        value = .array(elements)
                    } else {
                        throw unexpected(expecting: "',' or ']'")
                    }
                }
            }
        }
    }

    private func reserveStacks(_ values: inout [JSON], _ keys: inout [String], _ frames: inout [Frame]) {
        values.reserveCapacity(16)
        keys.reserveCapacity(16)
        frames.reserveCapacity(8)
    }

    /// Parses `"key"` and the `:` after it; `pos` is at the opening quote (whitespace skipped).
    @inline(__always)
    private mutating func parseKey(afterComma: Bool) throws(JSONParseError) -> String {
        guard pos < end else { throw endOfInput() }
        guard base[pos] == ASCII.quote else {
            if afterComma, base[pos] == ASCII.closeBrace {
                throw JSONParseError(offset: pos, reason: "trailing comma")
            }
            throw unexpected(expecting: "a string key")
        }
        pos &+= 1
        let key = try parseString()
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        guard base[pos] == ASCII.colon else { throw unexpected(expecting: "':'") }
        pos &+= 1
        return key
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let literal = word.utf8Start
        let start = pos
        for index in 0..<count {
            guard start + index < end else { throw endOfInput() }
            guard base[start + index] == literal[index] else {
                throw JSONParseError(offset: start, reason: "invalid literal (expected true, false or null)")
            }
        }
        pos = start + count
    }

    // MARK: Strings

    /// Advances `pos` over bytes that need no attention inside a string (`PlainASCII`).
    @inline(__always)
    private mutating func skipPlainASCII() {
        pos = PlainASCII.end(of: base, from: pos, to: end)
    }

    /// Parses the rest of a string; `pos` is just past the opening quote.
    @inline(__always)
    private mutating func parseString() throws(JSONParseError) -> String {
        // Inline fast path: printable ASCII up to the closing quote.
        let start = pos
        skipPlainASCII()
        if pos < end, base[pos] == ASCII.quote {
            let string = makeString(start, pos &- start)
            pos &+= 1
            return string
        }
        return try parseStringSlowly(from: start)
    }

    /// Parses a string with escapes or non-ASCII characters, or reports what is wrong with it.
    private mutating func parseStringSlowly(from start: Int) throws(JSONParseError) -> String {
        while true {
            skipPlainASCII()
            guard pos < end else { throw unterminatedString() }
            let b = base[pos]
            if b == ASCII.quote {
                let string = makeString(start, pos &- start)
                pos &+= 1
                return string
            }
            if b == ASCII.backslash { return try parseEscapedString(from: start) }
            if b < 0x20 { throw controlCharacter() }
            try skipMultiByteCharacter()
        }
    }

    /// A string from `count` bytes of valid UTF-8 at `start`.
    @inline(__always)
    private func makeString(_ start: Int, _ count: Int) -> String {
        let source = base + start
        if count <= 15 {
            // Small strings are built in place; ASCII ones skip the standard library's validation.
            return String(unsafeUninitializedCapacity: count) { buffer in
                buffer.baseAddress.map { $0.update(from: source, count: count) }
                return count
            }
        }
        return String(decoding: UnsafeBufferPointer(start: source, count: count), as: UTF8.self)
    }

    /// Steps over one non-ASCII character at `pos`, validating it unless the input is known valid.
    @inline(__always)
    private mutating func skipMultiByteCharacter() throws(JSONParseError) {
        if inputIsValidUTF8 {
            pos &+= 1  // continuation bytes are never special, so the scan can resume anywhere
        } else {
            let length = utf8SequenceLength(at: pos)
            if length == 0 { throw JSONParseError(offset: pos, reason: "invalid UTF-8") }
            pos &+= length
        }
    }

    /// The slow path for strings with escapes: decode into `scratch`, copying plain runs in bulk.
    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while true {
            guard pos < end else { throw unterminatedString() }
            let b = base[pos]
            if b == ASCII.quote {
                appendRun(from: runStart)
                pos &+= 1
                return String(decoding: scratch, as: UTF8.self)
            } else if b == ASCII.backslash {
                appendRun(from: runStart)
                try decodeEscape()
                runStart = pos
            } else if b < 0x20 {
                throw controlCharacter()
            } else if b >= 0x80 {
                try skipMultiByteCharacter()
            }
            skipPlainASCII()
        }
    }

    @inline(__always)
    private mutating func appendRun(from runStart: Int) {
        if runStart < pos {
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: pos &- runStart))
        }
    }

    /// Decodes the escape at `pos` (a backslash) into `scratch` and steps past it.
    private mutating func decodeEscape() throws(JSONParseError) {
        let escapeStart = pos
        guard pos + 1 < end else { throw unterminatedString() }
        let e = base[pos + 1]
        pos &+= 2
        switch e {
        case ASCII.quote, ASCII.backslash, ASCII.slash: scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(at: pos)
            pos &+= 4
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard pos + 1 < end, base[pos] == ASCII.backslash, base[pos + 1] == UInt8(ascii: "u") else {
                    throw loneSurrogate(scalar, at: escapeStart)
                }
                let low = try hex4(at: pos + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw loneSurrogate(scalar, at: escapeStart) }
                pos &+= 6
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw loneSurrogate(scalar, at: escapeStart)
            }
            appendUTF8(scalar)
        default:
            let shown = e >= 0x21 && e <= 0x7E ? "'\\\(Character(Unicode.Scalar(e)))'" : describeByte(at: escapeStart + 1)
            throw JSONParseError(offset: escapeStart, reason: "invalid escape \(shown)")
        }
    }

    private func hex4(at index: Int) throws(JSONParseError) -> UInt32 {
        guard index + 4 <= end else { throw unterminatedString() }
        var value: UInt32 = 0
        for i in index..<index + 4 {
            let c = base[i]
            let digit: UInt8
            switch c {
            case ASCII.zero...ASCII.nine: digit = c &- ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c &- UInt8(ascii: "A") &+ 10
            default: throw JSONParseError(offset: index - 2, reason: "invalid \\u escape (expected 4 hex digits)")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The length of the well-formed UTF-8 sequence starting at `index` (a byte >= 0x80), or 0.
    /// Follows Unicode's table of well-formed byte sequences: no overlong forms, no encoded
    /// surrogates, nothing past U+10FFFF, no truncation.
    private func utf8SequenceLength(at index: Int) -> Int {
        let b0 = base[index]
        @inline(__always) func continuation(_ i: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i < end && base[i] >= low && base[i] <= high
        }
        switch b0 {
        case 0xC2...0xDF:
            return continuation(index + 1) ? 2 : 0
        case 0xE0...0xEF:
            let low: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
            let high: UInt8 = b0 == 0xED ? 0x9F : 0xBF
            return continuation(index + 1, low, high) && continuation(index + 2) ? 3 : 0
        case 0xF0...0xF4:
            let low: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
            return continuation(index + 1, low, high) && continuation(index + 2) && continuation(index + 3) ? 4 : 0
        default:
            return 0
        }
    }

    // MARK: Numbers

    @inline(__always)
    private static func isDigit(_ b: UInt8) -> Bool { b &- ASCII.zero < 10 }

    /// A message's `id`: any value, but a number that is not an `.int` is also kept as written.
    private mutating func parseMessageID() throws(JSONParseError) -> JSON {
        skipWhitespace()
        guard pos < end, base[pos] == ASCII.minus || Self.isDigit(base[pos]) else { return try parseValueRecursively(depth: messageDepth) }
        let start = pos
        let number = try parseNumber(anyMagnitude: true)
        if case .int = number { return number }
        idTexts.append(String(decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self))
        return number
    }

    /// A number; past a double's range it is an error, or with `anyMagnitude` an infinite double.
    private mutating func parseNumber(anyMagnitude: Bool = false) throws(JSONParseError) -> JSON {
        let start = pos
        let negative = base[pos] == ASCII.minus
        if negative { pos &+= 1 }
        guard pos < end else { throw endOfInput() }
        let integerStart = pos
        var magnitude: UInt64 = 0
        let first = base[pos]
        if first == ASCII.zero {
            pos &+= 1
            if pos < end, Self.isDigit(base[pos]) {
                throw JSONParseError(offset: integerStart, reason: "leading zero in number")
            }
        } else if Self.isDigit(first) {
            // 19 decimal digits always fit in UInt64; longer integers go to the double path.
            let fastEnd = min(end, integerStart + 19)
            while pos < fastEnd, Self.isDigit(base[pos]) {
                magnitude = magnitude &* 10 &+ UInt64(base[pos] &- ASCII.zero)
                pos &+= 1
            }
            while pos < end, Self.isDigit(base[pos]) { pos &+= 1 }
        } else {
            if first == UInt8(ascii: "I") { throw JSONParseError(offset: start, reason: "NaN and Infinity are not allowed") }
            throw JSONParseError(offset: pos, reason: "invalid number (expected a digit after '-')")
        }
        let integerDigits = pos - integerStart

        var isInteger = true
        if pos < end, base[pos] == ASCII.dot {
            isInteger = false
            pos &+= 1
            guard pos < end, Self.isDigit(base[pos]) else {
                if pos >= end { throw endOfInput() }
                throw JSONParseError(offset: pos, reason: "invalid number (expected a digit after '.')")
            }
            while pos < end, Self.isDigit(base[pos]) { pos &+= 1 }
        }
        if pos < end, base[pos] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            pos &+= 1
            if pos < end, base[pos] == ASCII.plus || base[pos] == ASCII.minus { pos &+= 1 }
            guard pos < end, Self.isDigit(base[pos]) else {
                if pos >= end { throw endOfInput() }
                throw JSONParseError(offset: pos, reason: "invalid number (expected a digit in the exponent)")
            }
            while pos < end, Self.isDigit(base[pos]) { pos &+= 1 }
        }

        if isInteger && integerDigits <= 19 {
            if negative {
                if magnitude == 0 { return .double(-0.0) }
                if magnitude <= UInt64(Int64.max) + 1 { return .int(Int(truncatingIfNeeded: 0 &- magnitude)) }
            } else if magnitude <= UInt64(Int64.max) {
                return .int(Int(truncatingIfNeeded: magnitude))
            }
        }
        let double = fastDouble(from: integerStart, negative: negative) ?? slowDouble(from: start)
        guard let double, double.isFinite || anyMagnitude else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return .double(double)
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Clinger's fast path: when the significant digits fit in 53 bits and the decimal exponent
    /// is within ±22, one IEEE multiplication or division is exact and so correctly rounded.
    /// Returns nil when the number is outside that range. `[integerStart, pos)` is a valid number.
    private func fastDouble(from integerStart: Int, negative: Bool) -> Double? {
        var i = integerStart
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        while i < pos, Self.isDigit(base[i]) {
            if mantissa != 0 || base[i] != ASCII.zero {
                digits &+= 1
                if digits > 19 { return nil }
                mantissa = mantissa &* 10 &+ UInt64(base[i] &- ASCII.zero)
            }
            i &+= 1
        }
        if i < pos, base[i] == ASCII.dot {
            i &+= 1
            while i < pos, Self.isDigit(base[i]) {
                if mantissa != 0 || base[i] != ASCII.zero {
                    digits &+= 1
                    if digits > 19 { return nil }
                    mantissa = mantissa &* 10 &+ UInt64(base[i] &- ASCII.zero)
                }
                exponent &-= 1
                i &+= 1
            }
        }
        if i < pos {  // exponent part
            i &+= 1
            var exponentNegative = false
            if base[i] == ASCII.minus {
                exponentNegative = true
                i &+= 1
            } else if base[i] == ASCII.plus {
                i &+= 1
            }
            var explicit = 0
            while i < pos {
                explicit = explicit &* 10 &+ Int(base[i] &- ASCII.zero)
                if explicit > 100_000 { return nil }
                i &+= 1
            }
            exponent &+= exponentNegative ? -explicit : explicit
        }
        var value: Double
        if mantissa == 0 {
            value = 0
        } else {
            guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
            value = Double(mantissa)
            if exponent >= 0 {
                value *= Self.powersOfTen[exponent]
            } else {
                value /= Self.powersOfTen[-exponent]
            }
        }
        return negative ? -value : value
    }

    /// Correctly rounded conversion of `[start, pos)` by the standard library.
    private func slowDouble(from start: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self))
    }

    // MARK: Errors (kept out of line)

    @inline(never)
    private func endOfInput() -> JSONParseError {
        JSONParseError(offset: end, reason: "unexpected end of input")
    }

    @inline(never)
    private func unterminatedString() -> JSONParseError {
        JSONParseError(offset: end, reason: "unexpected end of input (unterminated string)")
    }

    @inline(never)
    private func tooDeep() -> JSONParseError {
        JSONParseError(offset: pos, reason: "nesting deeper than \(maxDepth)")
    }

    @inline(never)
    private func duplicate(_ key: String, at offset: Int) -> JSONParseError {
        var shown = key
        if shown.unicodeScalars.count > 64 { shown = String(shown.unicodeScalars.prefix(64)) + "…" }
        return JSONParseError(offset: offset, reason: "duplicate key \(JSON.string(shown).jsonText)")
    }

    @inline(never)
    private func controlCharacter() -> JSONParseError {
        JSONParseError(offset: pos, reason: "control character in string (\(Self.hex(UInt32(base[pos]))) must be escaped)")
    }

    @inline(never)
    private func loneSurrogate(_ scalar: UInt32, at offset: Int) -> JSONParseError {
        let digits = String(scalar, radix: 16)
        return JSONParseError(offset: offset, reason: "lone surrogate \\u\(String(repeating: "0", count: 4 - digits.count))\(digits)")
    }

    /// The error for an out-of-place byte at `pos`, naming the well-known mistakes. `atValue`
    /// says a value was expected here (where `+1`, `.5`, `NaN` are the likely intent).
    @inline(never)
    private func unexpected(expecting expected: String, atValue: Bool = false) -> JSONParseError {
        let b = base[pos]
        let reason: String
        switch b {
        case 0:
            reason = "unexpected NUL byte"
        case 0x80... where utf8SequenceLength(at: pos) == 0:
            reason = "invalid UTF-8"
        case ASCII.slash:
            reason = "comments are not allowed"
        case UInt8(ascii: "'"):
            reason = "single-quoted strings are not allowed"
        case ASCII.plus where atValue:
            reason = "leading '+' is not allowed in numbers"
        case ASCII.dot where atValue:
            reason = "invalid number (a digit must come before '.')"
        case UInt8(ascii: "N") where atValue, UInt8(ascii: "I") where atValue:
            reason = "NaN and Infinity are not allowed"
        default:
            reason = "unexpected \(describeByte(at: pos)), expected \(expected)"
        }
        return JSONParseError(offset: pos, reason: reason)
    }

    /// A readable name for the byte (or character) at `index`.
    private func describeByte(at index: Int) -> String {
        guard index < end else { return "end of input" }
        let b = base[index]
        switch b {
        case 0:
            return "NUL byte"
        case 0x21...0x7E:
            return "'\(Character(Unicode.Scalar(b)))'"
        case 0..<0x80:
            return "character \(Self.hex(UInt32(b)))"
        default:
            let length = utf8SequenceLength(at: index)
            guard length > 0 else { return "invalid UTF-8" }
            let text = String(decoding: UnsafeBufferPointer(start: base + index, count: length), as: UTF8.self)
            guard let scalar = text.unicodeScalars.first else { return "invalid UTF-8" }
            // Show the character itself only when it is visible.
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format, .nonspacingMark,
                .enclosingMark, .privateUse, .surrogate, .unassigned:
                return "character \(Self.hex(scalar.value))"
            default:
                return "character \(Self.hex(scalar.value)) '\(text)'"
            }
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
