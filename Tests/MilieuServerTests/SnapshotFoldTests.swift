import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuStore

/// What a fold leaves in the snapshot's tables: the last value of each key, and the version of
/// each view and object as the last record that changed it says (SPEC §12.3).
struct SnapshotFoldTests {
    private func folded(_ records: [(version: Int, writes: [StoredWrite])]) throws -> StoredState {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let snapshot = try Snapshot(path: data + "/milieu.db")
        try snapshot.prepare()
        var queue = FoldQueue()
        for record in records { queue.append(version: record.version, writes: record.writes) }
        try snapshot.fold(queue, records: 0..<queue.count)
        return try snapshot.load()
    }

    /// `state` as lines to compare: views in mount order, values and versions sorted.
    private func lines(_ state: StoredState) -> [String] {
        state.views.map { "view \($0.path) \($0.declaration)" } + state.values.map { "value \($0.view) \($0.name) \($0.value)" }
            + state.versions.map { "version \($0.view) \($0.name) \($0.version)" }.sorted()
    }

    private func version(_ state: StoredState, _ view: String, _ name: String) -> Int? {
        state.versions.first { $0.view == view && $0.name == name }?.version
    }

    /// A value's write changes its holder's version (the object its variable owns, or the view
    /// for a @State), written once a key at the fold's end; a later record that changed the
    /// holder without a value (a secret written) keeps its later version.
    @Test func aHolderKeepsTheVersionOfTheLastRecordThatChangedIt() throws {
        let state = try folded([
            (5, [.value(view: "/App", name: "login.email", value: "a@example.com")]),
            (6, [.version(view: "/App", name: "login")]),
            (7, [.value(view: "/App", name: "theme.accentColor", value: "red")]),
            (8, [.value(view: "/App/Doc", name: "text", value: "draft")]),
            (9, [.value(view: "/App", name: "theme.accentColor", value: "blue")]),
            (10, [.version(view: "/App", name: "theme")]),
            (11, [.value(view: "/App/Doc", name: "text", value: "edited")]),
        ])
        #expect(version(state, "/App", "login") == 6, "the secret's record came after the email's")
        #expect(version(state, "/App", "theme") == 10)
        #expect(version(state, "/App/Doc", "") == 11, "a @State's holder is its view")
        let values = Dictionary(uniqueKeysWithValues: state.values.map { ("\($0.view).\($0.name)", $0.value) })
        #expect(values == ["/App.login.email": "a@example.com", "/App.theme.accentColor": "blue", "/App/Doc.text": "edited"])
    }

    /// Runs of writes to one key (a client's pipelined writes), a key written again right after
    /// another's first write (the table grows), and a write of another kind between writes to
    /// one key: each key keeps its last value.
    @Test func eachKeyKeepsItsLastValueThroughRunsGrowthAndFlushes() throws {
        var records: [(version: Int, writes: [StoredWrite])] = []
        var expected: [String: JSON] = [:]
        func write(_ name: String, _ value: Int) {
            records.append((records.count + 1, [.value(view: "/App", name: name, value: .int(value))]))
            expected[name] = .int(value)
        }
        for round in 0..<3 {
            for key in 0..<40 {
                // A key first written (the table may grow), the one before it, then this one again.
                write("k\(key)", round * 1000 + key)
                if key > 0 { write("k\(key - 1)", round * 1000 + 500 + key) }
                for repeat_ in 0..<3 { write("k\(key)", round * 1000 + key * 3 + repeat_) }
            }
            records.append((records.count + 1, [.removeView(path: "/App/Other\(round)")]))
            write("k39", round)
        }
        let state = try folded(records)
        #expect(Dictionary(uniqueKeysWithValues: state.values.map { ($0.name, $0.value) }) == expected)
        #expect(version(state, "/App", "") == records.count)
    }

