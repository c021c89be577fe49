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

    /// The turn's last commit has each of its watchers' output written as soon as it is queued
    /// (`writeAhead`), with what the turn's earlier commits queued for them: one call a watcher
    /// a turn. A connection it does not reach is written at the end of the turn, as ever.
    @Test func theTurnsLastCommitWritesEachWatcherAheadOnceWithTheEarlierOnes() throws {
        let embedded = try EmbeddedServer()
        let watchers = [embedded.connect(), embedded.connect()]
        let writer = embedded.connect()
        for watcher in watchers { embedded.receive(request(1, "watch", ["paths": ["login.email"]]), from: watcher) }
        embedded.endTurn()
        for watcher in watchers {
            _ = try watcher.read()
            #expect(watcher.writtenAhead.isEmpty)
        }
        for (id, value) in ["a@b.c", "d@e.f", "g@h.i"].enumerated() {
            embedded.receive(request(id + 1, "graph/set", ["path": "login.email", "value": .string(value)]), from: writer)
        }
        embedded.endTurn()
        for watcher in watchers {
            #expect(watcher.writtenAhead == [watcher.pendingOutputBytes])
            #expect(try watcher.read().compactMap { $0["params"]?["version"] } == [2, 3, 4])
        }
        #expect(writer.writtenAhead.isEmpty)
        #expect(try writer.read().count == 3)
    }

    /// A watch made in the turn of a commit that came before it is not told of that commit: its
    /// response's version already holds it (SPEC §11.3), and nothing of a watch comes before its
    /// response. With `sinceVersion` the commit is in its replay, right after the response, once.
    /// The commits after it in the turn reach it after its response.
    @Test func aWatchIsNotToldOfACommitItsResponseAlreadyHolds() throws {
        let embedded = try EmbeddedServer()
        let writer = embedded.connect()
        let plain = embedded.connect()
        let resuming = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "login.email", "value": "a@b.c"]), from: writer)
        embedded.receive(request(1, "watch", ["paths": ["login.email"]]), from: plain)
        embedded.receive(request(1, "watch", ["paths": ["login.email"], "sinceVersion": 1]), from: resuming)
        embedded.receive(request(2, "graph/set", ["path": "login.email", "value": "d@e.f"]), from: writer)
        embedded.endTurn()
        func seen(_ lines: [JSON]) -> [JSON] {
            lines.map { $0["result"]?["version"] ?? $0["params"]?["changes"]?.arrayValue?.first?["value"] ?? .null }
        }
        #expect(seen(try plain.read()) == [2, "d@e.f"])
        #expect(seen(try resuming.read()) == [2, "a@b.c", "d@e.f"])
        // A pipelined set and watch of one connection, and a batch that sets and then watches.
        let both = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "login.email", "value": "g@h.i"]), from: both)
        embedded.receive(request(2, "watch", ["paths": ["login.email"]]), from: both)
        embedded.receive(
            "[" + request(3, "graph/set", ["path": "login.email", "value": "j@k.l"]) + ","
                + request(4, "watch", ["paths": ["login"]]) + "]", from: both)
        embedded.endTurn()
        // The batch's own watch (2) came after its set: only the earlier watch (1) is told of it.
        let expected: [JSON] = [
            ["jsonrpc": "2.0", "id": 1, "result": ["version": 4]],
            ["jsonrpc": "2.0", "id": 2, "result": ["watch": 1, "version": 4]],
            [["jsonrpc": "2.0", "id": 3, "result": ["version": 5]], ["jsonrpc": "2.0", "id": 4, "result": ["watch": 2, "version": 5]]],
            [
                "jsonrpc": "2.0", "method": "graph/didChange",
                "params": ["watch": 1, "version": 5, "changes": [["path": "login.email", "value": "j@k.l"]]],
            ],
        ]
        #expect(try both.read() == expected)
    }

    /// A connection that closes puts a commit in its turn though it unmounts nothing, at the
    /// version the history holds already: a watch resumed in that turn still gets what it
    /// missed from the history, not a false Compacted or a replay of nothing.
    @Test func aWatchResumedInTheTurnOfAClosingConnectionGetsWhatItMissed() throws {
        let embedded = try EmbeddedServer()
        let writer = embedded.connect()
        let leaving = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "login.email", "value": "a@b.c"]), from: writer)
        embedded.endTurn()
        embedded.hangUp(leaving)
        let resuming = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["login.email"], "sinceVersion": 1]), from: resuming)
        embedded.endTurn()
        let lines = try resuming.read()
        #expect(lines.map { $0["result"]?["version"] ?? $0["params"]?["version"] ?? .null } == [2, 2], "\(lines)")
    }

    /// A `@State` watch made in the turn that unmounted the view at its path and mounted another
    /// there resolves to the new view, and stays with it when the unmount is published.
    @Test func aStateWatchMadeAfterARemountInItsTurnStaysWithTheNewView() throws {
        let embedded = try EmbeddedServer()
        let client = embedded.connect()
        let panel: JSON = ["parent": "/App", "name": "Panel", "state": ["n": 0]]
        embedded.receive(request(1, "view/mount", panel), from: client)
        embedded.endTurn()
        embedded.receive(request(2, "view/unmount", ["path": "/App/Panel"]), from: client)
        embedded.receive(request(3, "view/mount", panel), from: client)
        embedded.receive(request(4, "watch", ["paths": ["/App/Panel.n"]]), from: client)
        embedded.endTurn()
        _ = try client.read()
        embedded.receive(request(5, "graph/set", ["path": "/App/Panel.n", "value": 1]), from: client)
        embedded.endTurn()
        #expect(try client.read().last?["params"]?["changes"] == [["path": "/App/Panel.n", "value": 1]])
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

    /// A pipelining client's answers in one turn go out together, in order; a client that watches
    /// what it writes gets each write's notification between its answer and the next answer.
    @Test func pipelinedAnswersKeepTheirOrderAndAWatchersNotificationsComeBetweenThem() throws {
        let embedded = try EmbeddedServer()
        let quiet = embedded.connect()
        let watching = embedded.connect()
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: watching)
        embedded.endTurn()
        _ = try watching.read()
        for n in 1...3 { embedded.receive(request(n, "graph/set", ["path": "theme.accentColor", "value": .string("q\(n)")]), from: quiet) }
        for n in 2...4 {
            embedded.receive(request(n, "graph/set", ["path": "theme.accentColor", "value": .string("w\(n)")]), from: watching)
        }
        embedded.endTurn()
        #expect(try quiet.read().map { [$0["id"], $0["result"]?["version"]] } == [[1, 2], [2, 3], [3, 4]])
        let lines = try watching.read()
        #expect(
            lines.map { $0["id"] ?? $0["params"]?["version"] ?? .null } == [2, 3, 4, 2, 5, 3, 6, 4, 7],
            "the notifications of quiet's versions 2-4, then each answer (id) before its own version's notification")
        #expect(lines.map { $0["method"] != nil } == [true, true, true, false, true, false, true, false, true])
    }

    /// A pipelining client dropped by the daemon-wide output budget while the turn's commits are
    /// published still gets the answer to its committed write before `connection/dropped` (SPEC
    /// §1.5: the notice comes after whatever was already queued). Its answers go out before the
    /// commits of its lines are published, not after.
    @Test func aPipelinerDroppedByTheBudgetStillGetsTheAnswerToItsWrite() throws {
        let embedded = try EmbeddedServer {
            $0.outputLimits.hard = 1 << 30
            $0.outputLimits.soft = 10_000
            $0.outputLimits.softSeconds = 1000
            $0.outputLimits.budget = 30_000
        }
        let writer = embedded.connect()
        let pipeliner = embedded.connect()
        let watcher = embedded.connect()
        embedded.receive(
            request(1, "graph/set", ["path": "login.email", "value": .string(String(repeating: "x", count: 12_000))]), from: writer)
        embedded.endTurn()
        // Unread: the pipeliner holds the most unsent output.
        for id in 1...2 {
            embedded.receive(request(id, "graph/get", ["path": "login.email"]), from: pipeliner)
            embedded.endTurn()
        }
        embedded.receive(request(1, "watch", ["paths": ["theme.accentColor"]]), from: watcher)
        embedded.endTurn()
        _ = try watcher.read()
        let value = JSON.string(String(repeating: "y", count: 12_000))
        embedded.receive(request(10, "graph/set", ["path": "theme.accentColor", "value": value]), from: pipeliner)
        embedded.receive(request(11, "graph/get", ["path": "theme.fontScale"]), from: pipeliner)
        embedded.endTurn()
        let ids = try pipeliner.read().map { $0["id"] ?? $0["method"] ?? .null }
        #expect(ids.prefix(3) == [1, 2, 10] && ids.last == "connection/dropped", "\(ids)")
        #expect(try watcher.read().count == 1, "the watcher is told of the write")
    }

    /// A line that sends more than its answer (a watch's replay) goes out after the answers of
    /// the lines before it and before those after it.
    @Test func aReplayAmongPipelinedAnswersStaysInItsPlace() throws {
        let embedded = try EmbeddedServer()
        let a = embedded.connect()
        embedded.receive(request(1, "graph/set", ["path": "theme.accentColor", "value": "red"]), from: a)
        embedded.receive(request(2, "graph/set", ["path": "theme.accentColor", "value": "blue"]), from: a)
        embedded.endTurn()
        _ = try a.read()
        // The history holds a turn's commits once it has ended: this watch replays the last turn's.
        embedded.receive(request(1, "graph/get", ["path": "theme.accentColor"]), from: a)
        embedded.receive(request(2, "graph/get", ["path": "theme.accentColor"]), from: a)
        embedded.receive(request(3, "watch", ["paths": ["theme.accentColor"], "sinceVersion": 1]), from: a)
        embedded.receive(request(4, "unwatch", ["watch": 1]), from: a)
        embedded.receive(request(5, "graph/set", ["path": "theme.accentColor", "value": "green"]), from: a)
        embedded.receive(request(6, "graph/get", ["path": "theme.accentColor"]), from: a)
        embedded.endTurn()
        let lines = try a.read()
        #expect(lines.map { $0["id"] ?? $0["method"] ?? .null } == [1, 2, 3, "graph/didChange", "graph/didChange", 4, 5, 6])
        #expect(lines[3...4].map { $0["params"]?["version"] } == [2, 3], "the replay of versions 2 and 3")
        #expect(lines[7]["result"] == "green")
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

/// What one read of a client may make the daemon hold before the turn ends (SPEC §1.5).
@Suite struct TurnOutputTests {
    private let request = EmbeddedServer.request

    /// One read of small requests whose answers are large (a 64 KiB read holds some 900
    /// `graph/get`s of one value) is not answered whole in memory before the turn ends and the
    /// output limits are checked: the client is dropped as soon as its answers pass the hard
    /// limit, and what it sent after that is not run, as for any connection that goes.
    @Test func aReadWhoseAnswersPassTheHardLimitIsCutShortAndTheClientDropped() throws {
        let hard = 64 << 10
        let embedded = try EmbeddedServer {
            $0.outputLimits.hard = hard
            $0.outputLimits.soft = 16 << 10
        }
        let client = embedded.connect()
        let big = String(repeating: "x", count: 8 << 10)
        embedded.receive(request(1, "graph/set", ["path": "theme.accentColor", "value": .string(big)]), from: client)
        embedded.endTurn()
        _ = try client.read()
        let gets = (2..<202).map { request($0, "graph/get", ["path": "theme.accentColor"]) }
        let last = request(202, "graph/set", ["path": "theme.colorScheme", "value": "dark"])
        embedded.receive((gets + [last]).joined(separator: "\n"), from: client)
        #expect(embedded.server.turn.responses.count == 0, "what the dropped client was answered is let go")
        embedded.endTurn()
        let lines = try client.read()
        #expect(lines.map(\.["method"]) == ["connection/dropped"], "it is sent the notice alone: \(lines.count) lines")
        let other = embedded.connect()
        embedded.receive(request(1, "graph/get", ["path": "theme.colorScheme"]), from: other)
        embedded.endTurn()
        #expect(try other.read().first?["result"] == "light", "the line after the limit was not run")
    }

    /// Many clients' reads in one turn are held against the budget of all clients' unsent output
    /// as they are answered: the one whose answers pass it is dropped, and what it was answered is
    /// let go, so a client after it whose answers fit is served.
    @Test func readsWhoseAnswersTogetherPassTheBudgetAreCutShort() throws {
        let budget = 128 << 10
        let embedded = try EmbeddedServer {
            $0.outputLimits.hard = 64 << 10
            $0.outputLimits.soft = 16 << 10
            $0.outputLimits.budget = budget
        }
        let writer = embedded.connect()
        let big = String(repeating: "x", count: 8 << 10)
        embedded.receive(request(1, "graph/set", ["path": "theme.accentColor", "value": .string(big)]), from: writer)
        embedded.endTurn()
        let clients = (0..<4).map { _ in embedded.connect() }
        for (client, count) in zip(clients, [7, 7, 7, 1]) {
            let gets = (1...count).map { request($0, "graph/get", ["path": "theme.accentColor"]) }
            embedded.receive(gets.joined(separator: "\n"), from: client)
        }
        #expect(embedded.server.turn.responses.count <= budget)
        embedded.endTurn()
        let answered = try clients.map { try $0.read().map { $0["method"]?.stringValue ?? "answer" } }
        #expect(answered[0] == Array(repeating: "answer", count: 7) && answered[1] == answered[0])
        #expect(answered[2] == ["connection/dropped"] && answered[3] == ["answer"], "\(answered)")
    }
}
