import Foundation
import MilieuEngine
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuServer
@testable import MilieuStore

/// What a log record says of a commit's changes reads back as the same changes, so that a
/// watch resumed after a restart gets the notifications it would have had.
@Suite struct PersistenceRecordTests {
    @Test func everyKindOfChangeReadsBackFromItsHistoryBytes() throws {
        let graph = try Graph()
        let changes: [Change] = [
            .property(object: "Theme#2", type: "Theme", property: "accentColor", value: "red"),
            .property(object: "Login#3", type: "Login", property: "password", value: nil),
            .state(view: "/App/Form", variable: "n", value: ["a": [1, 2.5, .null, true]]),
            .viewUpdated(view: "/App", reasons: ["theme.accentColor changed"], body: ["a \"quoted\" line"], printed: nil),
            .viewUpdated(view: "/App/V", reasons: ["_n"], body: [], printed: "V: _n changed."),
            .viewMounted(view: "/App/Form", reason: .mounted, body: [], printed: nil),
            .viewMounted(view: "/App/Form/Row[1]", reason: .row, body: ["x"], printed: "Row: @self, @identity changed."),
            .viewUnmounted(view: "/App/Form", reason: .connectionClosed),
            .objectCreated(object: "Cart#9", type: "Cart", owner: nil, reason: .stateObject),
            .objectDestroyed(object: "Cart#9", type: "Cart", owner: "/App/Form.cart", reason: .released),
            .diagnostic(kind: "StateObjectInitIgnored", message: "m", view: "/App/Form", variable: "cart", ignored: ["x": 1], hint: "h"),
        ]
        var writer = JSONWriter()
        var restated = Persistence.Restatements()
        var objectHead = WrittenMemo()
        writer.withSink {
            Persistence.writeHistory(
                Commit(version: Version(7), changes: changes).changes, graph, restated: &restated, objectHead: &objectHead, into: &$0)
        }
        let bytes = writer.bytes
        #expect(!String(decoding: bytes, as: UTF8.self).contains("password"), "a secure property is not named")
        let commit = try #require(Persistence.commit(version: 7, historyBytes: bytes, writes: { nil }, graph))
        #expect(commit.version == Version(7))
        #expect(Array(commit.changes) == changes)
    }

    /// A property change and a @State change whose values the record's writes carry name those
    /// writes instead of repeating them (log format 3), and read back from the log as they were:
    /// after a registered type's write, which comes first, and with one property set twice.
    @Test func aChangeAWriteRestatesNamesItAndReadsBackFromTheLog() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let graph = try Graph()
        _ = try graph.apply([.mount(declaration: ["parent": "/App", "name": "Form", "state": ["n": ""]], owner: nil)])
        let (_, commit) = try graph.apply([
            .set(path: "theme.accentColor", value: "an earlier colour", ifVersion: nil),
            .set(path: "theme.accentColor", value: "a long colour name, written once", ifVersion: nil),
            .set(path: "/App/Form.n", value: "a note, written once too", ifVersion: nil),
            .set(path: "login.password", value: "secret", ifVersion: nil),
        ])
        let store = try Store(directory: directory, options: StoreOptions())
        try store.start(nextVersion: commit.version.rawValue)
        store.stageType(name: "Pet", declaration: ["name": "Pet", "properties": [:]])
        var objectHead = WrittenMemo()
        Persistence.stage(commit, of: graph, in: store, objectHead: &objectHead)
        // The same property again: its write's head and its entry's come from the memos.
        let (_, next) = try graph.apply([.set(path: "theme.accentColor", value: "teal", ifVersion: nil)])
        Persistence.stage(next, of: graph, in: store, objectHead: &objectHead)
        try store.commit()
        store.close()

        let again = try Store(directory: directory, options: StoreOptions())
        defer { again.close() }
        let records = again.history.suffix(2)
        let histories = records.map { String(decoding: $0.history, as: UTF8.self) }
        // The @State's change and the property's name the writes that carry their values, after
        // the type's write at 0; the secure property's names only its position in its type.
        #expect(histories == [#"[["S",1],["P","Theme#2",2],["q","Login#3","Login",1]]"#, #"[["P","Theme#2",0]]"#])
        #expect(try #require(records.last).allWrites() == [.value(view: "/App", name: "theme.accentColor", value: "teal")])
        for (record, made) in zip(records, [commit, next]) {
            let read = try #require(
                Persistence.commit(version: record.version, historyBytes: record.history, writes: record.allWrites, graph))
            #expect(Array(read.changes) == Array(made.changes))
        }
    }
}
