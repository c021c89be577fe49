import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuServer

#if canImport(Glibc)
import Glibc
#endif

/// The server's ordering and fan-out rules (SPEC §8.3, §10, §11), in process: each test says
/// exactly which lines arrive in which loop turn.
@Suite struct TurnOrderTests {
    private let request = EmbeddedServer.request

    @Test func aResponseGoesOutBeforeTheNotificationsOfItsCommitAndOnlyAtTheEndOfTheTurn() throws {
        let embedded = try EmbeddedServer()
        let a = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["login.email"]]), from: a)
        embedded.receive(request(2, "graph/set", ["path": "login.email", "value": "kim@example.com"]), from: a)
        #expect(try a.read().isEmpty, "nothing is sent before the turn ends")
        embedded.endTurn()
        let lines = try a.read()
        #expect(lines.map { $0["id"] ?? $0["method"] ?? .null } == [1, 2, "graph/didChange"])
        #expect(lines[2]["params"] == ["watch": 1, "version": 2, "changes": [["path": "login.email", "value": "kim@example.com"]]])
    }

    @Test func writesFromManyConnectionsInOneTurnTakeVersionsInArrivalOrder() throws {
        let embedded = try EmbeddedServer()
        let watcher = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["theme.colorScheme"]]), from: watcher)
        embedded.endTurn()
        _ = try watcher.read()
        let b = embedded.connect()
        let c = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "theme.colorScheme", "value": "dark"]), from: b)
        embedded.receive(request(1, "graph/set", ["path": "theme.colorScheme", "value": "light"]), from: c)
        embedded.endTurn()
        #expect(try b.read() == [["jsonrpc": "2.0", "id": 1, "result": ["version": 2]]])
        #expect(try c.read() == [["jsonrpc": "2.0", "id": 1, "result": ["version": 3]]])
        let seen = try watcher.read().map { [$0["params"]?["version"], $0["params"]?["changes"]?.arrayValue?.first?["value"]] }
        #expect(seen == [[2, "dark"], [3, "light"]])
    }

    @Test func eachWatchGetsOnlyWhatItAskedForSpelledAsItAskedIt() throws {
        let embedded = try EmbeddedServer()
        let property = embedded.connect()
        let object = embedded.connect()
        let other = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["login.email"]]), from: property)
        embedded.receive(request(1, "watch", ["paths": ["login"]]), from: object)
        embedded.receive(request(1, "watch", ["paths": ["theme"]]), from: other)
        embedded.endTurn()
        for connection in [property, object, other] { _ = try connection.read() }
        let writer = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "login.email", "value": "a@b.c"]), from: writer)
        embedded.receive(request(2, "graph/set", ["path": "login.password", "value": "hunter2"]), from: writer)
        embedded.endTurn()
        #expect(try property.read().map { $0["params"]?["changes"] } == [[["path": "login.email", "value": "a@b.c"]]])
        #expect(
            try object.read().map { $0["params"]?["changes"] } == [
                [["path": "login.email", "value": "a@b.c"]], [["path": "login.password", "redacted": true]],
            ])
        #expect(try other.read().isEmpty)
    }

    @Test func aBatchIsAnsweredOnOneLineBeforeItsNotifications() throws {
        let embedded = try EmbeddedServer()
        let a = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["theme.fontScale"]]), from: a)
        embedded.endTurn()
        _ = try a.read()
        embedded.receive(
            "[" + request(2, "graph/set", ["path": "theme.fontScale", "value": 1.5]) + ","
                + request(3, "graph/set", ["path": "theme.fontScale", "value": 2.0]) + "]", from: a)
        embedded.endTurn()
        let lines = try a.read()
        #expect(lines.count == 3)
        #expect(lines[0].arrayValue?.map { $0["result"]?["version"] } == [2, 3])
        #expect(lines[1...].map { $0["params"]?["version"] } == [2, 3])
    }

    @Test func aClosedConnectionTakesItsViewsAndWatchersAreTold() throws {
        let embedded = try EmbeddedServer()
        let watcher = embedded.connect()
        let mounter = embedded.connect()
        embedded.receive(request(1, "watch", ["views": ["/App"]]), from: watcher)
        embedded.receive(request(1, "view/mount", ["parent": "/App", "name": "Mine", "state": ["n": 0]]), from: mounter)
        embedded.receive(request(2, "view/mount", ["parent": "/App", "name": "Kept", "retain": true]), from: mounter)
        embedded.endTurn()
        _ = try watcher.read()
        embedded.hangUp(mounter)
        embedded.endTurn()
        let lines = try watcher.read()
        #expect(lines.map { $0["method"] } == ["view/didUnmount"])
        #expect(lines.first?["params"]?["path"] == "/App/Mine")
        #expect(lines.first?["params"]?["reason"] == "connectionClosed")
    }

    /// A connection that hangs up before its turn ends is sent nothing more; its write stands,
    /// and the others in the turn get their answers and notifications.
    @Test func aConnectionGoneBeforeItsTurnEndsIsSentNothingAndItsWriteStands() throws {
        let embedded = try EmbeddedServer()
        let watcher = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["theme.colorScheme"]]), from: watcher)
        embedded.endTurn()
        _ = try watcher.read()
        let gone = embedded.connect()
        let stays = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "theme.colorScheme", "value": "dark"]), from: gone)
        embedded.receive(request(1, "graph/get", ["path": "theme.colorScheme"]), from: stays)
        embedded.hangUp(gone)
        embedded.endTurn()
        #expect(try gone.read().isEmpty)
        #expect(try stays.read().map { $0["result"] } == ["dark"])
        #expect(try watcher.read().map { $0["params"]?["changes"] } == [[["path": "theme.colorScheme", "value": "dark"]]])
    }

    @Test func aReaderPastTheHardLimitIsDroppedWithANoticeAndOthersAreServed() throws {
        let embedded = try EmbeddedServer { $0.outputLimits.hard = 4096 }
        let slow = embedded.connect()
        let healthy = embedded.connect()
        for connection in [slow, healthy] { embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: connection) }
        embedded.endTurn()
        _ = try healthy.read()
        let writer = embedded.connect()
        let big = String(repeating: "x", count: 1024)
        for n in 0..<8 {
            embedded.receive(request(n + 1, "graph/set", ["path": "theme.accentColor", "value": .string("\(n)\(big)")]), from: writer)
            embedded.endTurn()
            #expect(try healthy.read().count == 1)  // the healthy reader reads as it goes
        }
        #expect(slow.closingAfterFlush)
        let lines = try slow.read()
        #expect(lines.last?["method"] == "connection/dropped")
        #expect(lines.last?["params"]?["reason"] == "slowConsumer")
        #expect(lines.count < 8, "nothing more is sent once it is dropped")
    }

    @Test func anotherUsersConnectionIsRefusedAsForbidden() throws {
        let embedded = try EmbeddedServer()
        let stranger = embedded.connect(uid: geteuid() + 1)
        let lines = try stranger.read()
        #expect(lines.first?["error"]?["data"]?["kind"] == "Forbidden")
        #expect(stranger.closingAfterFlush)
        embedded.receive(request(1, "graph/get", ["path": "login.email"]), from: stranger)
        embedded.endTurn()
        #expect(try stranger.read().isEmpty, "a refused connection gets no session")
    }

    /// The turn's responses share one buffer: the hard output limit still applies to each line alone.
    @Test func eachResponseIsHeldToTheOutputLimitAloneNotWithTheRestOfTheTurn() throws {
        let embedded = try EmbeddedServer { $0.outputLimits.hard = 4096 }
        let clients = (0..<3).map { _ in embedded.connect() }
        embedded.receive(
            request(1, "view/mount", ["parent": "/App", "name": "Wide", "body": [.string(String(repeating: "w", count: 3000))]]),
            from: clients[0])
        embedded.endTurn()
        _ = try clients[0].read()
        for client in clients { embedded.receive(request(2, "graph/get", ["path": "/App/Wide"]), from: client) }
        embedded.endTurn()
        for client in clients {
            let lines = try client.read()
            #expect(lines.count == 1 && lines[0]["result"]?["body"] != nil, "\(lines)")
        }
    }
}
