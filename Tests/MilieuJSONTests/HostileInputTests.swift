import MilieuJSON
import MilieuTestSupport
import Testing

/// One input the reader must refuse, and a fragment of the reason it must give.
struct HostileInput: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var reason: String
    var offset: Int?
    /// Whether the fault stays the same fault when the input is nested inside arrays
    /// (true for faults inside a complete value; false for faults at the end or the top level).
    var nests: Bool

    init(_ name: String, _ text: String, _ reason: String, offset: Int? = nil, nests: Bool = true) {
        self.init(name, Array(text.utf8), reason, offset: offset, nests: nests)
    }

    init(_ name: String, _ bytes: [UInt8], _ reason: String, offset: Int? = nil, nests: Bool = true) {
        self.name = name
        self.bytes = bytes
        self.reason = reason
        self.offset = offset
        self.nests = nests
    }

    var testDescription: String { name }
}

private func bytes(_ parts: Any...) -> [UInt8] {
    var result: [UInt8] = []
    for part in parts {
        if let text = part as? String { result += Array(text.utf8) }
        if let byte = part as? Int { result.append(UInt8(byte)) }
        if let list = part as? [Int] { result += list.map { UInt8($0) } }
    }
    return result
}

@Suite struct HostileInputTests {
    static let cases: [HostileInput] = [
        // Nothing, or not enough.
        HostileInput("empty input", "", "unexpected end of input", offset: 0, nests: false),
        HostileInput("whitespace only", " \t\r\n ", "unexpected end of input", offset: 5, nests: false),
        HostileInput("partial object", #"{"a":"#, "unexpected end of input", nests: false),
        HostileInput("partial object after key", #"{"a""#, "unexpected end of input", nests: false),
        HostileInput("partial array", "[1,2", "unexpected end of input", nests: false),
        HostileInput("unterminated string", #""abc"#, "unexpected end of input", nests: false),
        HostileInput("string ending in backslash", #""abc\"#, "unexpected end of input", nests: false),
        HostileInput("partial unicode escape", #""\u12"#, "unexpected end of input", nests: false),
        HostileInput("partial literal", "tru", "unexpected end of input", nests: false),
        HostileInput("lone minus", "-", "unexpected end of input", nests: false),
        HostileInput("number ending in dot", "1.", "unexpected end of input", nests: false),
        HostileInput("number ending in exponent", "1e+", "unexpected end of input", nests: false),

        // Byte order mark and encoding.
        HostileInput("byte order mark", bytes([0xEF, 0xBB, 0xBF], "[]"), "byte order mark", offset: 0, nests: false),
        HostileInput("invalid UTF-8 byte in string", bytes("[\"ab", 0xFF, "\"]"), "invalid UTF-8", offset: 4),
        HostileInput("invalid UTF-8 byte outside string", bytes("[", 0xFF, "]"), "invalid UTF-8", offset: 1),
        HostileInput("lone continuation byte", bytes("\"", 0x80, "\""), "invalid UTF-8", offset: 1),
        HostileInput("truncated two-byte sequence", bytes("\"", 0xC3, "\""), "invalid UTF-8", offset: 1),
        HostileInput("truncated sequence at end of input", bytes("\"", 0xE2, 0x82), "invalid UTF-8", offset: 1, nests: false),
        HostileInput("overlong two-byte slash", bytes("\"", [0xC0, 0xAF], "\""), "invalid UTF-8", offset: 1),
        HostileInput("overlong two-byte C1", bytes("\"", [0xC1, 0xBF], "\""), "invalid UTF-8", offset: 1),
        HostileInput("overlong three-byte", bytes("\"", [0xE0, 0x80, 0xAF], "\""), "invalid UTF-8", offset: 1),
        HostileInput("overlong four-byte", bytes("\"", [0xF0, 0x80, 0x80, 0xAF], "\""), "invalid UTF-8", offset: 1),
        HostileInput("UTF-8 encoded surrogate", bytes("\"", [0xED, 0xA0, 0x80], "\""), "invalid UTF-8", offset: 1),
        HostileInput("code point past U+10FFFF", bytes("\"", [0xF4, 0x90, 0x80, 0x80], "\""), "invalid UTF-8"),
        HostileInput("F5 lead byte", bytes("\"", [0xF5, 0x80, 0x80, 0x80], "\""), "invalid UTF-8"),
        HostileInput("invalid UTF-8 in key", bytes("{\"", 0xFE, "\":1}"), "invalid UTF-8", offset: 2),
        HostileInput("invalid UTF-8 after escape", bytes(#""\n"#, 0xFF, "\""), "invalid UTF-8", offset: 3),

        // Surrogates in escapes.
        HostileInput("lone high surrogate", #""\ud800""#, "lone surrogate \\ud800", offset: 1),
        HostileInput("lone low surrogate", #""\udc00""#, "lone surrogate \\udc00", offset: 1),
        HostileInput("high surrogate then letter", #""\ud800\u0041""#, "lone surrogate \\ud800"),
        HostileInput("high surrogate then text", #""\uD83Dabc""#, "lone surrogate \\ud83d"),
        HostileInput("high surrogate at end of string", #""x\ud800""#, "lone surrogate \\ud800", offset: 2),
        HostileInput("two high surrogates", #""\ud800\ud800""#, "lone surrogate \\ud800"),
        HostileInput("surrogates in the wrong order", #""\udc00\ud800""#, "lone surrogate \\udc00"),

        // Nesting.
        HostileInput("100000 open brackets", String(repeating: "[", count: 100_000), "nesting deeper than 128", offset: 128, nests: false),
        HostileInput(
            "129 nested arrays", String(repeating: "[", count: 129) + String(repeating: "]", count: 129),
            "nesting deeper than 128", offset: 128, nests: false),
        HostileInput("deeply nested objects", String(repeating: #"{"a":"#, count: 200), "nesting deeper than 128", nests: false),
        HostileInput("deep mixed nesting", String(repeating: #"[{"a":"#, count: 100_000), "nesting deeper than 128", nests: false),

        // Numbers.
        HostileInput("number too large for a double", "1e400", "number out of range", offset: 0),
        HostileInput("negative number too large", "[-1e400]", "number out of range", offset: 1),
        HostileInput("four hundred digits", String(repeating: "9", count: 400), "number out of range", nests: false),
        HostileInput("leading zero", "01", "leading zero", offset: 0),
        HostileInput("negative leading zero", "-01", "leading zero"),
        HostileInput("double zero", "[00]", "leading zero"),
        HostileInput("leading plus", "+1", "leading '+'"),
        HostileInput("NaN", "NaN", "NaN and Infinity"),
        HostileInput("Infinity", "[Infinity]", "NaN and Infinity"),
        HostileInput("minus Infinity", "-Infinity", "NaN and Infinity"),
        HostileInput("leading dot", ".5", "digit must come before '.'"),
        HostileInput("dot without fraction", "1.e5", "expected a digit after '.'"),
        HostileInput("exponent without digits", "1ex", "expected a digit in the exponent"),
        HostileInput("minus without digits", "-x", "expected a digit after '-'"),
        HostileInput("hexadecimal", "0x10", "trailing characters after value", offset: 1, nests: false),

        // Objects.
        HostileInput("duplicate key", #"{"a":1,"a":2}"#, #"duplicate key "a""#, offset: 7),
        HostileInput("duplicate key in nested object", #"[{"x":{"k":1,"j":2,"k":3}}]"#, #"duplicate key "k""#),
        HostileInput(
            "duplicate key among many",
            "{" + (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k17":0}"#,
            #"duplicate key "k17""#),
        HostileInput("duplicate key spelled with escapes", #"{"ab":1,"\u0061b":2}"#, #"duplicate key "ab""#),
        HostileInput("canonically equivalent keys", "{\"\u{E9}\":1,\"e\u{301}\":2}", "duplicate key"),
        HostileInput("unquoted key", "{a:1}", "expected a string key"),
        HostileInput("missing colon", #"{"a" 1}"#, "expected ':'"),
        HostileInput("missing comma in object", #"{"a":1 "b":2}"#, "expected ',' or '}'"),
        HostileInput("trailing comma in object", #"{"a":1,}"#, "trailing comma", offset: 7),
        HostileInput("single-quoted key", "{'a':1}", "single-quoted strings"),

        // Arrays.
        HostileInput("trailing comma in array", "[1,]", "trailing comma", offset: 3),
        HostileInput("trailing comma after whitespace", "[1, \n]", "trailing comma"),
        HostileInput("leading comma", "[,1]", "expected a value"),
        HostileInput("double comma", "[1,,2]", "expected a value"),
        HostileInput("missing comma in array", "[1 2]", "expected ',' or ']'"),
        HostileInput("mismatched bracket", "[1}", "expected ',' or ']'"),

        // Strings.
        HostileInput("unescaped newline", "\"a\nb\"", "control character in string", offset: 2),
        HostileInput("unescaped tab", "\"a\tb\"", "control character in string"),
        HostileInput("unescaped NUL in string", bytes("\"a", 0x00, "b\""), "control character in string", offset: 2),
        HostileInput("unescaped control after escape", "\"\\n\u{1}\"", "control character in string", offset: 3),
        HostileInput("invalid escape", #""\x""#, "invalid escape '\\x'"),
        HostileInput("escaped single quote", #""\'""#, "invalid escape"),
        HostileInput("bad hex in unicode escape", #""\u12G4""#, "invalid \\u escape"),
        HostileInput("single-quoted string", "'a'", "single-quoted strings"),

        // Outside strings.
        HostileInput("NUL byte between values", bytes("[1,", 0x00, "]"), "unexpected NUL byte", offset: 3),
        HostileInput("NUL byte alone", [0x00], "unexpected NUL byte", offset: 0, nests: false),
        HostileInput("line comment", "// note\n1", "comments are not allowed", nests: false),
        HostileInput("block comment", "[1/* x */]", "comments are not allowed", offset: 2),
        HostileInput("block comment before value", "/* x */ 1", "comments are not allowed", nests: false),
        HostileInput("trailing characters", "1 2", "trailing characters after value", offset: 2, nests: false),
        HostileInput("trailing bracket", "[]]", "trailing characters after value", offset: 2, nests: false),
        HostileInput("trailing NUL", bytes("{}", 0x00), "trailing characters after value", offset: 2, nests: false),
        HostileInput("second document", "{}{}", "trailing characters after value", nests: false),
        HostileInput("capitalised literal", "True", "unexpected 'T'"),
        HostileInput("misspelled literal", "nul", "unexpected end of input", nests: false),
        HostileInput("wrong literal", "[nil]", "invalid literal"),
        HostileInput("literal run-on", "truex", "trailing characters after value", nests: false),
        HostileInput("vertical tab as whitespace", "\u{0B}1", "unexpected character U+000B"),
        HostileInput("form feed as whitespace", "[1,\u{0C}2]", "unexpected character U+000C"),
        HostileInput("no-break space as whitespace", "\u{A0}1", "unexpected character U+00A0"),
        HostileInput("ideographic space as whitespace", "[\u{3000}]", "unexpected character U+3000"),
        HostileInput("bare word", "hello", "unexpected 'h'"),
        HostileInput("letter where a comma belongs", "[1 N]", "unexpected 'N', expected ',' or ']'", offset: 3),
        HostileInput("plus where a comma belongs", "[1 +2]", "unexpected '+', expected ',' or ']'"),
    ]

    @Test(arguments: cases)
    func hostileInputIsRejectedWithItsReason(_ input: HostileInput) {
        guard let error = parseError(input.bytes) else {
            Issue.record("accepted: \(input.name)")
            return
        }
        #expect(error.reason.contains(input.reason), "reason was: \(error.reason)")
        if let offset = input.offset { #expect(error.offset == offset, "\(error)") }
        #expect(error.offset >= 0 && error.offset <= input.bytes.count)
        #expect(error.description == "\(error.reason) at byte \(error.offset)")
        // Every entry point agrees, and the explicit-stack path (high limits) finds the same fault
        // unless the fault is the nesting itself.
        #expect(parseError(Array(input.bytes[...])) == error)
        if let text = String(validating: input.bytes, as: UTF8.self) {
            do {
                _ = try JSON(parsing: text)
                Issue.record("String entry point accepted \(input.name)")
            } catch let stringError {
                #expect(stringError == error)
            }
        }
        if !input.reason.hasPrefix("nesting") {
            #expect(parseError(input.bytes, limits: JSONLimits(maxDepth: 1_000_000)) == error)
        }
    }

    /// Below 64 levels the parser switches from recursion to an explicit stack; the same
    /// faults must be found there, at the same place.
    @Test(arguments: cases.filter(\.nests))
    func hostileInputIsRejectedTheSameWayDeepInside(_ input: HostileInput) {
        for depth in [64, 70] {
            let open = [UInt8](repeating: UInt8(ascii: "["), count: depth)
            let close = [UInt8](repeating: UInt8(ascii: "]"), count: depth)
            guard let error = parseError(open + input.bytes + close) else {
                Issue.record("accepted at depth \(depth): \(input.name)")
                continue
            }
            #expect(error.reason.contains(input.reason), "reason was: \(error.reason)")
            if let offset = input.offset { #expect(error.offset == offset + depth, "\(error)") }
        }
    }

    /// Random damage to valid documents (bytes replaced, inserted, deleted, cut off), parsed on
    /// both the recursive and the explicit-stack paths: never a crash, errors point inside the
    /// input, and whatever is accepted writes and reads back unchanged.
    @Test func damagedDocumentsAreRejectedOrReadBackUnchanged() throws {
        var generator = JSONValueGenerator(seed: 0xDA7A)
        var rng = SeededGenerator(seed: 0xF022)
        let interesting: [UInt8] =
            Array(#""[]{},:0123456789-+.eEtfnu/ "#.utf8) + [
                0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xFF,
            ]
        var accepted = 0
        for round in 0..<3000 {
            var bytes = Array(generator.value().jsonText.utf8)
            for _ in 0...Int.random(in: 0...2, using: &rng) {
                let index = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
                let byte = Bool.random(using: &rng) ? interesting.randomElement(using: &rng) ?? 0 : UInt8.random(in: 0...255, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !bytes.isEmpty: bytes[index] = byte
                case 1: bytes.insert(byte, at: index)
                case 2 where !bytes.isEmpty: bytes.remove(at: index)
                default: bytes.removeLast(Int.random(in: 0...min(3, bytes.count), using: &rng))
                }
            }
            if round % 3 == 0 {
                bytes =
                    Array("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[".utf8) + bytes
                    + Array("]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]".utf8)
            }
            do {
                let value = try JSON(parsing: bytes)
                accepted += 1
                #expect(try JSON(parsing: value.jsonText) == value)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "\(error)")
                #expect(!error.reason.isEmpty)
            }
        }
        #expect(accepted > 0)
    }

    @Test func hundredThousandOpenBracketsFailWithoutExhaustingTheStackEvenWithoutALimit() {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = parseError(input, limits: JSONLimits(maxDepth: 1_000_000))
        #expect(error?.reason == "unexpected end of input")
        #expect(error?.offset == 100_000)
        let objects = Array(String(repeating: #"{"a":["#, count: 100_000).utf8)
        #expect(parseError(objects, limits: JSONLimits(maxDepth: 1_000_000))?.reason == "unexpected end of input")
    }

    @Test func nestingExactlyAtTheLimitIsAccepted() throws {
        for limit in [1, 2, 128, 256, 257, 1000] {
            let limits = JSONLimits(maxDepth: limit)
            let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
            #expect(throws: Never.self) { try JSON(parsing: atLimit, limits: limits) }
            let beyond = "[" + atLimit + "]"
            #expect(parseError(beyond, limits: limits) == JSONParseError(offset: limit, reason: "nesting deeper than \(limit)"))
            let objects = String(repeating: #"{"k":"#, count: limit) + "0" + String(repeating: "}", count: limit)
            #expect(throws: Never.self) { try JSON(parsing: objects, limits: limits) }
            #expect(parseError(#"{"k":"# + objects + "}", limits: limits)?.reason == "nesting deeper than \(limit)")
        }
    }

    @Test func zeroDepthLimitAllowsOnlyScalars() throws {
        let limits = JSONLimits(maxDepth: 0)
        #expect(try JSON(parsing: "42", limits: limits) == 42)
        #expect(parseError("[]", limits: limits)?.reason == "nesting deeper than 0")
        #expect(parseError("{}", limits: limits)?.reason == "nesting deeper than 0")
    }

    @Test func defaultLimitIs128() {
        #expect(JSONLimits.default.maxDepth == 128)
        #expect(JSONLimits().maxDepth == 128)
    }
}
