import Foundation
import MilieuJSON
import Testing

/// Our reader and writer checked against Foundation's `JSONSerialization` on generated and
/// hand-picked documents.
@Suite struct DifferentialTests {
    /// Converts what `JSONSerialization` returns into a `JSON`, telling bools, integers and
    /// doubles apart by the boxed number's type (Foundation bridges all three to `NSNumber`).
    static func convert(_ any: Any) -> JSON? {
        switch any {
        case is NSNull:
            return .null
        case let number as NSNumber:
            return convert(number)
        case let string as String:
            return .string(string)
        case let array as [Any]:
            var elements: [JSON] = []
            for element in array {
                guard let converted = convert(element) else { return nil }
                elements.append(converted)
            }
            return .array(elements)
        case let dictionary as [String: Any]:
            var object = JSONObject()
            for (key, value) in dictionary {
                guard let converted = convert(value) else { return nil }
                object[key] = converted
            }
            return .object(object)
        default:
            return nil
        }
    }

    static func convert(_ number: NSNumber) -> JSON {
        if let decimal = number as? NSDecimalNumber {
            // Foundation uses NSDecimalNumber for some integers (even Int64.min) and long mantissas.
            let text = decimal.stringValue
            if let integer = Int(text) { return .int(integer) }
            return .double(Double(text) ?? decimal.doubleValue)
        }
        switch String(cString: number.objCType) {
        case "c", "B":
            return .bool(number.boolValue)
        case "Q", "L", "I":
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int.max) ? .int(Int(unsigned)) : .double(number.doubleValue)
        case "q", "l", "i", "s":
            return .int(number.intValue)
        default:
            return .double(number.doubleValue)
        }
    }

    static func foundationParse(_ bytes: [UInt8]) -> JSON? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return nil
        }
        return convert(object)
    }

    /// Foundation on Linux drops some U+FEFF characters inside strings when it parses (a Foundation
    /// bug: it is an ordinary character there), so comparisons with Foundation remove it on both sides.
    /// Our own round trips keep it (see `generatedCorpusRoundTripsThroughWriteAndParse`).
    ///
    /// Foundation also reads an integral double past 2^53, which is written with all its digits
    /// (`10000000000000000.0`, as ECMAScript lays it out, SPEC §1.4), as an integer
    /// (`NSDecimalNumber`): it keeps no difference there, so the comparisons make it an integer
    /// on both sides.
    static func withoutFEFF(_ value: JSON?) -> JSON? {
        guard let value else { return nil }
        func strip(_ s: String) -> String { s.contains("\u{FEFF}") ? s.replacingOccurrences(of: "\u{FEFF}", with: "") : s }
        switch value {
        case .double(let d) where d.magnitude >= 0x1p53 && d.magnitude < 0x1p63 && d == d.rounded():
            return .int(Int(d))
        case .string(let s):
            return .string(strip(s))
        case .array(let elements):
            return .array(elements.map { withoutFEFF($0) ?? .null })
        case .object(let object):
            return .object(JSONObject(object.map { (key: strip($0.key), value: withoutFEFF($0.value) ?? .null) }))
        default:
            return value
        }
    }

    static let corpus: [JSON] = {
        var generator = JSONValueGenerator(seed: 0x4D69_6C69_6575)
        return (0..<400).map { _ in generator.value() }
    }()

    @Test func generatedCorpusParsesLikeFoundation() throws {
        for value in Self.corpus {
            var bytes: [UInt8] = []
            value.write(to: &bytes)
            let ours = try JSON(parsing: bytes)
            let theirs = Self.foundationParse(bytes)
            #expect(theirs != nil, "Foundation rejected \(value.jsonText)")
            #expect(Self.withoutFEFF(ours) == Self.withoutFEFF(theirs), "differs from Foundation: \(value.jsonText)")
        }
    }

    @Test func generatedCorpusRoundTripsThroughWriteAndParse() throws {
        for value in Self.corpus {
            let text = value.jsonText
            #expect(try JSON(parsing: text) == value, "round trip changed \(text)")
            #expect(try JSON(parsing: value.prettyText) == value, "pretty round trip changed \(text)")
        }
    }

    @Test func generatedCorpusParsesTheSameOnTheExplicitStackPath() throws {
        // The parser recurses for the first 64 levels and switches to its explicit stack below.
        for wrapping in [63, 64, 65, 100] {
            for value in Self.corpus {
                let text = String(repeating: "[", count: wrapping) + value.jsonText + String(repeating: "]", count: wrapping)
                var parsed = try JSON(parsing: text)
                for _ in 0..<wrapping {
                    guard let elements = parsed.arrayValue, elements.count == 1 else { break }
                    parsed = elements[0]
                }
                #expect(parsed == value, "explicit-stack parse changed \(value.jsonText)")
            }
        }
    }

    @Test func generatedCorpusIsWrittenIdenticallyThroughEveryEntryPoint() throws {
        for value in Self.corpus.prefix(100) {
            let text = value.jsonText
            let bytes = Array(text.utf8)
            var writer = JSONWriter()
            writer.write(value)
            #expect(writer.bytes == bytes)
            var appended: [UInt8] = [UInt8(ascii: "x")]
            value.write(to: &appended)
            #expect(appended == [UInt8(ascii: "x")] + bytes)
            #expect(try JSON(parsing: bytes[...]) == value)
            #expect(try JSON(parsing: Data(bytes)) == value)
            #expect(try bytes.withUnsafeBytes { raw throws(JSONParseError) in try JSON(parsing: raw) } == value)
        }
    }

    /// What Foundation writes (it escapes `/` as `\/`, writes 1.0 as 1, …) must read back as
    /// the same values; integral doubles may come back as ints, so numbers compare by value.
    @Test func foundationOutputParsesToTheSameValues() throws {
        for value in Self.corpus {
            guard case .array = value else { continue }  // Foundation writes only containers at the top
            let object = try JSONSerialization.jsonObject(with: Data(value.jsonText.utf8))
            let data = try JSONSerialization.data(withJSONObject: object)
            let ours = try JSON(parsing: data)
            let difference = Self.numericDifference(Self.withoutFEFF(ours) ?? .null, Self.withoutFEFF(value) ?? .null)
            #expect(difference == nil, "Foundation's \(String(decoding: data, as: UTF8.self))")
        }
    }

    static func numericallyEqual(_ a: JSON, _ b: JSON) -> Bool { numericDifference(a, b) == nil }

    /// Where `a` and `b` differ, comparing numbers by value; nil if they do not.
    static func numericDifference(_ a: JSON, _ b: JSON, at path: String = "$") -> String? {
        switch (a, b) {
        case (.int, .double), (.double, .int), (.double, .double):
            guard let x = a.numberValue, let y = b.numberValue, x == y else { return "\(path): \(a) vs \(b)" }
            return nil
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) vs \(y.count) elements" }
            for (index, (p, q)) in zip(x, y).enumerated() {
                if let difference = numericDifference(p, q, at: "\(path)[\(index)]") { return difference }
            }
            return nil
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return "\(path): keys \(x.keys) vs \(y.keys)" }
            for member in x {
                guard let other = y[member.key] else { return "\(path): key \(member.key.debugDescription) missing" }
                if let difference = numericDifference(member.value, other, at: "\(path).\(member.key.debugDescription)") {
                    return difference
                }
            }
            return nil
        default:
            return a == b ? nil : "\(path): \(a) vs \(b)"
        }
    }

    static let edgeCases: [String] = [
        "[]", "{}", "[[]]", "[{}]", #"{"a":{}}"#, #"{"":[]}"#, #""""#, "0", "-1", "true", "false", "null",
        " \t\r\n[ 1 , 2 ]\n ", #"{ "a" : [ 1 , { "b" : null } ] , "c" : true }"#,
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
        "10000000000000000000000", "1e308", "-1e-308", "5e-324", "4.9e-324", "2.2250738585072014e-308",
        "1.7976931348623157e308", "0.1", "0.30000000000000004", "1E+2", "1e-2", "1E2", "123.456e7", "-0.0",
        "1.0", "1.5e0", "100", "12345678901234567", "0.000001", "1e-7",
        #""\u00e9\ud83d\ude00\u4e2d""#, #""\"\\\/\b\f\n\r\t""#, #""é😀中𝄞""#, #""\u0000""#, #""\uFFFF""#,
        #""\uDBFF\uDFFF""#, #""\ud800\udc00""#, #""\u2028\u2029""#, #""a\u0041\u00410""#,
        #"["\u001f", "\u007f", "\u0080", "\u07ff", "\u0800", "\uffff"]"#,
        #"{"jsonrpc":"2.0","id":17,"method":"graph/set","params":{"path":"login.email","value":"someone@example.com"}}"#,
        #"[1,[2,[3,[4,[5,[6,[7,[8,[9,[10]]]]]]]]]]"#,
    ]

    @Test(arguments: edgeCases)
    func edgeCaseParsesLikeFoundation(_ text: String) throws {
        let ours = try JSON(parsing: text)
        #expect(ours == Self.foundationParse(Array(text.utf8)))
        #expect(try JSON(parsing: ours.jsonText) == ours)
    }
}
