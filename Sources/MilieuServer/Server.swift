import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuStore
import MilieuTransport

#if canImport(Glibc)
import Glibc
#endif

/// milieud's core: reads requests from every connection, applies them to the graph in
/// arrival order, answers each exactly once, and fans the resulting notifications out to
/// the watches they concern — after the response, in commit order (SPEC §8.3).
///
/// Threading: everything here runs on the event loop's thread; there is no other.
public final class Server: ConnectionHandler {
    let configuration: ServerConfiguration
    let graph: Graph
    let loop: EventLoop
    var sessions: [Int: ClientSession] = [:]
    let watches = WatchRegistry()
    /// The bytes of unfinished lines held for each session, against `maxBufferedInputBytes`.
    var bufferedInput = BufferedBytes()
    /// The unsent output of each session holding at least `OutputLimits.tracked`, against `OutputLimits.budget`.
    var bufferedOutput = BufferedBytes()
    var history: History
    /// The log's id with a data directory (new when the store is new or recovered), else new at
    /// every start: a client resumes watches while it stays the same.
    let instance: String
    /// The durable state; nil with --ephemeral.
    let store: Store?
    /// What this loop turn will send once its changes are committed to the store.
    var turn: [TurnOutput] = []
    private var listener: UnixListener?
    /// While the log cannot be written: the wait before the next attempt at the backlog.
    private var retryDelay: Double?
    private var shuttingDown = false
    /// Set by the `shutdown` method: nothing after it is executed (SPEC §9.14).
    var stopping = false
    private let notifier = SystemdNotifier()
    var log: Logger { configuration.logger }

    /// A server on `loop`; with a data directory, the stored state is opened and brought back
    /// first, versions continue after the last one logged, and the history the log retains is
    /// read back, so that a watch resumes across the restart.
    public init(configuration: ServerConfiguration, loop: EventLoop) throws {
        self.configuration = configuration
        self.loop = loop
        self.graph = try Graph(scene: configuration.scene, limits: configuration.limits)
        self.history = History(capacity: configuration.historyLength, maxBytes: configuration.historyBytes)
        let log = configuration.logger
        if let directory = configuration.dataDirectory {
            var options = StoreOptions()
            options.fsync = configuration.fsync
            options.recover = configuration.recover
            options.retainedVersions = configuration.historyLength
            options.retainedBytes = configuration.historyBytes
            let store = try Store(directory: directory, options: options)
            for notice in store.notices { log.warning(notice) }
            Persistence.restore(store.state, into: graph, log: log)
            graph.continueVersions(after: Version(store.lastVersion))
            for record in store.history where record.version <= graph.version.rawValue {
                guard let commit = Persistence.commit(version: record.version, historyBytes: record.history, graph) else { break }
                history.append(commit, size: record.size)
            }
            try store.start(nextVersion: graph.version.rawValue + 1)
            self.store = store
            // The log's id: the same while versions continue, so clients resume across a restart.
            self.instance = String(store.logID, radix: 16)
            let kept = history.oldest.map { ", history from version \($0)" } ?? ""
            log.info("state kept in \(store.path) and its log (fsync \(configuration.fsync.rawValue)), at version \(graph.version)\(kept)")
        } else {
            self.store = nil
            var generator = SystemRandomNumberGenerator()
            self.instance = String(generator.next() as UInt64, radix: 16)
        }
    }

    /// Serves `listener` until `shutdown`, SIGTERM or SIGINT; then closes every connection
    /// and removes the socket.
    public func run(listener: UnixListener) throws {
        self.listener = listener
        try loop.handleSignals([SIGTERM, SIGINT]) { [unowned self] signal in
            log.info("signal \(signal): shutting down")
            requestShutdown()
        }
        try loop.serve(listener: listener, handler: self)
        scheduleHousekeeping()
        log.info("listening on \(listener.path ?? "an inherited socket") (protocol \(ProtocolInfo.version), pid \(getpid()))")
        try? notifier.ready()
        try loop.run()
        loop.close()
        listener.close()
        store?.close()
        log.info("stopped")
    }

    /// Stops accepting, lets every connection flush what it was sent, then stops the loop.
    public func requestShutdown() {
        guard !shuttingDown else { return }
        shuttingDown = true
        try? notifier.stopping()
        // What was already read is answered: the turn's output goes out before the connections close.
        loopTurnEnded()
        if let listener {
            loop.stopServing(listener)
            listener.close()
        }
        for session in sessions.values { session.connection.closeAfterFlush(timeout: 2) }
        waitForConnectionsToClose(deadline: 150)
    }

