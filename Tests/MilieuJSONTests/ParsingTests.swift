import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

@Suite struct ParsingTests {
    @Test func scalarsParseAtTheTopLevel() throws {
        #expect(try JSON(parsing: "null") == .null)
        #expect(try JSON(parsing: "true") == .bool(true))
        #expect(try JSON(parsing: "false") == .bool(false))
        #expect(try JSON(parsing: "0") == .int(0))
        #expect(try JSON(parsing: "-12") == .int(-12))
        #expect(try JSON(parsing: "1.5") == .double(1.5))
        #expect(try JSON(parsing: #""hi""#) == .string("hi"))
    }

    @Test func whitespaceIsSpaceTabCarriageReturnAndLineFeed() throws {
        let value = try JSON(parsing: " \t\r\n{ \"a\" :\t[ 1 ,\r\n2 ] , \"b\" : { } }\n\t\r ")
        #expect(value == ["a": [1, 2], "b": .object([:])])
    }

    @Test func containersKeepMemberOrder() throws {
        let value = try JSON(parsing: #"{"z":1,"a":2,"m":[3,{"y":4,"b":5}]}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value["m"]?.arrayValue?[1].objectValue?.keys == ["y", "b"])
    }

    @Test func largeObjectsAndArraysParse() throws {
        let keys = (0..<1000).map { "key\($0)" }
        let text = "{" + keys.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",") + "}"
        let value = try JSON(parsing: text)
        #expect(value.objectValue?.count == 1000)
        #expect(value.objectValue?.keys == keys)
        #expect(value["key999"] == 999)
        let array = try JSON(parsing: "[" + (0..<10_000).map(String.init).joined(separator: ",") + "]")
        #expect(array.arrayValue == (0..<10_000).map { JSON.int($0) })
    }

    // MARK: Numbers

    @Test func integersThatFitInt64AreInts() throws {
        #expect(try JSON(parsing: "9223372036854775807") == .int(Int.max))
        #expect(try JSON(parsing: "-9223372036854775808") == .int(Int.min))
        #expect(try JSON(parsing: "1234567890123456789") == .int(1_234_567_890_123_456_789))
        #expect(try JSON(parsing: "[0,-0.5,10]") == [0, -0.5, 10])
    }

    @Test func integersBeyondInt64AreDoubles() throws {
        #expect(try JSON(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSON(parsing: "-9223372036854775809") == .double(-9_223_372_036_854_775_808))
        #expect(try JSON(parsing: "18446744073709551616") == .double(18_446_744_073_709_551_616))
        #expect(try JSON(parsing: "1" + String(repeating: "0", count: 300)) == .double(1e300))
    }

    @Test func fractionsAndExponentsAreDoubles() throws {
        #expect(try JSON(parsing: "1.0") == .double(1))
        #expect(try JSON(parsing: "1e2") == .double(100))
        #expect(try JSON(parsing: "1E+2") == .double(100))
        #expect(try JSON(parsing: "25e-1") == .double(2.5))
        #expect(try JSON(parsing: "0.1") == .double(0.1))
        #expect(try JSON(parsing: "-0.0") == .double(-0.0))
        #expect(try JSON(parsing: "1e-400") == .double(0))  // underflow rounds to zero
        #expect(try JSON(parsing: "5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try JSON(parsing: "1.7976931348623157e308") == .double(1.7976931348623157e308))
        #expect(try JSON(parsing: "0.000000000000000000000000000001e30") == .double(1))
    }

    @Test func minusZeroIsANegativeZeroDouble() throws {
        let value = try JSON(parsing: "-0")
        #expect(value.kindName == "double")
        guard case .double(let d) = value else { return }
        #expect(d == 0 && d.sign == .minus)
        #expect(value.jsonText == "-0.0")
        #expect(try JSON(parsing: "0") == .int(0))
    }

    @Test func doublesAreCorrectlyRounded() throws {
        // Texts that need more than the fast path (more than 15 digits, or big exponents).
        let texts = [
            "0.1", "0.2", "0.30000000000000004", "2.2250738585072011e-308", "2.2250738585072014e-308",
            "9007199254740993.0", "9007199254740995e0", "1e23", "8.98846567431158e307", "4.9406564584124654e-324",
            "123456789012345678901234567890e-10", "3.141592653589793238462643383279",
            "1.00000000000000011102230246251565404236316680908203125",
            "0.000123456789e-5", "7e22", "7e23", "1e-22", "1e-23",
        ]
        for text in texts {
            let expected = try #require(Double(text))
            #expect(try JSON(parsing: text) == .double(expected), "\(text)")
            #expect(try JSON(parsing: "-" + text) == .double(-expected), "-\(text)")
        }
    }

