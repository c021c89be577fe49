import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuServer

/// The unsent output of all clients together has a budget: past it, the client with the most
/// is dropped as a slow consumer, however far each is under its own limits (issue #15 item 6).
@Suite struct OutputBudgetTests {
    private let request = EmbeddedServer.request

    @Test func pastTheOutputBudgetTheLargestBacklogIsDroppedAndTheRestKept() throws {
        let embedded = try EmbeddedServer {
            $0.outputLimits.soft = 1 << 20
            $0.outputLimits.budget = 200 << 10
        }
        let lighter = embedded.connect()
        let heavier = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: lighter)
        // Two watches of the same property: every write is sent to it twice.
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: heavier)
        embedded.receive(request(2, "watch", ["paths": ["theme.accentColor"]]), from: heavier)
        embedded.endTurn()
        let writer = embedded.connect()
        let big = String(repeating: "x", count: 16 << 10)
        // 16 KiB a write to the lighter reader and 32 KiB to the heavier: 240 KiB held after five,
        // far under each one's own limits, but over the budget.
        for n in 0..<5 {
            embedded.receive(request(n + 1, "graph/set", ["path": "theme.accentColor", "value": .string("\(n)\(big)")]), from: writer)
            embedded.endTurn()
        }
        #expect(heavier.closingAfterFlush)
        #expect(try heavier.read().last?["params"]?["message"]?.stringValue?.contains("all clients") == true)
        #expect(!lighter.closingAfterFlush)
    }

    /// The client dropped comes first in a commit's fan-out: those after it still get their share
    /// of that commit, as of every other.
    @Test func aClientDroppedInTheMiddleOfAFanOutLeavesTheRestTheirShare() throws {
        let embedded = try EmbeddedServer {
            $0.outputLimits.soft = 1 << 20
            $0.outputLimits.budget = 200 << 10
        }
        let heavier = embedded.connect()
        let lighter = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: heavier)
        embedded.receive(request(2, "watch", ["paths": ["theme.accentColor"]]), from: heavier)
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: lighter)
        embedded.endTurn()
        let writer = embedded.connect()
        let big = String(repeating: "x", count: 16 << 10)
        for n in 0..<5 {
            embedded.receive(request(n + 1, "graph/set", ["path": "theme.accentColor", "value": .string("\(n)\(big)")]), from: writer)
            embedded.endTurn()
        }
        #expect(heavier.closingAfterFlush)
        #expect(!lighter.closingAfterFlush)
        let told = try lighter.read().filter { $0["method"]?.stringValue == "graph/didChange" }
        #expect(told.count == 5)
        #expect(told.last?["params"]?["changes"]?.arrayValue?.first?["value"]?.stringValue == "4\(big)")
    }
}