    private func waitForConnectionsToClose(deadline turns: Int) {
        if loop.connectionCount == 0 || turns == 0 {
            loop.stop()
            return
        }
        loop.schedule(after: 0.02) { [unowned self] in waitForConnectionsToClose(deadline: turns - 1) }
    }

    // MARK: ConnectionHandler

    public func connectionOpened(_ connection: Connection) { opened(connection) }

    public func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) { received(bytes, from: connection) }

    /// A connection closed: its watches go, and the views it mounted without `retain` (rule 15).
    public func connectionClosed(_ connection: Connection, reason: ConnectionCloseReason) { closed(connection, reason: reason) }

    /// A client accepted on the reserve descriptor at the descriptor limit is told so before it is closed.
    public func refusalAtDescriptorLimit() -> [UInt8] {
        let limit = DescriptorLimit.current
        log.warning("refused a connection: all \(limit) descriptors are in use")
        return Envelope.errorLine(id: .null, .limitExceeded("descriptors", max: limit))
    }

    // MARK: Connections

    /// A client connected: it gets a session, or is refused with a reason.
    func opened(_ connection: any PeerConnection) {
        guard connection.peer.uid == geteuid() else {
            log.warning("refused connection \(connection.id) from uid \(connection.peer.uid) (pid \(connection.peer.pid))")
            connection.send(Envelope.errorLine(id: .null, .forbiddenPeer(uid: connection.peer.uid)))
            connection.closeAfterFlush()
            return
        }
        guard !shuttingDown else {
            connection.close()
            return
        }
        guard sessions.count < configuration.maxConnections else {
            log.warning("refused connection \(connection.id): \(configuration.maxConnections) connections already open")
            connection.send(Envelope.errorLine(id: .null, .limitExceeded("connections", max: configuration.maxConnections)))
            connection.closeAfterFlush()
            return
        }
        sessions[connection.id] = ClientSession(connection: connection, maxLineBytes: configuration.maxLineBytes)
        log.debug("connection \(connection.id) opened by pid \(connection.peer.pid)")
    }

    /// Bytes arrived: each complete line is answered in this turn.
    func received(_ bytes: UnsafeRawBufferPointer, from connection: any PeerConnection) {
        guard let session = sessions[connection.id] else { return }
        let linesBefore = session.framer.completedLines
        defer { noteUnfinishedLine(of: session, restarted: session.framer.completedLines != linesBefore) }
        session.framer.feed(bytes) { frame in
            guard !stopping else { return }
            switch frame {
            case .line(let line): handleLine(line, session: session)
            case .tooLarge(let size):
                log.warning("connection \(connection.id) sent a line of \(size)+ bytes, over \(configuration.maxLineBytes); closing it")
                closeAfter(.messageTooLarge(limit: configuration.maxLineBytes), to: session)
            }
        }
    }

    /// Sends `error` (id null) to `session` after the answers to what it sent before, which go
    /// out with the turn, then closes it.
    func closeAfter(_ error: RPCError, to session: ClientSession) {
        var line = JSONWriter()
        line.writeRaw(Envelope.errorLine(id: .null, error))
        turn.append(
            TurnOutput(
                session: session, response: line, followUps: JSONWriter(), commits: [], failureIDs: [], isBatch: false,
                wrote: false, closeAfter: true))
    }

    /// A connection closed: its watches go, and the views it mounted without `retain` (rule 15).
    func closed(_ connection: any PeerConnection, reason: ConnectionCloseReason) {
        guard sessions.removeValue(forKey: connection.id) != nil else { return }
        log.debug("connection \(connection.id) closed: \(reason)")
        bufferedInput.set(0, for: connection.id)
        bufferedOutput.set(0, for: connection.id)
        watches.removeAll(connection: connection.id)
        unmountViews(of: ConnectionID(connection.id))
    }

    /// Views unmounted per loop turn when a connection closes: about 3 ms of teardown on a
    /// 2-vCPU machine (`milieu-bench engine`: 80,000 in 0.19 s), so that a connection that
    /// mounted 100,000 views does not stall everyone else for its close.
    static let viewsUnmountedPerTurn = 1000

    /// Unmounts the next share of a closed connection's views in this turn, and the rest in the
    /// turns that follow, each share one commit.
    private func unmountViews(of connection: ConnectionID) {
        let commit = graph.connectionClosed(connection, upTo: Self.viewsUnmountedPerTurn)
        if let store, !commit.isEmpty { Persistence.stage(commit, of: graph, in: store) }
        turn.append(
            TurnOutput(
                session: nil, response: JSONWriter(), followUps: JSONWriter(), commits: [commit], failureIDs: [], isBatch: false,
                wrote: true, closeAfter: false))
        guard graph.isClosing(connection) else { return }
        loop.schedule(after: 0) { [weak self] in self?.unmountViews(of: connection) }
    }

    /// The end of a loop turn: the turn's records are appended to the log with one `write()`,
    /// then its responses and notifications are handed to the connections, which write them out
    /// right after. So a response is only sent once what it acknowledges is in the log.
    public func loopTurnEnded() {
        guard !turn.isEmpty else { return }
        var durable = true
        if let store, store.hasStaged {
            do {
                try store.commit()
            } catch {
                durable = false
                diskFailed(error)
            }
        }
        let output = turn
        turn.removeAll(keepingCapacity: true)
        for entry in output {
            if let session = entry.session, sessions[session.id] != nil, !session.dropped {
                if !durable && entry.wrote {
                    session.send(entry.notDurableReply())
                } else if entry.response.count > 0 {
                    session.send(entry.response)
                }
                if entry.followUps.count > 0 { session.send(entry.followUps) }
                if entry.closeAfter { session.connection.closeAfterFlush() }
                enforceOutputLimits(session)
            }
            for commit in entry.commits { publish(commit) }
        }
    }

    // MARK: A full disk

    /// The log could not be written: the records wait in the store's backlog and are retried
    /// with backoff (10 ms, doubling to 1 s), in chunks, between turns. One line per episode.
    private func diskFailed(_ error: StoreError) {
        guard retryDelay == nil else { return }
        log.error("could not write the log, changes are kept in memory and retried until the disk allows: \(error)")
        retryDelay = Self.firstRetryDelay
        scheduleBacklogRetry()
    }

    private static let firstRetryDelay = 0.01
    private static let lastRetryDelay = 1.0
    /// Bytes of waiting records written per attempt, so that one attempt stays short.
    private static let backlogChunk = 1 << 20

    private func scheduleBacklogRetry() {
        guard let delay = retryDelay else { return }
        _ = loop.schedule(after: delay) { [unowned self] in retryBacklog() }
    }

    private func retryBacklog() {
        guard let store, let delay = retryDelay else { return }
        do {
            if try store.writeBacklog(maxBytes: Self.backlogChunk) {
                retryDelay = nil
                log.info("the log is written again: every change kept in memory is on disk")
                return
            }
            retryDelay = 0
        } catch {
            retryDelay = min(max(delay * 2, Self.firstRetryDelay), Self.lastRetryDelay)
        }
        scheduleBacklogRetry()
    }

    // MARK: Requests

    private func handleLine(_ line: UnsafeRawBufferPointer, session: ClientSession) {
        var isBatch = false
        var writer = JSONWriter()
        var commits: [Commit] = []
        var followUps = JSONWriter(capacity: 0)  // only a resumed watch writes here
        var ids: [RequestID] = []
        if let hot = HotRequest.read(line) {
            answer(
                hot.id, of: hot.method, with: reply(to: hot, session: session), session: session, into: &writer,
                room: configuration.outputLimits.hard, commits: &commits, followUps: &followUps)
            ids.append(hot.id)
        } else {
            handleGeneralLine(line, session: session, into: &writer, isBatch: &isBatch, commits: &commits, followUps: &followUps, ids: &ids)
        }
        if writer.count > 0 { writer.writeRaw(UInt8(ascii: "\n")) }
        var wrote = false
        if let store { for commit in commits where Persistence.stage(commit, of: graph, in: store) { wrote = true } }
        turn.append(
            TurnOutput(
                session: session, response: writer, followUps: followUps, commits: commits, failureIDs: ids, isBatch: isBatch,
                wrote: wrote, closeAfter: false))
    }

    /// Answers a line that is not a hot request (`HotRequest`): parsed as a whole, a request or a batch.
    private func handleGeneralLine(
        _ line: UnsafeRawBufferPointer, session: ClientSession, into writer: inout JSONWriter, isBatch: inout Bool,
        commits: inout [Commit], followUps: inout JSONWriter, ids: inout [RequestID]
    ) {
        switch IncomingMessage.parse(line) {
        case .failure(let error):
            Envelope.error(id: .null, error, into: &writer)
        case .success(.single(let message)):
            respond(
                to: message, session: session, into: &writer, room: configuration.outputLimits.hard, commits: &commits,
                followUps: &followUps)
            if case .request(let request) = message, let id = request.id { ids.append(id) }
        case .success(.batch(let messages)):
            isBatch = true
            var elements = JSONWriter()
            var first = true
            for message in messages {
                var element = JSONWriter()
                respond(
                    to: message, session: session, into: &element, room: configuration.outputLimits.hard - elements.count,
                    commits: &commits, followUps: &followUps)
                if case .request(let request) = message, let id = request.id { ids.append(id) }
                guard element.count > 0 else { continue }
                elements.writeRaw(first ? UInt8(ascii: "[") : UInt8(ascii: ","))
                elements.writeRaw(element.bytes)
                first = false
            }
            if !first {
                elements.writeRaw(UInt8(ascii: "]"))
                writer = elements
            }
        }
    }

    /// Answers one message into `writer`, which is empty (nothing for a notification), and collects
    /// its commit. A result whose response would take more than `room` bytes is answered with
    /// `ResultTooLarge` instead: queued, it would pass the output hard limit and get its reader
    /// dropped as a slow consumer (SPEC §1.5). What the request committed stays committed.
    private func respond(
        to message: RequestOrError, session: ClientSession, into writer: inout JSONWriter, room: Int, commits: inout [Commit],
        followUps: inout JSONWriter
    ) {
        let request: Request
        switch message {
        case .invalid(let id, let error):
            Envelope.error(id: id, error, into: &writer)
            return
        case .request(let valid): request = valid
        }
        let reply = run { () throws(RPCError) in
            if let error = request.paramsError { throw error }
            return try perform(request, session: session)
        }
        answer(
            request.id, of: request.method, with: reply, session: session, into: &writer, room: room, commits: &commits,
            followUps: &followUps)
    }

    /// Runs a hot request as `respond(to:)` runs any other.
    private func reply(to request: HotRequest, session: ClientSession) -> Result<Reply, RPCError> {
        run { () throws(RPCError) in try perform(request, session: session) }
    }

    /// Runs a method unless the daemon is stopping, its error as a failure.
    private func run(_ method: () throws(RPCError) -> Reply) -> Result<Reply, RPCError> {
        do throws(RPCError) {
            if stopping { throw RPCError.internalError("shutting down") }
            return .success(try method())
        } catch {
            return .failure(error)
        }
    }

    /// Collects a method's commit and follow-up lines, and writes its response into `writer`
    /// unless `id` is nil (a notification), within `room` bytes (see `respond(to:)`).
    private func answer(
        _ id: RequestID?, of method: String, with reply: Result<Reply, RPCError>, session: ClientSession,
        into writer: inout JSONWriter, room: Int, commits: inout [Commit], followUps: inout JSONWriter
    ) {
        if case .success(let done) = reply {
            if let commit = done.commit { commits.append(commit) }
            if let extra = done.followUps { followUps.writeRaw(extra.bytes) }
        }
        guard let id else { return }
        switch reply {
        case .success(let done):
            switch done.result {
            case .json(let result): Envelope.result(id: id, result, into: &writer)
            case .version(let version): Envelope.versionResult(id: id, version: version, into: &writer)
            }
            if writer.count > room {
                let size = writer.count
                writer.removeAll(keepingCapacity: false)
                log.info("connection \(session.id): the result of \(method) is \(size) bytes, over the output limit; refused")
                Envelope.error(
                    id: id, .resultTooLarge(method: method, size: size, limit: configuration.outputLimits.hard), into: &writer)
            }
        case .failure(let error): Envelope.error(id: id, error, into: &writer)
        }
    }

    /// Records a commit and sends each watcher its notifications. A commit with no changes
    /// (a registration, a change of what a view provides) took a version all the same.
    func publish(_ commit: Commit) {
        guard commit.version > (history.newest ?? Version(0)) else { return }
        history.append(commit, size: store?.stagedSize(of: commit.version.rawValue) ?? 0)
        guard !commit.isEmpty else { return }
        let fanOut = watches.notifications(for: commit)
        // The parts come one connection after another: each session is looked up once, and its
        // output limits checked once all of its share is queued.
        var receiver: (connection: Int, session: ClientSession?)?
        for (connection, part) in fanOut.parts {
            if receiver?.connection != connection {
                if let previous = receiver?.session { enforceOutputLimits(previous) }
                receiver = (connection, sessions[connection].flatMap { $0.dropped ? nil : $0 })
            }
            guard let session = receiver?.session else { continue }
            switch part {
            case .text(let run): fanOut.text.bytes[run].withUnsafeBytes { session.connection.send($0) }
            case .shared(let bytes): session.connection.send(shared: bytes)
            }
        }
        if let last = receiver?.session { enforceOutputLimits(last) }
    }

    /// Drops a client that does not read what it is sent (SPEC §1.5), with a last notice saying why,
    /// so that one slow reader cannot hold the daemon's memory; and, past the daemon-wide budget,
    /// the clients with the most unsent output. Called when output is queued and by the timer.
    func enforceOutputLimits(_ session: ClientSession) {
        guard !session.dropped else { return }
        let pending = session.connection.pendingOutputBytes
        let limits = configuration.outputLimits
        let reason: String
        if pending > limits.hard {
            reason = "its unsent output passed the hard limit of \(limits.hard) bytes"
        } else if pending > limits.soft {
            let now = ContinuousClock.now
            if let since = session.overSoftLimitSince, now - since > .seconds(limits.softSeconds) {
                reason = "its unsent output stayed over \(limits.soft) bytes for \(limits.softSeconds) s"
            } else {
                if session.overSoftLimitSince == nil { session.overSoftLimitSince = now }
                trackOutput(of: session, pending)
                return
            }
        } else {
            session.overSoftLimitSince = nil
            trackOutput(of: session, pending)
            return
        }
        drop(session, because: reason, pending: pending)
    }

    /// Ends a session that does not read, after a last `connection/dropped` notice.
    func drop(_ session: ClientSession, because reason: String, pending: Int) {
        session.dropped = true
        bufferedOutput.set(0, for: session.id)
        log.warning("dropping connection \(session.id): it does not read; \(reason)")
        var notice = JSONWriter()
        ServerNotification.connectionDropped(reason: "slowConsumer", message: "dropped: \(reason)", pendingBytes: pending).write(
            into: &notice)
        session.send(notice)
        session.connection.closeAfterFlush(timeout: 5)
    }
}

