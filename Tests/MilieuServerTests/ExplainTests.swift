import MilieuEngine
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuServer

/// `graph/explain`: the cause-and-effect graph of a commit, from what the daemon kept of it.
@Suite struct ExplainTests {
    private let request = EmbeddedServer.request

    /// Sends `method` from `client` in a turn of its own; returns its response.
    private func call(_ embedded: EmbeddedServer, _ client: EmbeddedConnection, _ method: String, _ params: JSON = [:]) throws -> JSON {
        embedded.receive(request(1, method, params), from: client)
        embedded.endTurn()
        return try client.read().first { $0["id"] == 1 } ?? .null
    }

    private func nodes(_ explained: JSON, _ kind: String) -> [JSON] {
        explained["nodes"]?.arrayValue?.filter { $0["kind"] == .string(kind) } ?? []
    }

    private func edges(_ explained: JSON) -> [[String]] {
        (explained["edges"]?.arrayValue ?? []).map { edge in
            ["from", "to", "kind", "reason"].map { edge[$0]?.stringValue ?? "" }
        }
    }

    @Test func aWriteIsExplainedFromItsRequestToTheViewsThatReadIt() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        _ = try call(embedded, client, "initialize", ["client": ["name": "tester"]])
        _ = try call(
            embedded, client, "view/mount",
            ["parent": "/App", "name": "Greeting", "environment": ["login": ["type": "Login"]], "body": ["{login.email}"]])
        _ = try call(embedded, client, "graph/set", ["path": "login.email", "value": "a@example.com"])
        let version = try #require(
            try call(embedded, client, "graph/set", ["path": "login.email", "value": "b@example.com"])["result"]?["version"])
        let explained = try #require(try call(embedded, client, "graph/explain", ["version": version])["result"])

        #expect(explained["cause"]?["method"] == "graph/set")
        #expect(explained["cause"]?["client"] == "tester")
        #expect(explained["cause"]?["ops"] == [["method": "graph/set", "path": "login.email"]])
        let attribute = try #require(nodes(explained, "attribute").first)
        #expect(attribute["property"] == "email" && attribute["old"] == "a@example.com" && attribute["new"] == "b@example.com")
        let view = try #require(nodes(explained, "view").first)
        #expect(view["path"] == "/App/Greeting" && view["reasons"] == ["login.email"] && view["body"] == ["b@example.com"])
        let (a, v) = (attribute["id"]?.stringValue ?? "", view["id"]?.stringValue ?? "")
        #expect(edges(explained) == [["cause", a, "wrote", ""], [a, v, "invalidated", "login.email"]])
    }

    @Test func aParentsStateReachesItsChildThroughTheParent() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        _ = try call(embedded, client, "view/mount", ["parent": "/App", "name": "Parent", "state": ["n": 1], "body": ["{n}"]])
        _ = try call(
            embedded, client, "view/mount", ["parent": "/App/Parent", "name": "Child", "inputs": ["n": ["$parent": "n"]], "body": ["{n}"]])
        let version = try #require(try call(embedded, client, "graph/set", ["path": "/App/Parent.n", "value": 2])["result"]?["version"])
        let explained = try #require(try call(embedded, client, "graph/explain", ["version": version])["result"])
        let views = nodes(explained, "view")
        #expect(views.map { $0["path"] } == ["/App/Parent", "/App/Parent/Child"])
        #expect(views.map { $0["order"] } == [0, 1])
        // The first write after a mount still shows what it replaced: the engine records it as it writes.
        #expect(nodes(explained, "attribute").first?["new"] == 2)
        #expect(nodes(explained, "attribute").first?["old"] == 1)
        let (parent, child) = (views[0]["id"]?.stringValue ?? "", views[1]["id"]?.stringValue ?? "")
        #expect(edges(explained).contains([parent, child, "parent", "@self"]))
    }

    /// Issue #25.4: after a reset and the same mount again, a write shows the value it replaced,
    /// not one an earlier identity's history held (`isOn true → true`, as if equal writes re-rendered).
    @Test func theOldValueIsTheOneTheWriteReplacedNotOneFromTheHistory() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        let declaration: JSON = ["parent": "/App", "name": "Switch", "state": ["isOn": false], "body": ["{isOn}"]]
        _ = try call(embedded, client, "view/mount", declaration)
        _ = try call(embedded, client, "graph/set", ["path": "/App/Switch.isOn", "value": true])
        _ = try call(embedded, client, "graph/reset")
        _ = try call(embedded, client, "view/mount", declaration)
        let version = try #require(
            try call(embedded, client, "graph/set", ["path": "/App/Switch.isOn", "value": true])["result"]?["version"])
        let explained = try #require(try call(embedded, client, "graph/explain", ["version": version])["result"])
        let attribute = try #require(nodes(explained, "attribute").first)
        #expect(attribute["old"] == false && attribute["new"] == true)
        // A secure value replaced is never shown.
        let secret = try #require(
            try call(embedded, client, "graph/set", ["path": "login.password", "value": "hunter2"])["result"]?["version"])
        let secretExplained = try #require(try call(embedded, client, "graph/explain", ["version": secret])["result"])
        let written = try #require(nodes(secretExplained, "attribute").first)
        #expect(written["old"] == "<secure>" && written["new"] == "<secure>")
    }

    @Test func anObjectMadeByAReRenderIsAnEffectOfThatView() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        _ = try call(
            embedded, client, "view/mount", ["parent": "/App", "name": "Container", "state": ["toggle": false], "body": ["{toggle}"]])
        _ = try call(
            embedded, client, "view/mount",
            [
                "parent": "/App/Container", "name": "LoginView2", "inputs": ["t": ["$parent": "toggle"]],
                "observedObjects": ["loginVM": ["construct": "LoginViewModel"]],
            ])
        let version = try #require(
            try call(embedded, client, "graph/set", ["path": "/App/Container.toggle", "value": true])["result"]?["version"])
        let explained = try #require(try call(embedded, client, "graph/explain", ["version": version])["result"])
        let created = try #require(nodes(explained, "effect").first { $0["effect"] == "objectCreated" })
        let view = try #require(nodes(explained, "view").first { $0["path"] == "/App/Container/LoginView2" })
        #expect(edges(explained).contains([view["id"]?.stringValue ?? "", created["id"]?.stringValue ?? "", "caused", ""]))
    }

    @Test func aSecretIsNeverExplained() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        _ = try call(embedded, client, "graph/set", ["path": "login.password", "value": "first secret"])
        let version = try #require(
            try call(embedded, client, "graph/set", ["path": "login.password", "value": "second secret"])["result"]?["version"])
        let explained = try #require(try call(embedded, client, "graph/explain", ["version": version])["result"])
        #expect(nodes(explained, "attribute").first?["new"] == "<secure>")
        #expect(nodes(explained, "attribute").first?["old"] == "<secure>")
        #expect(!explained.jsonText.contains("secret"))
    }

    @Test func aVersionOutsideTheHistoryIsCompactedAndOneNotYetMadeIsRefused() throws {
        let embedded = try EmbeddedServer { $0.historyLength = 2 }
        let client = embedded.connect()
        for value in ["a", "b", "c"] {
            _ = try call(embedded, client, "graph/set", ["path": "theme.accentColor", "value": .string(value)])
        }
        #expect(try call(embedded, client, "graph/explain", ["version": 2])["error"]?["data"]?["kind"] == "Compacted")
        #expect(try call(embedded, client, "graph/explain", ["version": 99])["error"]?["code"] == -32602)
        #expect(try call(embedded, client, "graph/explain", ["version": 4])["result"]?["version"] == 4)
    }

    /// A connection's hot writes of one path share one kept cause (`StoredCause.hot`); one that
    /// differs in path, method or client name gets its own, and each is explained as it was.
    @Test func repeatedWritesOfOnePathShareTheirCauseAndEachIsExplainedAsItWas() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        func set(_ path: String, _ value: JSON) throws -> Int {
            let version = try call(embedded, client, "graph/set", ["path": .string(path), "value": value])["result"]?["version"]
            return try #require(version?.intValue)
        }
        func cause(_ version: Int) throws -> StoredCause {
            try #require(embedded.server.history.entry(Version(version))?.cause)
        }
        let first = try set("theme.accentColor", "a")
        let second = try set("theme.accentColor", "b")
        #expect(try cause(first) === cause(second))
        _ = try call(embedded, client, "initialize", ["client": ["name": "renamed"]])
        let renamed = try set("theme.accentColor", "c")
        #expect(try cause(renamed) !== cause(second))
        let otherPath = try set("session.user", "ann")
        #expect(try cause(otherPath) !== cause(renamed))
        func explained(_ version: Int) throws -> JSON? {
            try call(embedded, client, "graph/explain", ["version": .int(version)])["result"]?["cause"]
        }
        #expect(try explained(second)?["ops"] == [["method": "graph/set", "path": "theme.accentColor"]])
        #expect(try explained(second)?["client"] == nil)
        #expect(try explained(otherPath)?["ops"] == [["method": "graph/set", "path": "session.user"]])
        #expect(try explained(renamed)?["client"] == "renamed")
        #expect(try explained(renamed)?["ops"] == [["method": "graph/set", "path": "theme.accentColor"]])
    }

    /// A shared cause is shared only by requests that spelled their path with the same bytes:
    /// `==` equates a precomposed `é` with `e` and a combining accent, which the engine finds
    /// as one view, but each write is explained with what its request sent.
    @Test func eachWriteIsExplainedWithThePathItsRequestSpelled() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        _ = try call(embedded, client, "view/mount", ["parent": "/App", "name": "V", "id": "\u{E9}", "state": ["n": 0]])
        let composed = "/App/V[\"\u{E9}\"].n"
        let decomposed = "/App/V[\"e\u{301}\"].n"
        func set(_ path: String, _ value: Int) throws -> Int {
            let version = try call(embedded, client, "graph/set", ["path": .string(path), "value": .int(value)])["result"]?["version"]
            return try #require(version?.intValue)
        }
        _ = try set(composed, 1)
        let second = try set(decomposed, 2)
        let cause = try call(embedded, client, "graph/explain", ["version": .int(second)])["result"]?["cause"]
        let path = try #require(cause?["ops"]?.arrayValue?.first?["path"]?.stringValue)
        #expect(Array(path.utf8) == Array(decomposed.utf8))
    }

    @Test func aLargeTransactionKeepsTheFirstSixteenOpsOfItsCause() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        let ops: [JSON] = (0..<40).map { n in ["method": "view/mount", "params": ["parent": "/App", "name": "Row", "id": .int(n)]] }
        let version = try #require(try call(embedded, client, "graph/transaction", ["ops": .array(ops)])["result"]?["version"])
        let cause = try #require(try call(embedded, client, "graph/explain", ["version": version])["result"]?["cause"])
        #expect(cause["ops"]?.arrayValue?.count == StoredCause.keptOperations)
        #expect(cause["ops"]?.arrayValue?.first == ["method": "view/mount", "path": "/App/Row"])
        #expect(cause["moreOps"] == .int(40 - StoredCause.keptOperations))
    }
}
