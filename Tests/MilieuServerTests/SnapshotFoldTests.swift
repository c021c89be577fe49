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
