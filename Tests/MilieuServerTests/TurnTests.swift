import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuServer

/// What a turn sends for a line whose writes the log could not take (`Turn.notDurableReply`):
/// the same shape as the line's own response, each answer to a request that wrote an error.
@Suite struct TurnTests {
    /// A turn with one line that wrote, its response the JSON of `answers` (an array for a batch),
    /// each answer a request's id and whether it wrote; none for notifications only.
    private func turn(_ answers: [(id: Int, wrote: Bool)], isBatch: Bool) -> Turn {
        var turn = Turn()
        addLine(answers, isBatch: isBatch, to: &turn)
        return turn
    }

    private func addLine(_ answers: [(id: Int, wrote: Bool)], isBatch: Bool, to turn: inout Turn) {
        let start = turn.start
        if isBatch && !answers.isEmpty { turn.responses.writeRaw("[") }
        for (index, answer) in answers.enumerated() {
            if index > 0 { turn.responses.writeRaw(",") }
            let from = turn.responses.count
            turn.responses.write(["jsonrpc": "2.0", "id": .int(answer.id), "result": .string("kept \(answer.id)")])
            if isBatch {
                turn.batchAnswers.append(Turn.BatchAnswer(id: .int(answer.id), bytes: from..<turn.responses.count, wrote: answer.wrote))
            } else {
                turn.ids.append(.int(answer.id))
            }
        }
        if isBatch && !answers.isEmpty { turn.responses.writeRaw("]") }
        turn.endLine(from: start, connection: nil, isBatch: isBatch, wrote: true)
    }

    /// The reply for the turn's line `index`: what it says, and that it is one line.
    private func reply(_ turn: Turn, line index: Int = 0) throws -> JSON? {
        let line = turn.lines[index]
        let bytes = turn.notDurableReply(for: line).withBytes { Array($0) }
        guard !bytes.isEmpty else { return nil }
        #expect(bytes.last == 10 && bytes.filter { $0 == 10 }.count == 1, "\(String(decoding: bytes, as: UTF8.self))")
        return try JSON(parsing: Array(bytes.dropLast()))
    }

    private static func failed(_ answer: JSON) -> Bool {
        answer["error"]?["code"] == -32603 && answer["error"]?["message"]?.stringValue?.contains("could not be written") == true
    }

    @Test func aRequestThatWroteGetsTheError() throws {
        let answer = try #require(try reply(turn([(7, true)], isBatch: false)))
        #expect(answer["id"] == 7 && Self.failed(answer), "\(answer)")
    }

    /// Only the elements that wrote fail: a read in the same batch keeps its answer.
    @Test func aBatchKeepsTheAnswersOfElementsThatDidNotWrite() throws {
        let answers = try #require(try reply(turn([(1, true), (2, false), (3, true)], isBatch: true))?.arrayValue)
        #expect(answers.map { $0["id"] } == [1, 2, 3])
        #expect(Self.failed(answers[0]) && Self.failed(answers[2]), "\(answers)")
        #expect(answers[1] == ["jsonrpc": "2.0", "id": 2, "result": "kept 2"])
    }

    /// Each batch of a turn finds its own answers among the turn's.
    @Test func batchesOfOneTurnEachGetTheirOwn() throws {
        var turn = Turn()
        addLine([(1, true), (2, false)], isBatch: true, to: &turn)
        addLine([(3, true)], isBatch: false, to: &turn)
        addLine([], isBatch: true, to: &turn)
        addLine([(4, false), (5, true), (6, false)], isBatch: true, to: &turn)
        let first = try #require(try reply(turn, line: 0)?.arrayValue)
        #expect(first.map { $0["id"] } == [1, 2] && Self.failed(first[0]) && first[1]["result"] == "kept 2", "\(first)")
        #expect(try reply(turn, line: 1)?["id"] == 3)
        #expect(try reply(turn, line: 2) == nil)
        let last = try #require(try reply(turn, line: 3)?.arrayValue)
        #expect(last.map { $0["id"] } == [4, 5, 6] && last.map(Self.failed) == [false, true, false], "\(last)")
    }

    /// Notifications are never answered, failed or not: a batch of them gets no `[]`, which
    /// would run into the connection's next line.
    @Test(arguments: [false, true])
    func notificationsGetNothing(isBatch: Bool) throws {
        #expect(try reply(turn([], isBatch: isBatch)) == nil)
    }
}
