import MilieuProtocol
import Testing

/// The framer as a state machine, without sockets.
@Suite struct LineFramerTests {
    /// Feeds `chunks` and returns the lines (as strings) and any overflow sizes.
    private func frames(_ chunks: [String], max: Int = 64) -> [String] {
        var framer = LineFramer(maxLineBytes: max)
        var out: [String] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { bytes in
                framer.feed(bytes) { frame in
                    switch frame {
                    case .line(let line): out.append(String(decoding: line, as: UTF8.self))
                    case .tooLarge(let size): out.append("<too large: \(size)>")
                    }
                }
            }
        }
        return out
    }

    @Test func manyMessagesInOneRead() {
        #expect(frames(["a\nbb\nccc\n"]) == ["a", "bb", "ccc"])
    }

    @Test func bytesFedOneAtATime() {
        let text = "{\"x\":1}\n{\"y\":[2]}\n"
        #expect(frames(text.map { String($0) }) == ["{\"x\":1}", "{\"y\":[2]}"])
    }

    @Test func aPartialLineWaitsForItsEnd() {
        var framer = LineFramer(maxLineBytes: 64)
        var lines = 0
        Array("abc".utf8).withUnsafeBytes { framer.feed($0) { _ in lines += 1 } }
        #expect(lines == 0 && framer.pendingBytes == 3)
        Array("def\n".utf8).withUnsafeBytes { framer.feed($0) { _ in lines += 1 } }
        #expect(lines == 1 && framer.pendingBytes == 0)
    }

    /// A framer with no bound to speak of still joins a line split across reads (issue #26, item 1:
    /// `maxLineBytes + 1` overflowed and trapped).
    @Test func aLineSplitAcrossReadsJoinsUnderTheLargestBound() {
        #expect(frames(["abc", "def\r", "\nok\n"], max: .max) == ["abcdef", "ok"])
        #expect(frames(["abc", "def"], max: .max).isEmpty)
    }

    @Test func crlfAndEmptyLines() {
        #expect(frames(["a\r\n\r\n\n", "b\r", "\n"]) == ["a", "b"])
    }

    /// A line of JSON whitespace alone (space, tab, CR) is no message, however it ends.
    @Test func whitespaceOnlyLinesAreIgnored() {
        #expect(frames(["\r\r\n", " \t\r \r\n", "\t\n", "x\r\r\n"]) == ["x\r"])
    }

    @Test func aLineOverTheLimitIsReportedOnceAndNothingFollows() {
        #expect(frames([String(repeating: "x", count: 65) + "\nok\n"]) == ["<too large: 65>"])
        #expect(frames([String(repeating: "x", count: 40), String(repeating: "y", count: 40), "\nok\n"]) == ["<too large: 80>"])
        #expect(frames([String(repeating: "x", count: 64) + "\n"]).first?.count == 64)
    }

    @Test func aLongLineWithoutNewlineIsCaughtBeforeItEnds() {
        #expect(frames([String(repeating: "z", count: 100)]) == ["<too large: 100>"])
    }

    /// Whitespace lines count too: a server tells a new unfinished line from one still arriving.
    @Test func everyNewlineCountsAsACompletedLine() {
        var framer = LineFramer(maxLineBytes: 64)
        Array("a\n \nb".utf8).withUnsafeBytes { framer.feed($0) { _ in } }
        #expect(framer.completedLines == 2 && framer.pendingBytes == 1)
    }

    @Test func aStoppedFramerLetsItsLineGoAndYieldsNothingMore() {
        var framer = LineFramer(maxLineBytes: 64)
        var lines = 0
        Array("abc".utf8).withUnsafeBytes { framer.feed($0) { _ in lines += 1 } }
        framer.stop()
        Array("def\nok\n".utf8).withUnsafeBytes { framer.feed($0) { _ in lines += 1 } }
        #expect(lines == 0 && framer.pendingBytes == 0)
    }
}
