import MilieuJSON
import Testing

@testable import MilieuEngine

/// A commit keeps its changes in its own allocation, moved there from the transaction's
/// `ChangeBuffer`s: what each holds must be exactly what the transaction recorded, every time.
@Suite struct CommitStorageTests {
    private static func change(_ n: Int) -> Change {
        .state(view: "/App/Row[\(n)]", variable: "n", value: .string(String(repeating: "v", count: 20 + n)))
    }

    /// Appends past the initial room keep every change in order; a move hands all of them over
    /// and leaves none; the buffer takes changes again after giving back its large room.
    @Test func aChangeBufferMovesWhatItHoldsAndIsReusable() {
        var buffer = ChangeBuffer()
        for n in 0..<100 { buffer.append(Self.change(n)) }
        let count = buffer.count
        #expect(count == 100)
        #expect(Array(buffer.changes) == (0..<100).map(Self.change))
        let destination = UnsafeMutablePointer<Change>.allocate(capacity: 100)
        defer { destination.deallocate() }
        buffer.move(to: destination)
        let emptied = (buffer.isEmpty, buffer.changes.count)
        #expect(emptied == (true, 0))
        #expect(Array(UnsafeBufferPointer(start: destination, count: 100)) == (0..<100).map(Self.change))
        destination.deinitialize(count: 100)
        buffer.append(Self.change(7))
        buffer.append(Self.change(8))
        #expect(Array(buffer.changes) == [Self.change(7), Self.change(8)])
        buffer.removeAll()
        let removed = buffer.isEmpty
        #expect(removed)
        buffer.append(Self.change(9))
        #expect(Array(buffer.changes) == [Self.change(9)])
    }

    /// A commit made from an array reads back as that array; an empty one is empty.
    @Test func aCommitReadsBackItsChanges() {
        let changes = (0..<5).map(Self.change)
        let commit = Commit(version: Version(3), changes: changes)
        #expect(commit.version == Version(3))
        #expect(Array(commit.changes) == changes)
        #expect(commit.changes.count == 5 && commit.changes[4] == changes[4])
        #expect(!commit.isEmpty)
        #expect(Commit(version: Version(4), changes: []).isEmpty)
    }

    /// A transaction of many changes, then one of a single write, then one that fails, then
    /// another write: each commit holds its own changes and nothing left from the one before.
    @Test func eachTransactionsCommitHoldsOnlyItsOwnChanges() throws {
        let graph = try makeGraph()
        var mounted: [Commit] = []
        for i in 0..<3 {
            mounted.append(
                try graph.mount(["parent": "/App", "name": "Row", "id": .int(i), "state": ["n": .int(i)], "body": ["{n}"]]).commit)
        }
        let rows = try graph.apply(
            (3..<103).map { i in
                Operation.mount(
                    declaration: ["parent": "/App", "name": "Row", "id": .int(i), "state": ["n": .int(i)], "body": ["{n}"]], owner: nil)
            }
        ).commit
        #expect(rows.changes.count == 100)
        #expect(rows.changes.allSatisfy { if case .viewMounted = $0 { true } else { false } })
        let write = try graph.set("/App/Row[5].n", 50)
        #expect(
            Array(write.changes) == [
                .state(view: "/App/Row[5]", variable: "n", value: 50), .viewUpdated(view: "/App/Row[5]", reasons: ["_n"], body: ["50"]),
            ])
        #expect(throws: EngineError.self) { try graph.set("/App/Row[6].nope", 1) }
        let next = try graph.set("/App/Row[6].n", 60)
        #expect(
            Array(next.changes) == [
                .state(view: "/App/Row[6]", variable: "n", value: 60), .viewUpdated(view: "/App/Row[6]", reasons: ["_n"], body: ["60"]),
            ])
        // The commits before still hold theirs.
        #expect(mounted.map { $0.changes.count } == [1, 1, 1])
        #expect(rows.changes.count == 100)
    }
}