    /// A value that takes the place of the write just before it (`StoredWrite.supersedes`, in a
    /// turn's batch and in the queue across turns) leaves the snapshot as the whole sequence of
    /// writes does: records staged through turns' batches fold to the same tables as the same
    /// records queued one by one, with repeats in one record, across records and across turns,
    /// around mounts, removals, writes without a value, records without writes and turns whose
    /// batch is handed over whole (more than `FoldBatch.movedWrites` writes left) — and so does
    /// each transaction of a fold cut in several, which commits the state at its last version.
    @Test func writesThatTakeTheLastOnesPlaceFoldAsTheWholeSequenceDoes() throws {
        var seed: UInt64 = 31
        func random(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % bound
        }
        let views = ["/App", "/App/Doc", "/App/Form"]
        let names = ["theme.accentColor", "text", "count"]
        func write() -> StoredWrite {
            let view = views[random(views.count)]
            switch random(20) {
            case 0: return .view(path: view, declaration: ["struct": .string(view)])
            case 1: return .removeView(path: view)
            case 2: return .version(view: view, name: random(2) == 0 ? "" : "theme")
            // Mostly the same key, as a client that sets one property again and again.
            case 3..<16: return .value(view: "/App", name: "theme.accentColor", value: .int(random(100)))
            default: return .value(view: view, name: names[random(names.count)], value: .int(random(100)))
            }
        }
        // Turns of records; one in five writes nothing (a turn of commits without a durable write).
        var records: [(version: Int, writes: [StoredWrite])] = []
        var turnEnds: [Int] = []
        while records.count < 600 {
            let silent = random(5) == 0
            for _ in 0...random(12) { records.append((records.count + 1, silent ? [] : (0..<random(4)).map { _ in write() })) }
            turnEnds.append(records.count)
        }

        // Both snapshots fold every few turns, as the fold's thread does, and are compared then.
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (whole, batched) = (try Snapshot(path: data + "/whole.db"), try Snapshot(path: data + "/batched.db"))
        try whole.prepare()
        try batched.prepare()
        var (wholeQueue, queue) = (FoldQueue(), FoldQueue())
        var batch = FoldBatch()
        var (next, turns, folds, transactions, longer) = (0, 0, 0, 0, 0)
        let limit = 5
        var (written, queued, handedOver, inTurns) = (0, 0, 0, 0)
        for end in turnEnds {
            for (version, writes) in records[next..<end] {
                for write in writes { batch.append(write) }
                batch.endRecord(version: version)
                wholeQueue.append(version: version, writes: writes)
                written += writes.count
                inTurns += writes.count
            }
            inTurns -= batch.writes.count
            if batch.writes.count > FoldBatch.movedWrites { handedOver += 1 }
            queue.append(&batch)
            batch.removeAll()
            next = end
            turns += 1
            guard random(3) == 0 || end == records.count else { continue }
            #expect(queue.count == wholeQueue.count, "every record is queued, with or without writes")
            queue.forEachRecord(in: 0..<queue.count) { _, _, writes in queued += writes.count }
            // In transactions of about `limit` records, as a long queue is folded: each ends
            // where no later record took a write of its (`FoldQueue.batchEnd`).
            var start = 0
            while start < queue.count {
                let end = queue.batchEnd(from: start, limit: limit)
                try whole.fold(wholeQueue, records: start..<end)
                try batched.fold(queue, records: start..<end)
                #expect(lines(try batched.load()) == lines(try whole.load()), "folded through version \(queue.version(at: end - 1))")
                (transactions, longer) = (transactions + 1, longer + (end - start > limit ? 1 : 0))
                start = end
            }
            (wholeQueue, queue) = (FoldQueue(), FoldQueue())
            folds += 1
        }
        #expect(handedOver > 0 && folds > 10 && folds < turns, "both ways a batch is queued, and folds of several turns")
        #expect(transactions > folds && longer > 0, "folds cut in transactions, some longer than the limit")
        #expect(queued < written * 2 / 3, "writes took the place of others: \(queued) of \(written) queued")
        #expect(inTurns > 0 && written - inTurns > queued, "in a turn and across turns: \(inTurns), \(written - inTurns - queued)")
    }

    /// Values gathered before a write of another kind (here a view removed) are written before it,
    /// so that the removal takes them with it; those after it stay.
    @Test func aRemovalTakesTheValuesWrittenBeforeItAndKeepsThoseAfter() throws {
        let state = try folded([
            (3, [.value(view: "/App/Doc", name: "text", value: "gone")]),
            (4, [.removeView(path: "/App/Doc")]),
            (5, [.value(view: "/App/Doc", name: "note", value: "kept")]),
        ])
        #expect(state.values.map(\.name) == ["note"])
        #expect(version(state, "/App/Doc", "") == 5)
    }
}
