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

/// A close spread over several calls: each takes at most its share, in the order one call would.
@Suite struct SpreadTeardownTests {
    @Test func aCloseInPartsUnmountsAtMostItsShareEachTimeUntilNoneAreLeft() throws {
        let graph = try makeGraph()
        for i in 0..<250 {
            try graph.mount(
                ["parent": "/App", "name": "Row", "id": .int(i), "state": ["n": .int(i)], "body": ["{n}"]], owner: ConnectionID(1))
        }
        var parts: [[String]] = []
        repeat {
            parts.append(graph.connectionClosed(ConnectionID(1), upTo: 100).unmountedPaths)
        } while graph.isClosing(ConnectionID(1))
        #expect(parts.map(\.count) == [100, 100, 50])
        #expect(parts.joined().elementsEqual((0..<250).map { "/App/Row[\($0)]" }), "in mount order")
    }

    @Test func aLargeSubtreeGoesChildrenFirstOverSeveralParts() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "List"], owner: ConnectionID(1))
        for i in 0..<150 {
            try graph.mount(
                ["parent": "/App/List", "name": "Row", "id": .int(i), "state": ["n": .int(i)], "body": ["{n}"]], owner: ConnectionID(1))
        }
        let firstCommit = graph.connectionClosed(ConnectionID(1), upTo: 100)
        let first = firstCommit.unmountedPaths
        #expect(first == (0..<100).map { "/App/List/Row[\($0)]" })
        // The rows go because their parent goes, though it goes in a later part.
        #expect(firstCommit.unmountReasons == Array(repeating: .parentUnmounted, count: 100))
        #expect(graph.isClosing(ConnectionID(1)))
        let restCommit = graph.connectionClosed(ConnectionID(1), upTo: 100)
        let rest = restCommit.unmountedPaths
        #expect(rest.count == 51)
        #expect(rest.last == "/App/List")
        #expect(restCommit.unmountReasons == Array(repeating: .parentUnmounted, count: 50) + [.connectionClosed])
        #expect(!graph.isClosing(ConnectionID(1)))
    }
}

extension Commit {
    /// Why this commit's views were unmounted, in order.
    fileprivate var unmountReasons: [UnmountReason] {
        changes.compactMap { change in if case .viewUnmounted(_, let reason) = change { reason } else { nil } }
    }

    /// The views this commit unmounted, in order.
    fileprivate var unmountedPaths: [String] {
        changes.compactMap { change in if case .viewUnmounted(let view, _) = change { view } else { nil } }
    }
}
