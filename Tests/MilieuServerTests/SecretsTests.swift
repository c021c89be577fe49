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
        _ = try client.call("graph/set", ["path": "/App/Form/Field.pw", "value": .string(secret)])
        _ = try client.call("graph/call", ["path": "login.login"])
        _ = try client.call("graph/call", ["path": "session.start", "args": ["kim"]])
        let probes: [(String, JSON)] = [
            ("graph/get", ["path": "login"]), ("graph/get", ["path": "login.password"]), ("graph/get", ["path": "/App/Form/Field"]),
            ("graph/get", ["path": "/App/Form/Field.pw"]), ("view/tree", [:]), ("schema/types", [:]),
            ("graph/set", ["path": "login.password", "value": 5]),
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
}
