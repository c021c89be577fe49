import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// Durable state: what survives kill -9 and restarts, what never reaches the disk, and bad databases.
@Suite(.serialized) struct PersistenceTests {
    /// A daemon on `dataDirectory`, ready.
    private func start(_ dataDirectory: String, _ extra: [String] = []) throws -> Daemon {
        try Daemon(arguments: ["--data-dir", dataDirectory] + extra)
    }

    @Test func acknowledgedChangesSurviveKill9() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        _ = try client.call(
            "view/mount",
            ["parent": "/App", "name": "Counter", "retain": true, "state": ["clicks": 0], "stateObjects": ["cart": ["type": "Cart"]]])
        let writes = 200
        for n in 1...writes {
            _ = try client.call("graph/set", ["path": "/App/Counter.clicks", "value": .int(n)])
        }
        _ = try client.call("graph/call", ["path": "/App/Counter.cart.add", "args": ["apple"]])
        _ = try client.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        first.stop()

        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try again.call("graph/get", ["path": "/App/Counter.clicks"]) == .int(writes))
        #expect(try again.call("graph/get", ["path": "/App/Counter.cart.items"]) == ["apple"])
        #expect(try again.call("graph/get", ["path": "theme.colorScheme"]) == "dark")
    }

    @Test func aResetIsKeptAcrossARestart() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Kept", "retain": true, "state": ["n": 1]])
        _ = try client.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])
        let reset = try client.call("graph/reset")
        // The secure values are set back whatever they are (rule 13): listed whether or not they changed.
        #expect(
            reset["unmounted"] == ["/App/Kept"]
                && reset["written"] == ["/App.session.token", "/App.theme.colorScheme", "/App.login.password"])
        first.stop()
        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try again.failure("graph/get", ["path": "/App/Kept"])["data"]?["kind"] == "UnknownPath")
        #expect(try again.call("graph/get", ["path": "theme.colorScheme"]) == "light")
    }

    @Test func viewsThatAreNotRetainedAndEphemeralDaemonsKeepNothing() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Passing", "state": ["n": 1]])
        _ = try client.call("graph/set", ["path": "/App/Passing.n", "value": 2])
        first.stop()
        let second = try start(data)
        defer { second.stop() }
        #expect(try second.connect().failure("graph/get", ["path": "/App/Passing.n"])["data"]?["kind"] == "UnknownPath")

        let ephemeral = try Daemon(arguments: ["--ephemeral"])
        defer { ephemeral.stop() }
        _ = try ephemeral.connect().call("graph/set", ["path": "login.email", "value": "kim@example.com"])
        #expect(!FileManager.default.fileExists(atPath: "\(ephemeral.directory)/milieu.db"))
    }

    /// #30 item 9: a retained view whose parent the new scene lacks is dropped, and every client
    /// is told as it connects (`initialize`) and by `daemon/info`; it stays kept, and comes back
    /// with a scene it fits.
    @Test func aRestoreThatDropsARetainedViewTellsEveryClientAndKeepsIt() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let scene = "\(data)/form.json"
        try #"{"views": [{"parent": "/App", "name": "Form", "state": {"toggle": false}}]}"#
            .write(toFile: scene, atomically: true, encoding: .utf8)
        let first = try start(data, ["--scene", scene])
        let client = try first.connect()
        _ = try client.call("view/mount", ["parent": "/App/Form", "name": "Extra", "retain": true, "state": ["n": 1]])
        _ = try client.call("graph/set", ["path": "/App/Form/Extra.n", "value": 5])
        _ = try client.call("graph/set", ["path": "/App/Form.toggle", "value": true])
        #expect(try client.call("initialize")["restore"] == nil, "nothing was dropped at its start")
        first.stop()

        let elsewhere = try start(data)  // the default scene: no /App/Form
        let hello = try elsewhere.connect().call("initialize")
        let restore = try #require(hello["restore"])
        #expect(restore["droppedCount"] == 2 && restore["views"] == 0 && restore["values"] == 0)
        let dropped = try #require(restore["dropped"]?.arrayValue)
        #expect(dropped.map { $0["kind"] } == ["view", "value"])
        #expect(dropped.map { $0["name"] } == ["/App/Form/Extra", "/App/Form.toggle"], "Extra.n went with its view: \(dropped)")
        #expect(dropped[0]["reason"]?.stringValue?.contains("no view is mounted there to be the parent") == true)
        #expect(try elsewhere.connect().call("daemon/info")["restore"] == restore)
        elsewhere.stop()
        #expect(elsewhere.stderrText().contains("not restoring the stored view /App/Form/Extra"), "and its log says so")

        let back = try start(data, ["--scene", scene])
        defer { back.stop() }
        let again = try back.connect()
        #expect(try again.call("initialize")["restore"] == nil)
        let info = try again.call("daemon/info")["restore"]
        #expect(info?["views"] == 1 && info?["values"] == 2 && info?["droppedCount"] == 0 && info?["dropped"] == [])
        #expect(try again.call("graph/get", ["path": "/App/Form/Extra.n"]) == 5)
    }

    /// An object a property made (`@Published var inner = Inner()`) is made again with its holder
    /// at a restart, and its values come back through the path to it.
    @Test func anObjectAPropertyMadeComesBackWithItsValues() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        _ = try client.call(
            "schema/register",
            [
                "types": [
                    ["name": "Inner", "style": "observableObject", "properties": ["count": ["type": "int"]]],
                    [
                        "name": "Outer", "style": "observableObject",
                        "properties": ["inner": ["type": "@Inner", "default": ["$new": ["type": "Inner"]], "forwards": true]],
                    ],
                ]
            ])
        _ = try client.call(
            "view/mount", ["parent": "/App", "name": "Screen", "retain": true, "stateObjects": ["outer": ["type": "Outer"]]])
        _ = try client.call("graph/set", ["path": "/App/Screen.outer.inner.count", "value": 3])
        _ = try client.call("graph/set", ["path": "login.email", "value": "later@example.com"])  // a later version
        func innerVersion(_ client: LineClient) throws -> JSON? {
            let inner = try client.call("graph/get", ["path": "/App/Screen.outer.inner"])
            return try client.call("graph/get", ["path": inner])["version"]
        }
        let version = try innerVersion(client)
        first.stop()
        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try again.call("initialize")["restore"] == nil, "nothing dropped: the made object's id is not kept")
        #expect(try again.call("graph/get", ["path": "/App/Screen.outer.inner.count"]) == 3)
        #expect(try innerVersion(again) == version, "the made object keeps its version")
    }

    /// A `@State` given a new object (`vm = NewObservable(count: 7)`) comes back at a restart with
    /// the new object's values, not the old one's written onto it, and nothing is dropped.
    @Test func aStateGivenANewObjectComesBackWithThatObjectsValues() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        _ = try client.call(
            "view/mount",
            [
                "parent": "/App", "name": "Screen", "retain": true, "state": ["vm": ["$new": ["type": "NewObservable"]]],
                "body": [["button": "reset", "action": [["set": "vm", "to": ["new": ["type": "NewObservable", "init": ["count": 7]]]]]]],
            ])
        _ = try client.call("graph/set", ["path": "/App/Screen.vm.count", "value": 5])
        _ = try client.call("view/tap", ["path": "/App/Screen", "label": "reset"])
        #expect(try client.call("graph/get", ["path": "/App/Screen.vm.count"]) == 7)
        let version = try client.call("graph/get", ["path": "/App/Screen.vm"])["version"]
        first.stop()
        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try again.call("initialize")["restore"] == nil, "nothing dropped")
        #expect(try again.call("graph/get", ["path": "/App/Screen.vm.count"]) == 7)
        #expect(try again.call("graph/get", ["path": "/App/Screen.vm"])["version"] == version, "the new object's version")
    }

    @Test func secureValuesNeverReachTheDisk() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try start(data)
        let client = try daemon.connect()
        let secret = "pw-\(UUID().uuidString)"
        _ = try client.call("graph/set", ["path": "login.password", "value": .string(secret)])
        _ = try client.call("graph/set", ["path": "login.email", "value": "kim@example.com"])
        _ = try client.call("graph/call", ["path": "session.start", "args": ["kim"]])
        daemon.stop()
        for file in try FileManager.default.contentsOfDirectory(atPath: data) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(data)/\(file)"))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the secret")
            #expect(bytes.range(of: Data("token".utf8)) == nil, "\(file) names the token")
        }
        #expect(daemon.stderrText().contains(secret) == false)
    }

    @Test func aCorruptDatabaseIsAClearErrorAndIsLeftAsItWas() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: "\(data)/milieu.db"))
        let daemon = try Daemon(arguments: ["--data-dir", data], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderrText().contains("milieu.db"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(data)/milieu.db")) == garbage)
    }

    @Test func aDatabaseFromANewerVersionIsRefused() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try start(data).stop()
        _ = try ScriptRunner.sqlite("\(data)/milieu.db", "UPDATE meta SET value = '99' WHERE key = 'format'")
        let daemon = try Daemon(arguments: ["--data-dir", data], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderrText().contains("newer milieud"))
    }

    @Test func aDataDirectoryThatCannotBeWrittenIsAClearError() throws {
        let parent = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let file = "\(parent)/not-a-directory"
        try Data().write(to: URL(fileURLWithPath: file))
        let daemon = try Daemon(arguments: ["--data-dir", "\(file)/state"], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderrText().contains("cannot create the data directory"))
    }
}
