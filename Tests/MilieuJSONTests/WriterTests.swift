import MilieuJSON
import MilieuTestSupport
import Testing

@Suite struct WriterTests {
    @Test func compactTextHasNoSpacesAndKeepsMemberOrder() {
        let value: JSON = ["b": [1, 2.5, "x", .null, true, false], "a": ["nested": [:]], "c": []]
        #expect(value.jsonText == #"{"b":[1,2.5,"x",null,true,false],"a":{"nested":{}},"c":[]}"#)
    }

    @Test func stringsEscapeQuoteBackslashAndControlCharactersOnly() {
        let value = JSON.string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1}\u{1F}\u{7F} é€😀\u{2028}")
        #expect(value.jsonText == #""\"\\/\n\r\t\b\f\u0000\u0001\u001f"# + "\u{7F} é€😀\u{2028}\"")
    }

    @Test func everyControlCharacterIsEscapedAndReadsBack() throws {
        for code in 0..<0x20 {
            let string = "a" + String(Character(Unicode.Scalar(UInt8(code)))) + "b"
            let text = JSON.string(string).jsonText
            #expect(!text.utf8.contains { $0 < 0x20 }, "raw control character in \(text)")
            #expect(try JSON(parsing: text) == .string(string))
        }
    }

    @Test func escapesInLongStringsCopyTheRunsBetweenThem() throws {
        let string = String(repeating: "abcdefgh", count: 20) + "\"" + String(repeating: "é", count: 30) + "\n" + "tail"
        let text = JSON.string(string).jsonText
        #expect(text == "\"" + String(repeating: "abcdefgh", count: 20) + "\\\"" + String(repeating: "é", count: 30) + "\\ntail\"")
        #expect(try JSON(parsing: text) == .string(string))
    }

    @Test func integersWriteInDecimal() {
        let cases: [(Int, String)] = [
            (0, "0"), (7, "7"), (10, "10"), (-1, "-1"), (-10, "-10"), (1_234_567, "1234567"),
            (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808"),
        ]
        for (value, text) in cases { #expect(JSON.int(value).jsonText == text) }
    }

    /// `JSONWriter.writeInt` (`DecimalText`) spells integers as Swift's `description` does:
    /// every value up to 10,000 (each pair of digits of its table in each place), each power of
    /// ten with one either side (where a digit is added), and their negatives.
    @Test func integersWrittenByTheWriterAreSpelledAsSwiftSpellsThem() {
        var values = Array(0...10_000) + [Int.max, Int.min, Int.min + 1]
        var power = 1
        for _ in 0...18 {
            values += [power - 1, power, power + 1]
            power = power.multipliedReportingOverflow(by: 10).overflow ? power : power * 10
        }
        for value in values + values.map({ 0 &- $0 }) {
            var writer = JSONWriter(capacity: 0)
            writer.writeInt(value)
            guard writer.text == String(value), DecimalText.count(value) == String(value).utf8.count else {
                Issue.record("\(value) was written \(writer.text), counted \(DecimalText.count(value))")
                return
            }
        }
    }

    /// The shortest digits that read back, laid out as ECMAScript's `Number.prototype.toString`
    /// lays them out (SPEC §1.4): exponent form only below 1e-6 and from 1e21 on, its exponent
    /// without leading zeros; an integral value with `.0`.
    @Test func doublesWriteShortestRoundTripTextAsECMAScriptLaysItOut() throws {
        let cases: [(Double, String)] = [
            (1, "1.0"), (0, "0.0"), (-0.0, "-0.0"), (-2.5, "-2.5"), (0.1, "0.1"), (123_456, "123456.0"),
            (1e15, "1000000000000000.0"), (1e16, "10000000000000000.0"), (1e20, "100000000000000000000.0"),
            (1.2345678901234568e20, "123456789012345680000.0"), (1e21, "1e+21"), (1.2345e21, "1.2345e+21"),
            (1e-5, "0.00001"), (0.000001, "0.000001"), (1e-7, "1e-7"), (-1.5e-7, "-1.5e-7"), (0.000123, "0.000123"),
            (0.30000000000000004, "0.30000000000000004"), (.leastNonzeroMagnitude, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"), (-1e300, "-1e+300"),
            (9_007_199_254_740_992, "9007199254740992.0"), (123.456, "123.456"), (1.5e16, "15000000000000000.0"),
            (12_345.678, "12345.678"), (1.0000000000000002, "1.0000000000000002"),
        ]
        for (value, text) in cases {
            #expect(JSON.double(value).jsonText == text)
            let back = try JSON(parsing: text)
            #expect(back == .double(value), "\(text) read back as \(back)")
            if case .double(let d) = back { #expect(d.sign == value.sign) }
        }
    }

    /// Any double, from its bits: its text reads back as the same double, and is in exponent
    /// form exactly when ECMAScript's would be, below 1e-6 and from 1e21 on; a decimal in
    /// magnitude form an integral value is written with `.0`.
    @Test func everyDoubleReadsBackFromTextInECMAScriptsLayout() throws {
        var generator = SeededGenerator(seed: 14)
        for round in 0..<40_000 {
            // Every other one with a binary exponent around both edges of the decimal layout
            // (2^-27 is about 7e-9, 2^73 about 9e21), where bits alone seldom land.
            let bits = generator.next()
            let near = (bits & (1 << 52 - 1)) | UInt64(1023 - 27 + Int(bits >> 57) % 101) << 52
            let value = Double(bitPattern: round.isMultiple(of: 2) ? bits : near)
            guard value.isFinite else { continue }
            let text = JSON.double(value).jsonText
            let back = try JSON(parsing: text)
            guard back == .double(value), case .double(let d) = back, d.sign == value.sign else {
                Issue.record("\(value) was written \(text), read back as \(back)")
                return
            }
            let exponent = value != 0 && (value.magnitude < 1e-6 || value.magnitude >= 1e21)
            guard text.contains("e") == exponent, exponent || text.contains(".") else {
                Issue.record("\(value) was written \(text)")
                return
            }
        }
    }

    @Test func nonFiniteDoublesWriteNull() {
        #expect(JSON.double(.nan).jsonText == "null")
        #expect(JSON.double(.infinity).jsonText == "null")
        #expect(JSON.double(-.infinity).jsonText == "null")
        #expect(JSON.array([.double(.nan), 1]).jsonText == "[null,1]")
    }

    @Test func integralDoublesStayDoublesThroughARoundTrip() throws {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<2000 {
            let d = Double(Int64.random(in: -(1 << 60)...(1 << 60), using: &rng))
            let back = try JSON(parsing: JSON.double(d).jsonText)
            #expect(back == .double(d))
            #expect(back.kindName == "double")
        }
    }

    @Test func largeValuesAndStringsWriteAndReadBack() throws {
        // Past the writer's 1 KB stack buffer, with escapes spread through long strings.
        var long = ""
        for index in 0..<500 { long += "chunk \(index)\t\"é😀\"\n" + String(repeating: "x", count: index % 17) }
        let value: JSON = [
            "long": .string(long),
            "many": .array((0..<2000).map { JSON.string("item\($0)") }),
            "numbers": .array((0..<500).map { JSON.double(Double($0) / 7) }),
        ]
        let text = value.jsonText
        #expect(text.utf8.count > 40_000)
        #expect(try JSON(parsing: text) == value)
        var bytes: [UInt8] = []
        value.write(to: &bytes)
        #expect(bytes == Array(text.utf8))
        var writer = JSONWriter(capacity: 0)
        writer.write(value)
        writer.writeString(long)
        #expect(writer.text == text + JSON.string(long).jsonText)
        #expect(try JSON(parsing: value.prettyText) == value)
    }

    @Test func writeToAppendsWithoutClearing() {
        var buffer = Array("prefix:".utf8)
        JSON.array([1, "two"]).write(to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"prefix:[1,"two"]"#)
    }

    @Test func writerBuildsAnEnvelopeWithoutIntermediateValues() throws {
        let result: JSON = ["path": "login.email", "value": "someone@example.com"]
        var writer = JSONWriter()
        writer.writeRaw(#"{"jsonrpc":"2.0","id":"#)
        writer.writeInt(17)
        writer.writeRaw(",")
        writer.writeString("result")
        writer.writeRaw(":")
        writer.write(result)
        writer.writeRaw(UInt8(ascii: "}"))
        let expected: JSON = ["jsonrpc": "2.0", "id": 17, "result": result]
        #expect(writer.text == #"{"jsonrpc":"2.0","id":17,"result":{"path":"login.email","value":"someone@example.com"}}"#)
        #expect(try JSON(parsing: writer.bytes) == expected)
        let bytes = writer.bytes
        #expect(try JSON(parsing: bytes) == expected)
    }

    @Test func writerScalarsMatchTheValueWriter() {
        var writer = JSONWriter(capacity: 8)
        writer.writeString("a\"b")
        writer.writeRaw(",")
        writer.withSink { $0.writeDouble(2) }
        writer.writeRaw([UInt8(ascii: ",")])
        writer.write(true)
        writer.withSink { $0.writeRaw(",") }
        writer.write(false)
        Array(",".utf8).withUnsafeBytes { writer.writeRaw($0) }
        writer.write(.null)
        writer.writeRaw(",")
        writer.withSink { $0.writeDouble(.nan) }
        writer.writeRaw(",")
        writer.writeInt(-42)
        #expect(writer.text == #""a\"b",2.0,true,false,null,null,-42"#)
        #expect(writer.count == writer.bytes.count)
        writer.removeAll()
        #expect(writer.bytes.isEmpty)
        writer.writeString("")
        #expect(writer.text == #""""#)
    }

    /// A memo writes again what was written for the same two strings, without calling the
    /// writer; another pair, or a write too long to keep, is written afresh.
    @Test func aMemoWritesTheSameBytesAndCallsTheWriterOnlyForANewPair() {
        var memo = WrittenMemo()
        // Small, so that the first write, which the memo keeps, grows the writer's storage.
        var writer = JSONWriter(capacity: 4)
        var calls = 0
        func head(_ view: String, _ name: String) {
            writer.withSink { sink in
                sink.write(memo: &memo, view, name) { sink in
                    calls += 1
                    sink.writeString(view)
                    sink.writeRaw(UInt8(ascii: ","))
                    sink.writeString(name)
                }
                sink.writeRaw(UInt8(ascii: ";"))
            }
        }
        let long = String(repeating: "x", count: 300)
        let equal = String("theme.accentColor".reversed().reversed())
        head("/App", "theme.accentColor")
        head("/App", "theme.accentColor")
        head("/App", equal)
        head("/App", "theme.fontScale")
        head("/Other", "theme.fontScale")
        head("/App", long)
        head("/App", long)
        head("/App", "theme.fontScale")
        let pairs = [
            ("/App", "theme.accentColor"), ("/App", "theme.accentColor"), ("/App", "theme.accentColor"), ("/App", "theme.fontScale"),
            ("/Other", "theme.fontScale"), ("/App", long), ("/App", long), ("/App", "theme.fontScale"),
        ]
        #expect(writer.text == pairs.map { "\"\($0)\",\"\($1)\";" }.joined())
        #expect(calls == 6, "the second and third heads came from the memo; the long one was not kept")
    }

    @Test func writerStringsMatchTheValueWriterWhereverAnEscapeFalls() throws {
        // The writer writes a string needing no escape where it lands and gives any other to the
        // value writer: under four bytes, four to seven (two halves), and over several 8-byte
        // words (the last overlapping), at every position, in a shared writer.
        for length in 0..<36 {
            for position in 0..<Swift.max(length, 1) {
                for special in ["\"", "\\", "\n", "\u{1}", "\u{7F}", "é", "a"] {
                    var characters = Array(repeating: Character("a"), count: length)
                    if length > 0 { characters[position] = Character(special) }
                    let text = String(characters)
                    var writer = JSONWriter(capacity: 4)
                    writer.writeRaw("[")
                    let shared = writer
                    writer.writeString(text)
                    writer.writeRaw(",")
                    writer.write(.string(text))
                    let expected = JSON.string(text).jsonText
                    #expect(writer.text == "[" + expected + "," + expected, "\(text.debugDescription)")
                    #expect(try JSON(parsing: Array(expected.utf8)) == .string(text))
                    #expect(shared.text == "[")
                    // Over storage filled with quotes: a byte the plain path failed to copy shows.
                    var stale = JSONWriter(capacity: 64)
                    stale.writeRaw(Array(repeating: UInt8(ascii: "\""), count: 64))
                    stale.truncate(to: 0)
                    stale.writeString(text)
                    #expect(stale.text == expected, "\(text.debugDescription)")
                }
            }
        }
    }

    @Test func prettyTextIndentsByTwoSpaces() throws {
        let value: JSON = ["name": "milieu", "list": [1, [], [:], ["k": .null]], "empty": [:]]
        let expected = """
            {
              "name": "milieu",
              "list": [
                1,
                [],
                {},
                {
                  "k": null
                }
              ],
              "empty": {}
            }
            """
        #expect(value.prettyText == expected)
        #expect(try JSON(parsing: value.prettyText) == value)
        #expect(JSON.int(3).prettyText == "3")
        #expect(JSON.array([]).prettyText == "[]")
    }

    /// A writer's bytes are a value: a copy shares them until one of the two is written to,
    /// whichever write it is, and writers made without room share nothing once written.
    @Test func aCopyOfAWriterIsWrittenApartFromIt() {
        var first = JSONWriter(capacity: 0)
        var second = JSONWriter(capacity: 0)
        first.writeRaw("[1")
        second.writeInt(-22)
        var copy = first
        copy.writeRaw(UInt8(ascii: "]"))
        #expect(first.text == "[1" && copy.text == "[1]" && second.text == "-22")
        let kept = copy
        copy.truncate(to: 1)
        copy.withSink { sink in
            sink.writeZeros(4)
            sink.withMutableBytes(in: 1..<5) { $0.storeBytes(of: UInt32(0x4433_2211).littleEndian, as: UInt32.self) }
        }
        #expect(copy.bytes == [UInt8(ascii: "["), 0x11, 0x22, 0x33, 0x44])
        #expect(kept.text == "[1]")
        var shared = copy
        let read = shared.withSink { sink in
            sink.withMutableBytes(in: 2..<4) { bytes in
                defer { bytes[0] = 0xEE }
                return Array(bytes)
            }
        }
        #expect(read == [0x22, 0x33] && shared.bytes == [UInt8(ascii: "["), 0x11, 0xEE, 0x33, 0x44])
        #expect(copy.bytes == [UInt8(ascii: "["), 0x11, 0x22, 0x33, 0x44], "the copy it shared bytes with is left alone")
        var emptied = kept
        emptied.removeAll()
        #expect(emptied.count == 0 && kept.text == "[1]")
        emptied.writeRaw(kept)
        emptied.writeRaw(kept)
        #expect(emptied.text == "[1][1]")
        #expect(emptied.withBytes(in: 3..<6) { Array($0) } == Array("[1]".utf8))
    }

    /// Emptying a writer that holds nothing keeps it as it is, and what it writes next is its own:
    /// one that never wrote, one emptied by a truncation while it shares bytes with a copy, and
    /// one told not to keep its room, which it then gives up.
    @Test func emptyingAnEmptyWriterLeavesItReadyToWrite() {
        var never = JSONWriter(capacity: 0)
        never.removeAll()
        never.writeRaw("x")
        #expect(never.text == "x")
        var original = JSONWriter()
        original.writeRaw("ab")
        var copy = original
        copy.truncate(to: 0)
        copy.removeAll()
        copy.writeRaw("c")
        #expect(original.text == "ab" && copy.text == "c")
        var large = JSONWriter(capacity: 1 << 20)
        large.removeAll(keepingCapacity: false)
        #expect(large.capacity < 1 << 20)
    }

    /// Writes past the room a writer was made with grow it, keeping every byte, in one large
    /// piece and in many small ones.
    @Test func aWriterGrowsPastItsRoomKeepingWhatItHolds() {
        var writer = JSONWriter(capacity: 4)
        var expected: [UInt8] = []
        for index in 0..<5_000 {
            writer.writeRaw(UInt8(truncatingIfNeeded: index))
            expected.append(UInt8(truncatingIfNeeded: index))
        }
        let large = [UInt8](repeating: 7, count: 100_000)
        writer.writeRaw(large)
        expected += large
        #expect(writer.count == expected.count && writer.capacity >= expected.count)
        #expect(writer.bytes == expected)
    }

    /// A sink writes into its writer's storage and grows it as the writer would, keeping every
    /// byte, and the writer counts what the sink wrote: across a growth, and in a sink opened
    /// again on what an earlier one wrote.
    @Test func aSinkWritesIntoItsWriterAndGrowsIt() {
        var writer = JSONWriter(capacity: 8)
        writer.writeRaw("[")
        var expected = "["
        writer.withSink { sink in
            for index in 0..<2_000 {
                if index > 0 { sink.writeRaw(UInt8(ascii: ",")) }
                // Plain strings are written in place, others escaped: both across each growth.
                sink.writeString(index % 2 == 0 ? "n\(index)" : "n\(index)\"")
                sink.writeInt(index)
            }
        }
        for index in 0..<2_000 {
            expected += (index > 0 ? "," : "") + (index % 2 == 0 ? #""n\#(index)""# : #""n\#(index)\"""#) + String(index)
        }
        #expect(writer.count == expected.utf8.count && writer.capacity >= writer.count)
        #expect(writer.text == expected)
        let size = writer.withSink { sink in
            sink.write(["a": [1, 2.5, true, .null]])
            sink.writeRaw("]")
            return sink.count
        }
        expected += #"{"a":[1,2.5,true,null]}]"#
        #expect(size == expected.utf8.count && writer.text == expected)
    }

    @Test func keysAreEscapedLikeStrings() throws {
        let value: JSON = ["a\"b\n": 1]
        #expect(value.jsonText == #"{"a\"b\n":1}"#)
        #expect(try JSON(parsing: value.jsonText) == value)
    }
}
