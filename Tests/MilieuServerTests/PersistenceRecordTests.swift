import MilieuEngine
import MilieuJSON
import Testing

@testable import MilieuServer

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
        writer.withSink { Persistence.writeHistory(changes, graph, into: &$0) }
        let bytes = writer.bytes
        #expect(!String(decoding: bytes, as: UTF8.self).contains("password"), "a secure property is not named")
        let commit = try #require(Persistence.commit(version: 7, historyBytes: bytes, graph))
        #expect(commit.version == Version(7))
        #expect(Array(commit.changes) == changes)
    }
}
