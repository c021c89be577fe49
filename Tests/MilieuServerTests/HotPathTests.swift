import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuServer

/// The hot path (`HotRequest`) answers as the general one does: the same lines, with a key
/// written with an escape so that only the general path reads them, get the same responses
/// and the same notifications.
@Suite struct HotPathTests {
    /// Each request both ways: as clients write it, and with `path` as `p\u0061th`.
    static let requests = [
        #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"theme.accentColor","value":"red"}}"#,
        #"{"jsonrpc":"2.0","id":2,"method":"graph/set","params":{"path":"theme.accentColor","value":"red"}}"#,
        #"{"jsonrpc":"2.0","id":"c","method":"graph/set","params":{"path":"theme.fontScale","value":9.5}}"#,
        #"{"jsonrpc":"2.0","id":4,"method":"graph/set","params":{"path":"nowhere.x","value":1}}"#,
        #"{"jsonrpc":"2.0","id":5,"method":"graph/set","params":{"path":"theme.colorScheme","value":"dark","ifVersion":1}}"#,
        #"{"jsonrpc":"2.0","id":6,"method":"graph/set","params":{"path":"login.password","value":"hunter2"}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"graph/get","params":{"path":"theme"}}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"graph/get","params":{"path":"login.password"}}"#,
        #"{"jsonrpc":"2.0","id":9,"method":"graph/get","params":{"path":"/App/Nowhere.x"}}"#,
    ]

    /// What a watcher of everything and the writer were sent, for `requests` sent one per turn.
    private func transcript(escapingKeys: Bool) throws -> [JSON] {
        let embedded = try EmbeddedServer()
        let watcher = embedded.connect()
        embedded.receive(EmbeddedServer.request(1, "watch", ["paths": ["theme", "login"]]), from: watcher)
        let writer = embedded.connect()
        embedded.endTurn()
        var seen = try watcher.read()
        for line in Self.requests {
            let sent = escapingKeys ? line.replacingOccurrences(of: #"{"path""#, with: #"{"p\u0061th""#) : line
            embedded.receive(sent, from: writer)
            embedded.endTurn()
            seen += try writer.read() + watcher.read()
        }
        return seen
    }

    @Test func hotAndGeneralLinesGetTheSameAnswersAndNotifications() throws {
        let hot = try transcript(escapingKeys: false)
        let general = try transcript(escapingKeys: true)
        #expect(hot == general)
        // The transcript holds what could differ: results, errors and notifications.
        #expect(hot.contains { $0["error"]?["data"]?["kind"] == "UnknownPath" })
        #expect(hot.contains { $0["error"]?["data"]?["kind"] == "VersionConflict" })
        #expect(hot.contains { $0["method"] == "graph/didChange" })
        #expect(hot.contains { $0["id"] == "c" && $0["error"] != nil })
    }
}