/// A transaction refused after it recorded changes (the request's budget ran out while its
/// views were evaluated) leaves none of them to the next one.
@Suite struct RefusedTransactionChangeTests {
    @Test func aRefusedRequestsChangesAreNotInTheNextCommit() throws {
        // 30 writes of a 1001-byte string cost more than the request's 20k steps.
        let graph = try makeHeavyRows()
        let longer = JSON.string(String(repeating: "y", count: 1001))
        let many = (0..<30).map { Operation.set(path: "/App/H\($0).h.text", value: longer, ifVersion: nil) }
        #expect(throws: EngineError.self) { _ = try graph.apply(many) }
        let next = try graph.apply(.set(path: "/App/H0.h.text", value: "z", ifVersion: nil)).commit
        let object = try #require(graph.objectsByName.values.first { $0.ownerView?.path == "/App/H0" }?.name)
        #expect(
            Array(next.changes) == [
                .property(object: object, type: "Heavy", property: "text", value: "z"),
                .property(object: object, type: "Heavy", property: "length", value: 1),
                .viewUpdated(view: "/App/H0", reasons: ["h.text"], body: ["1"]),
            ])
    }
}

/// `Graph.recycle`: the storage of a commit of one change that nothing else holds serves the
/// next commit of one change; a commit still held elsewhere is never touched.
@Suite struct CommitRecyclingTests {
    private static func screen() -> JSON { ["parent": "/App", "name": "Counter", "state": ["n": 0]] }

    @Test func aCommitNothingHoldsServesTheNextOneChangeCommit() throws {
        let graph = try makeGraph()
        try graph.mount(Self.screen())
        let first = try graph.set("/App/Counter.n", 1)
        let storage = ObjectIdentifier(first.storage)
        let spares = graph.spareCommits.count
        graph.recycle(consume first)
        #expect(graph.spareCommits.count == spares + 1)
        let second = try graph.set("/App/Counter.n", 2)
        #expect(ObjectIdentifier(second.storage) == storage, "reused")
        #expect(second.version == graph.version)
        #expect(Array(second.changes) == [.state(view: "/App/Counter", variable: "n", value: 2)])
        #expect(second.replaced[0] == .some(.some(1)) && second.replaced[1] == nil)
        #expect(second.invalidations.isEmpty)
    }

    @Test func aCommitStillHeldIsLeftAsItIs() throws {
        let graph = try makeGraph()
        try graph.mount(Self.screen())
        let held = try graph.set("/App/Counter.n", 1)
        let copy = held
        let spares = graph.spareCommits.count
        graph.recycle(consume held)
        #expect(graph.spareCommits.count == spares)
        let next = try graph.set("/App/Counter.n", 2)
        #expect(ObjectIdentifier(next.storage) != ObjectIdentifier(copy.storage))
        #expect(Array(copy.changes) == [.state(view: "/App/Counter", variable: "n", value: 1)])
        #expect(copy.replaced[0] == .some(.some(0)))
        #expect(Array(next.changes) == [.state(view: "/App/Counter", variable: "n", value: 2)])
    }

    /// A kept commit lets go of what its change held at once: a value it alone held is freed,
    /// and one shared with a caller is the caller's own again.
    @Test func aKeptCommitLetsGoOfItsChange() throws {
        let graph = try makeGraph()
        var items = Array(repeating: JSON.int(1), count: 100)
        let storage = items.withUnsafeBufferPointer { $0.baseAddress }
        let spares = graph.spareCommits.count
        graph.recycle(Commit(version: Version(1), changes: [.state(view: "/App/X", variable: "n", value: .array(items))]))
        #expect(graph.spareCommits.count == spares + 1)
        items[0] = 2
        #expect(items.withUnsafeBufferPointer { $0.baseAddress } == storage, "written in place: nothing else holds it")
    }

    /// A commit of several changes is not kept: a spare has room for one.
    @Test func aCommitOfSeveralChangesIsNotKept() throws {
        let graph = try makeGraph()
        let mount = try graph.mount(["parent": "/App", "name": "Shown", "state": ["n": 0], "body": ["{n}"]]).commit
        let write = try graph.set("/App/Shown.n", 1)
        #expect(write.changes.count == 2)
        let spares = graph.spareCommits.count
        graph.recycle(consume write)
        #expect(graph.spareCommits.count == spares)
        let next = try graph.set("/App/Shown.n", 2)
        #expect(
            Array(next.changes) == [
                .state(view: "/App/Shown", variable: "n", value: 2), .viewUpdated(view: "/App/Shown", reasons: ["_n"], body: ["2"]),
            ])
        #expect(mount.changes.count == 1)
    }
}
