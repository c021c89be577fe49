import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuServer

/// What a turn sends for a line whose writes the log could not take (`Turn.notDurableReply`):
/// the same shape the line's own answer has, each request's answer an error.
@Suite struct TurnTests {
    /// A turn with one line that wrote, answering requests `ids` (none: notifications only).
    private func turn(ids: [RequestID], isBatch: Bool) -> Turn {
        var turn = Turn()
        let start = turn.start
        turn.ids += ids
        turn.endLine(from: start, session: nil, isBatch: isBatch, wrote: true)
        return turn
    }

    private func text(_ writer: JSONWriter) -> String { writer.withBytes { String(decoding: $0, as: UTF8.self) } }

    @Test func aRequestGetsOneErrorLine() throws {
        let turn = turn(ids: [.int(7)], isBatch: false)
        let reply = text(turn.notDurableReply(for: try #require(turn.lines.first)))
        #expect(reply.hasSuffix("\n") && reply.filter { $0 == "\n" }.count == 1, "\(reply)")
        let answer = try JSON(parsing: Array(reply.utf8.dropLast()))
        #expect(answer["id"] == 7 && answer["error"]?["code"] == -32603, "\(reply)")
    }

    @Test func aBatchGetsAnArrayOfErrorsForItsRequestsOnly() throws {
        let turn = turn(ids: [.int(1), .string("b")], isBatch: true)
        let reply = text(turn.notDurableReply(for: try #require(turn.lines.first)))
        #expect(reply.hasSuffix("\n"), "\(reply)")
        let answers = try #require(try JSON(parsing: Array(reply.utf8.dropLast())).arrayValue)
        #expect(answers.map { $0["id"] } == [1, "b"])
    }

    /// Notifications are never answered, failed or not: a batch of them gets no `[]`, which
    /// would run into the connection's next line.
    @Test(arguments: [false, true])
    func notificationsGetNothing(isBatch: Bool) throws {
        let turn = turn(ids: [], isBatch: isBatch)
        #expect(text(turn.notDurableReply(for: try #require(turn.lines.first))) == "")
    }
}