    @Test func randomDoublesReadBackExactly() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<5000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            #expect(try JSON(parsing: "\(d)") == .double(d))
            #expect(try JSON(parsing: String(format: "%.17e", d)) == .double(d))
        }
    }

    // MARK: Strings

    @Test func escapesDecode() throws {
        #expect(try JSON(parsing: #""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try JSON(parsing: #""\u0041\u00e9\u4E2D\u0000""#) == .string("Aé中\u{0}"))
        #expect(try JSON(parsing: #""a\nb""#) == .string("a\nb"))
        #expect(try JSON(parsing: #""plain then \t escaped then plain again""#) == .string("plain then \t escaped then plain again"))
    }

    @Test func surrogatePairsDecodeToOneScalar() throws {
        #expect(try JSON(parsing: #""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSON(parsing: #""\uD834\uDD1E""#) == .string("𝄞"))
        #expect(try JSON(parsing: #""\ud800\udc00\udbff\udfff""#) == .string("\u{10000}\u{10FFFF}"))
        #expect(try JSON(parsing: #""x\ud83d\ude00y""#) == .string("x😀y"))
    }

    @Test func rawUTF8PassesThroughAtEveryLength() throws {
        let text = "\"aé€😀\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\u{2028}\""
        let expected = JSON.string("aé€😀\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\u{2028}")
        #expect(try JSON(parsing: text) == expected)
        #expect(try JSON(parsing: Array(text.utf8)) == expected)
    }

    @Test func longStringsParseOnBothSidesOfTheWordScan() throws {
        // Specials at every position relative to the 8-byte scan.
        for length in 0..<40 {
            for special in ["\\n", "é", "\\\"", "😀", ""] {
                for position in 0...length {
                    let prefix = String(repeating: "a", count: position)
                    let suffix = String(repeating: "b", count: length - position)
                    let text = "\"" + prefix + special + suffix + "\""
                    let decoded = special == "\\n" ? "\n" : special == "\\\"" ? "\"" : special
                    #expect(try JSON(parsing: text) == .string(prefix + decoded + suffix))
                }
            }
        }
    }

    @Test func unicodeInKeysAndDuplicateDetectionUsesDecodedText() throws {
        let value = try JSON(parsing: #"{"\u00e9":1,"ê":2}"#)
        #expect(value["é"] == 1)
        #expect(value["ê"] == 2)
        #expect(parseError(#"{"é":1,"\u00e9":2}"#)?.reason == #"duplicate key "é""#)
    }

    @Test func errorDescriptionNamesReasonAndByte() {
        let error = parseError(Array("[\"ab".utf8) + [0xFF] + Array("\"]".utf8))
        #expect(error?.description == "invalid UTF-8 at byte 4")
        #expect(error?.reason == "invalid UTF-8")
        #expect(error?.offset == 4)
    }

    /// Scene and declaration files give the line and column of a mistake, as an editor counts
    /// (issue #30, item 3: a byte offset into a multi-line file).
    @Test func anErrorIsPlacedByLineAndColumnInTheText() throws {
        let text = Array("{\n  \"é\": 1,\n  \"b\" 2\n}".utf8)
        let error = try #require(parseError(text))
        #expect(error.location(in: text) == (3, 7))
        #expect(error.described(in: text) == "\(error.reason) at line 3, column 7")
        let first = try #require(parseError(Array("[1,]".utf8)))
        #expect(first.location(in: Array("[1,]".utf8)).line == 1)
    }

    @Test func longDuplicateKeysAreShortenedInTheReason() {
        let key = String(repeating: "k", count: 500)
        let reason = parseError(#"{"\#(key)":1,"\#(key)":2}"#)?.reason ?? ""
        #expect(reason.hasPrefix("duplicate key \"kkk"))
        #expect(reason.count < 100)
    }

    // MARK: Entry points

    @Test func everyEntryPointParsesTheSameDocument() throws {
        let text = #"{"jsonrpc":"2.0","id":17,"method":"graph/set","params":{"path":"login.email","value":"someone@example.com"}}"#
        let expected: JSON = [
            "jsonrpc": "2.0", "id": 17, "method": "graph/set",
            "params": ["path": "login.email", "value": "someone@example.com"],
        ]
        let bytes = Array(text.utf8)
        #expect(try JSON(parsing: text) == expected)
        #expect(try JSON(parsing: bytes) == expected)
        #expect(try JSON(parsing: bytes[...]) == expected)
        #expect(try JSON(parsing: Data(bytes)) == expected)
        #expect(try JSON(parsing: ContiguousArray(bytes)) == expected)
        #expect(try JSON(parsing: text.utf8) == expected)
        #expect(try bytes.withUnsafeBytes { raw throws(JSONParseError) in try JSON(parsing: raw) } == expected)
        // A non-contiguous collection is copied first.
        #expect(try JSON(parsing: bytes.lazy.map { $0 }) == expected)
    }

    @Test func sliceOffsetsCountFromTheSliceStart() {
        let bytes = Array("xxxx[1,]".utf8)
        do {
            _ = try JSON(parsing: bytes[4...])
            Issue.record("accepted a trailing comma")
        } catch {
            #expect(error.offset == 3)
        }
    }

    @Test func emptyBufferIsUnexpectedEnd() {
        do {
            _ = try JSON(parsing: UnsafeRawBufferPointer(start: nil, count: 0))
            Issue.record("accepted an empty buffer")
        } catch {
            #expect(error == JSONParseError(offset: 0, reason: "unexpected end of input"))
        }
    }
}
