import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// Rule 13 end to end: a secret set during the test appears in no response, notification,
/// log line or file the daemon writes.
@Suite(.serialized) struct SecretsTests {
    @Test func aSecretNeverLeavesTheDaemon() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data, "--log-level", "debug"])
        let secret = "s3cret-\(UUID().uuidString)"
        let watcher = try daemon.connect()
        _ = try watcher.call("watch", ["paths": ["login", "session"], "views": ["/App"], "lifecycle": true])
        let client = try daemon.connect()
        _ = try client.call(
            "view/mount",
            [
                "parent": "/App", "name": "Form", "retain": true, "environment": ["login": ["type": "Login"]],
                "state": ["draft": ["$new": ["type": "Login", "init": ["password": .string(secret)]]]],
                "body": ["{login.password} {draft.password}"],
            ])
        _ = try client.call(
            "view/mount",
            [
                "parent": "/App/Form", "name": "Field", "bindings": ["pw": ["$parent": "login.password"]], "body": ["{pw}"],
            ])
        // A secure property's declared default is a secret too: it is never written to disk.
        _ = try client.call(
            "schema/register",
            [
                "types": [
                    [
                        "name": "Vault", "style": "observable",
                        "properties": ["pin": ["type": "string", "secure": true, "default": .string(secret)]],
                    ]
                ]
            ])
        _ = try client.call("graph/set", ["path": "/App/Form/Field.pw", "value": .string(secret)])
        _ = try client.call("graph/call", ["path": "login.login"])
        _ = try client.call("graph/call", ["path": "session.start", "args": ["kim"]])
        let probes: [(String, JSON)] = [
            ("graph/get", ["path": "login"]), ("graph/get", ["path": "login.password"]), ("graph/get", ["path": "/App/Form/Field"]),
            ("graph/get", ["path": "/App/Form/Field.pw"]), ("view/tree", [:]), ("schema/types", [:]),
            ("graph/set", ["path": "login.password", "value": 5]), ("view/dependencies", ["path": "/App/Form"]),
            ("view/dependencies", ["path": "/App/Form/Field"]), ("graph/readers", ["path": "login.password"]),
            ("graph/readers", ["path": "/App/Form.draft"]), ("graph/readers", ["path": "session.token"]),
            ("view/environment", ["path": "/App/Form/Field"]),
        ]
        for (method, params) in probes { _ = try client.request(method, params) }
        _ = try watcher.call("initialize")  // everything for the watcher has been read by now
        daemon.stop()

        let needle = Data(secret.utf8)
        #expect(Data(client.received).range(of: needle) == nil, "a response holds the secret")
        #expect(Data(watcher.received).range(of: needle) == nil, "a notification holds the secret")
        #expect(!daemon.stderrText().contains(secret), "a log line holds the secret")
        for file in try FileManager.default.contentsOfDirectory(atPath: data) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(data)/\(file)")).range(of: needle) == nil, "\(file) holds the secret")
        }
        // And the watcher did see that the password changed, without its value.
        #expect(String(decoding: watcher.received, as: UTF8.self).contains(#""path":"login.password","redacted":true"#))
    }

    /// Writing a guess of a secret tells nothing: an equal write takes a version and is
    /// announced exactly as a different one is (no oracle).
    @Test func anEqualSecureWriteLooksLikeAnyOther() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let watcher = try daemon.connect()
        _ = try watcher.call("watch", ["paths": ["login"]])
        let client = try daemon.connect()
        var versions: [JSON] = []
        for guess in ["right", "right", "wrong"] {
            versions.append(try client.call("graph/set", ["path": "login.password", "value": .string(guess)])["version"] ?? .null)
        }
        #expect(versions == [2, 3, 4], "every write takes a version")
        let seen = try (0..<3).map { _ in try watcher.nextNotification()["params"] }
        #expect(seen.map { $0?["changes"] } == Array(repeating: [["path": "login.password", "redacted": true]], count: 3))
    }

    /// The daemon keeps secrets in memory only: no core file may copy them out.
    @Test func theDaemonDumpsNoCore() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let limits = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
        #expect(core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
    }
}
