import Foundation
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

/// The Swift client against a real daemon: results, typed errors, notifications queued in
/// order, pipelining, raw lines, and what happens when the daemon goes.
@Suite(.serialized)
struct MilieuClientTests {
    /// A `watch` whose wait ran out (the daemon was stopped) may still be made when the daemon
    /// goes on: its late answer ends it, where it used to send notifications nobody asked for
    /// for as long as the connection lived (the REPL showed them under no watch).
    @Test func aWatchAnsweredAfterItsTimeoutIsEnded() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        _ = try client.request(InitializeRequest(), timeout: 5)
        let pid = stop(daemon)
        #expect(throws: MilieuClientError.self) { try client.request(WatchRequest(paths: ["theme"]), timeout: 0.2) }
        kill(pid, SIGCONT)
        // The first answer read is the watch's, which sends the unwatch; the second request is
        // answered after the daemon has read that.
        for _ in 0..<2 { _ = try client.request(InitializeRequest(), timeout: 5) }
        let info = try MilieuClient(socketPath: daemon.socketPath).request(DaemonInfoRequest(), timeout: 5)
        #expect(info.watches == 0)
    }

    /// What a watch the client ended itself (answered after its wait ran out) sends before the
    /// daemon reads the `unwatch` is dropped: nobody asked for it, and the REPL showed it under
    /// no watch.
    @Test func aWatchEndedForItsLateAnswerDeliversNothing() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        _ = try client.request(InitializeRequest(), timeout: 5)
        let pid = stop(daemon)
        #expect(throws: MilieuClientError.self) { try client.request(WatchRequest(paths: ["theme.accentColor"]), timeout: 0.2) }
        // Read after the watch is made and before the unwatch, which goes only once its answer is read.
        let set = try client.send(GraphSetRequest(path: "theme.accentColor", value: "teal"))
        kill(pid, SIGCONT)
        #expect(try client.result(of: set, as: GraphSetRequest.self, timeout: 5).version == 2)
        // Answered after the daemon has read the unwatch, and the notifications before it read.
        _ = try client.request(InitializeRequest(), timeout: 5)
        #expect(client.takeNotifications().map(\.method) == [])
    }

    /// A raw line whose wait ran out (the daemon was stopped) and was given up on: the next raw
    /// line gets its own reply, where it used to be handed the late reply to the line before.
    @Test func aRawLineWhoseWaitRanOutDoesNotAnswerTheNextOne() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        _ = try client.request(InitializeRequest(), timeout: 5)
        let pid = stop(daemon)
        try client.sendLine(#"{"jsonrpc":"2.0","id":"first","method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        #expect(throws: MilieuClientError.self) { try client.nextUnmatchedReply(timeout: 0.2) }
        client.giveUpRawReply()
        kill(pid, SIGCONT)
        try client.sendLine(#"{"jsonrpc":"2.0","id":"second","method":"graph/get","params":{"path":"theme.fontScale"}}"#)
        #expect(try client.nextUnmatchedReply(timeout: 5) == ["jsonrpc": "2.0", "id": "second", "result": 1.0])
    }

    /// Waits that run out give nothing up by themselves: a poll loop gets its reply late.
    @Test func aRawReplyWaitedForTwiceInVainStillComes() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        _ = try client.request(InitializeRequest(), timeout: 5)
        let pid = stop(daemon)
        try client.sendLine(#"{"jsonrpc":"2.0","id":"late","method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        for _ in 0..<2 { #expect(throws: MilieuClientError.self) { try client.nextUnmatchedReply(timeout: 0.05) } }
        kill(pid, SIGCONT)
        #expect(try client.nextUnmatchedReply(timeout: 5) == ["jsonrpc": "2.0", "id": "late", "result": "light"])
    }

    /// A raw line's integer id is given to none of the client's own requests while its answer is
    /// owed: the client's next request took that id, and the raw line's late answer for its own.
    @Test func aRawLinesIDIsNotGivenToTheClientsNextRequest() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        _ = try client.request(InitializeRequest(), timeout: 5)  // id 1; the client's next is 2
        let pid = stop(daemon)
        try client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"graph/get","params":{"path":"login.email"}}"#)
        #expect(throws: MilieuClientError.self) { try client.nextUnmatchedReply(timeout: 0.05) }
        client.giveUpRawReply()
        kill(pid, SIGCONT)
        #expect(try client.request(GraphGetRequest(path: "theme.colorScheme"), timeout: 5) == "light")
    }

    /// A raw line with the id of the client's own request still unanswered is not sent: its
    /// answer would be taken for that request's.
    @Test func aRawLineWithTheIDOfAnUnansweredRequestIsNotSent() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        _ = try client.request(InitializeRequest(), timeout: 5)  // id 1
        let pid = stop(daemon)
        #expect(throws: MilieuClientError.self) { try client.request(GraphGetRequest(path: "login.email"), timeout: 0.05) }  // id 2
        let refused = #expect(throws: MilieuClientError.self) {
            try client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        }
        #expect(refused?.code == .idInUse)
        kill(pid, SIGCONT)
        try client.sendLine(#"{"jsonrpc":"2.0","id":"after","method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        #expect(try client.nextUnmatchedReply(timeout: 5)["id"] == "after")
    }

    /// A raw line written over several lines (a pretty-printed request) goes as one: the daemon
    /// answered each of its lines with a parse error, and the later ones answered the lines after.
    @Test func aRawLineWithLineBreaksGoesAsOneLine() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        let pretty = [
            "{", #"  "jsonrpc": "2.0","#, #"  "id": "pretty","#, #"  "method": "graph/get","#,
            #"  "params": {"path": "theme.colorScheme"}"#, "}",
        ]
        try client.sendLine(pretty[..<2].joined(separator: "\n") + "\r\n" + pretty[2...].joined(separator: "\n"))
        #expect(try client.nextUnmatchedReply(timeout: 5) == ["jsonrpc": "2.0", "id": "pretty", "result": "light"])
        try client.sendLine(#"{"jsonrpc":"2.0","id":"next","method":"graph/get","params":{"path":"theme.fontScale"}}"#)
        #expect(try client.nextUnmatchedReply(timeout: 5)["id"] == "next")
    }

    /// A raw line longer than the daemon takes is not sent, where the daemon closed the
    /// connection over it; whitespace alone is sent and awaits nothing.
    @Test func aRawLineTooLongIsNotSentAndABlankOneAwaitsNothing() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        client.daemonMaxLineBytes = 200
        let value = String(repeating: "x", count: 200)
        let long = #"{"jsonrpc":"2.0","method":"graph/set","params":{"path":"login.email","value":""# + value + #""}}"#
        let refused = #expect(throws: MilieuClientError.self) { try client.sendLine(long) }
        #expect(refused?.code == .lineTooLong)
        #expect(try client.sendLine(" \t ") == false)
        try client.sendLine(#"{"jsonrpc":"2.0","id":"after","method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        #expect(try client.nextUnmatchedReply(timeout: 5) == ["jsonrpc": "2.0", "id": "after", "result": "light"])
        #expect(client.isConnected)
    }

    @Test func onlyJSONRPCNotificationsGetNoResponse() {
        #expect(!RawLine(#"{"jsonrpc":"2.0","method":"graph/set","params":{"path":"x","value":1}}"#).expectsResponse)
        #expect(!RawLine(#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]"#).expectsResponse)
        #expect(RawLine(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"x"}}"#).expectsResponse)
        #expect(RawLine(#"{"jsonrpc":"1.0","method":"a"}"#).expectsResponse)
        // The daemon refuses a member it does not know, with an error of id null.
        #expect(RawLine(#"{"jsonrpc":"2.0","method":"graph/get","x":1}"#).expectsResponse)
        #expect(RawLine(#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b","x":1}]"#).expectsResponse)
        #expect(RawLine("[]").expectsResponse)
        #expect(RawLine("not json").expectsResponse)
        // JSON whitespace alone is no message (SPEC §1.3).
        #expect(!RawLine("").expectsResponse)
        #expect(!RawLine(" \t\r").expectsResponse)
    }

    @Test func aRawLinesAnswerCarriesItsIntegerID() {
        #expect(RawLine(#"{"jsonrpc":"2.0","id":7,"method":"graph/get"}"#).id == 7)
        #expect(RawLine(#"{"jsonrpc":"2.0","id":7,"method":"graph/get","x":1}"#).id == 7, "refused, with its id")
        #expect(RawLine(#"{"jsonrpc":"2.0","id":"7","method":"graph/get"}"#).id == nil)
        #expect(RawLine(#"{"jsonrpc":"2.0","id":1e400,"method":"graph/get"}"#).id == nil)
        #expect(RawLine(#"[{"jsonrpc":"2.0","id":7,"method":"graph/get"}]"#).id == nil, "a batch is answered with a list")
    }

    /// Stops `daemon` with SIGSTOP and returns its pid once it is stopped: a signal is
    /// delivered, not done, when `kill` returns.
    private func stop(_ daemon: Daemon) -> pid_t {
        let pid = daemon.process.processIdentifier
        kill(pid, SIGSTOP)
        let stat = "/proc/\(pid)/stat"
        let deadline = Date.now.addingTimeInterval(10)
        while (try? String(contentsOfFile: stat, encoding: .utf8))?.split(separator: " ")[2] != "T", Date.now < deadline {
            usleep(1000)
        }
        return pid
    }

    @Test func aRequestReturnsItsResult() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        #expect(try client.request(GraphGetRequest(path: "theme.fontScale"), timeout: 5) == 1.0)
        #expect(try client.request(GraphSetRequest(path: "login.email", value: "kim@example.com"), timeout: 5).version == 2)
    }

    @Test func aTreeComesInPagesPutTogetherInMountOrder() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        try client.request(ViewMountRequest(declaration: ["parent": "/App", "name": "List"]), timeout: 5)
        for n in 0..<30 {
            try client.request(ViewMountRequest(declaration: ["parent": "/App/List", "name": "Row", "id": .int(n)]), timeout: 5)
        }
        try client.request(ViewMountRequest(declaration: ["parent": "/App/List/Row[3]", "name": "Detail"]), timeout: 5)
        let list = try client.tree(path: "/App/List", pageSize: 7, timeout: 5)
        #expect(list.children?.map(\.path) == (0..<30).map { "/App/List/Row[\($0)]" })
        #expect(list.children?[3].children?.map(\.path) == ["/App/List/Row[3]/Detail"])
        let shallow = try client.tree(depth: 1, timeout: 5)
        #expect(shallow.children?.map(\.childCount) == [30])
    }

    @Test func theDaemonsRefusalIsThrownAsRPCErrorWithItsKindAndData() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        let error = #expect(throws: RPCError.self) {
            try client.request(
                ViewMountRequest(declaration: ["parent": "/App", "name": "CheckoutView", "environmentObjects": ["cart": "Cart"]]),
                timeout: 5)
        }
        #expect(error?.kind == "EnvironmentObjectMissing")
        #expect(error?.code == -32000)
        #expect(error?.data["type"] == "Cart")
        #expect(error?.data["searched"] == ["/App/CheckoutView", "/App"])
    }

    @Test func notificationsThatArriveWhileWaitingAreQueuedInOrder() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        try client.request(WatchRequest(paths: ["theme.colorScheme"]), timeout: 5)
        try client.request(GraphSetRequest(path: "theme.colorScheme", value: "dark"), timeout: 5)
        try client.request(GraphSetRequest(path: "theme.colorScheme", value: "light"), timeout: 5)
        let first = try client.nextNotification(timeout: 5)
        let second = try client.nextNotification(timeout: 5)
        #expect(first.method == "graph/didChange")
        #expect(first.version == 2 && second.version == 3)
        #expect(first.watch == 1)
        #expect(second.params["changes"] == [["path": "theme.colorScheme", "value": "light"]])
    }

    @Test func pipelinedRequestsAreAnsweredByID() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        let set = try client.send(GraphSetRequest(path: "theme.accentColor", value: "red"))
        let get = try client.send(GraphGetRequest(path: "theme.accentColor"))
        #expect(try client.result(of: get, as: GraphGetRequest.self, timeout: 5) == "red")
        #expect(try client.result(of: set, as: GraphSetRequest.self, timeout: 5).version == 2)
    }

    @Test func aRawLineIsAnsweredThroughTheUnmatchedReplies() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        try client.sendLine(#"[{"jsonrpc":"2.0","id":"a","method":"graph/get","params":{"path":"theme.colorScheme"}}]"#)
        #expect(try client.nextUnmatchedReply(timeout: 5) == [["jsonrpc": "2.0", "id": "a", "result": "light"]])
        try client.sendLine("not json")
        #expect(try client.nextUnmatchedReply(timeout: 5)["error"]?["code"] == -32700)
    }

    @Test func aRawLineWithAnIDPastADoublesRangeGetsItsReply() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        try client.sendLine(#"{"jsonrpc":"2.0","id":1e400,"method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        #expect(try client.nextUnmatchedReply(timeout: 5)["result"] == "light")
    }

    @Test func aPollLoopReadsWhatIsAvailableWithoutBlocking() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        let other = try MilieuClient(socketPath: daemon.socketPath)
        try client.request(WatchRequest(paths: ["login.email"]), timeout: 5)
        #expect(try client.receiveAvailable())
        #expect(client.takeNotifications().isEmpty)
        try other.request(GraphSetRequest(path: "login.email", value: "kim@example.com"), timeout: 5)
        var ready = pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5000) == 1)
        #expect(try client.receiveAvailable())
        #expect(client.takeNotifications().map(\.method) == ["graph/didChange"])
    }

    /// A line past the client's bound ends the connection with an error that says so, never a
    /// crash (issue #26, item 1); the bound by default is `MilieuClient.defaultMaxLineBytes`.
    @Test func aLinePastTheClientsLimitIsAnErrorThatSaysSo() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        #expect(MilieuClient.defaultMaxLineBytes == 256 << 20)
        let client = try MilieuClient(socketPath: daemon.socketPath, maxLineBytes: 1024)
        try client.request(GraphSetRequest(path: "theme.accentColor", value: .string(String(repeating: "x", count: 900))), timeout: 5)
        #expect(try client.request(GraphGetRequest(path: "theme.accentColor"), timeout: 5).stringValue?.count == 900)
        try client.request(GraphSetRequest(path: "theme.accentColor", value: .string(String(repeating: "y", count: 200_000))), timeout: 5)
        let error = #expect(throws: MilieuClientError.self) { try client.request(GraphGetRequest(path: "theme.accentColor"), timeout: 5) }
        #expect(error?.code == .lineTooLong)
        #expect(
            error?.message
                == "milieud at \(daemon.socketPath) sent a line longer than this client's limit of 1024 bytes; the connection is closed")
        #expect(!client.isConnected)
    }

    @Test func withNoDaemonConnectingFailsAsNotListening() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: MilieuClientError.self) { try MilieuClient(socketPath: "\(directory)/milieu.sock") }
        #expect(error?.code == .notListening)
    }

    @Test func whenTheDaemonStopsAWaitingRequestFailsAsConnectionClosed() throws {
        let daemon = try Daemon()
        let client = try MilieuClient(socketPath: daemon.socketPath)
        let id = try client.send(ShutdownRequest())
        #expect(try client.result(of: id, as: ShutdownRequest.self, timeout: 5) == EmptyResult())
        daemon.stop()
        let error = #expect(throws: MilieuClientError.self) { try client.request(GraphGetRequest(path: "login.email"), timeout: 5) }
        #expect(error?.code == .connectionClosed)
        #expect(!client.isConnected)
    }

    @Test func aResponseThatDoesNotComeInTimeIsATimeout() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        let error = #expect(throws: MilieuClientError.self) { try client.nextNotification(timeout: 0.05) }
        #expect(error?.code == .timedOut)
        #expect(client.isConnected)
    }
}
