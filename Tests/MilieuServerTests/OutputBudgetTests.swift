import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuServer

/// The unsent output of all clients together has a budget: past it, the client with the most
/// is dropped as a slow consumer, however far each is under its own limits (issue #15 item 6).
@Suite struct OutputBudgetTests {
    private let request = EmbeddedServer.request
    /// What each of the five writes sets, 16 KiB and more.
    private static let big = String(repeating: "x", count: 16 << 10)

    /// A lighter reader with one watch of a property and a heavier one with two, each sent every
    /// write once a watch, and five writes of 16 KiB: 16 KiB a write to the lighter and 32 KiB to
    /// the heavier, 240 KiB held after five, far under each one's own limits but over the budget.
    /// The connection opened first comes first in each commit's fan-out.
    private func fiveLargeWrites(heavierFirst: Bool) throws -> (heavier: EmbeddedConnection, lighter: EmbeddedConnection) {
        let embedded = try EmbeddedServer {
            $0.outputLimits.soft = 1 << 20
            $0.outputLimits.budget = 200 << 10
        }
        let first = embedded.connect()
        let second = embedded.connect()
        let (heavier, lighter) = heavierFirst ? (first, second) : (second, first)
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: lighter)
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: heavier)
        embedded.receive(request(2, "watch", ["paths": ["theme.accentColor"]]), from: heavier)
        embedded.endTurn()
        let writer = embedded.connect()
        for n in 0..<5 {
            embedded.receive(
                request(n + 1, "graph/set", ["path": "theme.accentColor", "value": .string("\(n)\(Self.big)")]), from: writer)
            embedded.endTurn()
        }
        return (heavier, lighter)
    }

    @Test func pastTheOutputBudgetTheLargestBacklogIsDroppedAndTheRestKept() throws {
        let (heavier, lighter) = try fiveLargeWrites(heavierFirst: false)
        #expect(heavier.closingAfterFlush)
        #expect(try heavier.read().last?["params"]?["message"]?.stringValue?.contains("all clients") == true)
        #expect(!lighter.closingAfterFlush)
    }

    /// The client dropped comes first in a commit's fan-out: those after it still get their share
    /// of that commit, as of every other.
    @Test func aClientDroppedInTheMiddleOfAFanOutLeavesTheRestTheirShare() throws {
        let (heavier, lighter) = try fiveLargeWrites(heavierFirst: true)
        #expect(heavier.closingAfterFlush)
        #expect(!lighter.closingAfterFlush)
        let told = try lighter.read().filter { $0["method"]?.stringValue == "graph/didChange" }
        #expect(told.count == 5)
        #expect(told.last?["params"]?["changes"]?.arrayValue?.first?["value"]?.stringValue == "4\(Self.big)")
    }
}