/// One line's share of a loop turn: its response, what must follow it, the commits it made,
/// and the ids to answer with an error if the turn's changes could not be written.
struct TurnOutput {
    let session: ClientSession?
    let response: JSONWriter
    let followUps: JSONWriter
    let commits: [Commit]
    let failureIDs: [RequestID]
    let isBatch: Bool
    /// Whether it staged writes to the store: only those answers depend on the commit.
    let wrote: Bool
    /// The connection is closed once this has been written (after MessageTooLarge).
    let closeAfter: Bool

    /// The response sent instead when the store could not take the turn's changes.
    func notDurableReply() -> JSONWriter {
        let error = RPCError.internalError(
            "the change is applied in memory but could not be written to the database; it will be written when the disk allows")
        var writer = JSONWriter()
        if isBatch { writer.writeRaw(UInt8(ascii: "[")) }
        for (index, id) in failureIDs.enumerated() {
            if index > 0 { writer.writeRaw(UInt8(ascii: ",")) }
            Envelope.error(id: id, error, into: &writer)
        }
        if isBatch { writer.writeRaw(UInt8(ascii: "]")) }
        if !failureIDs.isEmpty { writer.writeRaw(UInt8(ascii: "\n")) }
        return writer
    }
}

/// What a method produced: its result, the transaction it committed, and lines that must
/// follow its response (a resumed watch's replay).
struct Reply {
    var result: ReplyResult
    var commit: Commit?
    var followUps: JSONWriter?

    init(result: JSON, commit: Commit? = nil, followUps: JSONWriter? = nil) {
        self.result = .json(result)
        self.commit = commit
        self.followUps = followUps
    }

    /// A write's reply: its result is only the version, written from a template.
    init(version: Int, commit: Commit) {
        self.result = .version(version)
        self.commit = commit
        self.followUps = nil
    }
}

/// A method's result: any JSON, or only a version (`VersionResult`), which most requests answer.
enum ReplyResult {
    case json(JSON)
    case version(Int)
}
