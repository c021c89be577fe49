import MilieuJSON
import Testing

@testable import MilieuEngine

/// Closing a connection costs what it mounted, not what the tree holds (issue #15 item 3).
@Suite struct TeardownCostTests {
    /// `others` rows of one connection, then `own` rows of another, flat under /App.
    private func graph(others: Int, own: Int) throws -> Graph {
        let graph = try makeGraph()
        for i in 0..<others {
            try graph.mount(
                ["parent": "/App", "name": "Other", "id": .int(i), "state": ["n": .int(i)], "body": ["{n}"]], owner: ConnectionID(2))
        }
        for i in 0..<own {
            try graph.mount(
                ["parent": "/App", "name": "Row", "id": .int(i), "state": ["n": .int(i)], "body": ["{n}"]], owner: ConnectionID(1))
        }
        return graph
    }

    @Test func closingAConnectionLooksOnlyAtTheViewsItMounted() throws {
        let graph = try graph(others: 20_000, own: 100)
        let commit = graph.connectionClosed(ConnectionID(1))
        #expect(commit.changes.count == 100)
        #expect(graph.viewsVisitedClosing <= 100)
    }
}
