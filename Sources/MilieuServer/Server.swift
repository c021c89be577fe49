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
    /// By connection id (`IDTable`: one is looked up for every read).
    var sessions = IDTable<ClientSession>()
    /// The paths hot requests named last, read again as the same strings.
    private var recentPaths = RecentPaths()
    let watches = WatchRegistry()
    /// The bytes of unfinished lines held for each session, against `maxBufferedInputBytes`.
    var bufferedInput = BufferedBytes()
    /// The unsent output of each session holding at least `OutputLimits.tracked`, against `OutputLimits.budget`.
    var bufferedOutput = BufferedBytes()
    var history: History
    /// The log's id with a data directory (new when the store is new or recovered), else new at
    /// every start: a client resumes watches while it stays the same.
    let instance: String
    /// When the server was made: `daemon/info`'s uptime counts from here.
    let startedAt = ContinuousClock.now
    /// The durable state; nil with --ephemeral.
    let store: Store?
    /// The head of the last `P` entry written into a record's history that was short enough to
    /// keep (`Persistence.writeHistory`).
    private var objectHead = WrittenMemo()
    /// What the restore at start brought back and dropped; nil without a data directory.
    let restore: RestoreReport?
    /// What this loop turn will send once its changes are committed to the store.
    var turn = Turn()
    /// The turn being handed to the connections; lines added meanwhile (a connection that closes
    /// takes its views with it) go to `turn`, for the next hand-over. Kept to reuse its storage.
    private var sending = Turn()
    private var listener: UnixListener?
    /// The path clients connect to; nil before `run`, and for a socket inherited from systemd
    /// whose path is not known.
    var socketPath: String? { listener?.path }
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
            self.restore = Persistence.restore(store.state, into: graph, at: Version(store.lastVersion), log: log)
            for record in store.history where record.version <= graph.version.rawValue {
                guard
                    let commit = Persistence.commit(version: record.version, historyBytes: record.history, writes: record.allWrites, graph)
                else { break }
                history.append(commit, size: record.size)
            }
            // A log that stops short of the state (a power loss, with the snapshot synced later)
            // leaves versions no record holds: nothing before them can be resumed from.
            if history.newest != graph.version { history.removeAll() }
            try store.start(nextVersion: graph.version.rawValue + 1)
            self.store = store
            // The log's id: the same while versions continue, so clients resume across a restart.
            self.instance = String(store.logID, radix: 16)
            let kept = history.oldest.map { ", history from version \($0)" } ?? ""
            log.info("state kept in \(store.path) and its log (fsync \(configuration.fsync.rawValue)), at version \(graph.version)\(kept)")
        } else {
            self.store = nil
            self.restore = nil
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
        if let lost = store?.close() {
            log.error(
                "the disk did not take versions \(lost.lowerBound)–\(lost.upperBound) before milieud stopped: those changes are lost, and the next start gives their version numbers to new changes"
            )
        }
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
    package func opened(_ connection: any PeerConnection) {
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
    package func received(_ bytes: UnsafeRawBufferPointer, from connection: any PeerConnection) {
        guard let session = sessions[connection.id] else { return }
        let linesBefore = session.framer.completedLines
        defer { noteUnfinishedLine(of: session, restarted: session.framer.completedLines != linesBefore) }
        // The turn holds its answers until it ends, where the output limits are checked (SPEC
        // §1.5): one read of small requests for large answers, or many clients' reads, must not
        // hold more than the limits allow before then. So each line's answer is counted at once,
        // with what the client has not read yet, against the hard limit, and with every client's
        // unsent output against the budget.
        // A client dropped here is sent none of them: what it was answered in this read is let go.
        let limits = configuration.outputLimits
        let queued = connection.pendingOutputBytes
        let readStart = turn.start
        session.framer.feed(bytes) { frame in
            guard !stopping, !session.dropped else { return }
            switch frame {
            case .line(let line):
                handleLine(line, session: session)
                let answered = turn.answerBytes(since: readStart)
                let reason: String
                if queued + answered > limits.hard {
                    reason = "its answers to one read passed the hard limit of \(limits.hard) bytes"
                } else if bufferedOutput.total + turn.answerBytes(since: nil) > limits.budget {
                    reason = "its answers took the unsent output of all clients past \(limits.budget) bytes"
                } else {
                    return
                }
                turn.discardAnswers(since: readStart)
                drop(session, because: reason, pending: queued + answered)
            case .tooLarge(let size):
                log.warning("connection \(connection.id) sent a line of \(size)+ bytes, over \(configuration.maxLineBytes); closing it")
                closeAfter(.messageTooLarge(limit: configuration.maxLineBytes), to: session)
            }
        }
    }

    /// Sends `error` (id null) to `session` after the answers to what it sent before, which go
    /// out with the turn, then closes it.
    func closeAfter(_ error: RPCError, to session: ClientSession) {
        let start = turn.start
        turn.responses.writeRaw(Envelope.errorLine(id: .null, error))
        turn.endLine(from: start, connection: session.id, closeAfter: true)
    }

    /// A connection closed: its watches go, and the views it mounted without `retain` (rule 15).
    package func closed(_ connection: any PeerConnection, reason: ConnectionCloseReason) {
        guard let session = sessions.removeValue(forKey: connection.id) else { return }
        session.closed = true
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
        if let store, !commit.isEmpty { Persistence.stage(commit, of: graph, in: store, objectHead: &objectHead) }
        let start = turn.start
        turn.append(commit, cause: StoredCause(closing: connection.rawValue), printLines: printLines(of: commit))
        turn.endLine(from: start, connection: nil, wrote: true)
        guard graph.isClosing(connection) else { return }
        loop.schedule(after: 0) { [unowned self] in unmountViews(of: connection) }
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
        swap(&turn, &sending)
        /// Whether all `line` sends is its answer, as written.
        func answersOnly(_ line: Turn.Line) -> Bool { line.followUps.isEmpty && !line.closeAfter && (durable || !line.wrote) }
        /// Whether `line` is `session`'s, sends only its answer, and that follows `response` in the turn's buffer.
        func joins(_ line: Turn.Line, _ session: ClientSession, after response: Range<Int>) -> Bool {
            line.connection == session.id && line.response.lowerBound == response.upperBound && answersOnly(line)
        }
        var position = 0
        while position < sending.lines.count {
            let line = sending.lines[position]
            // The lines [position, end) are sent, then their commits published.
            var end = position + 1
            // A closed connection's session is no longer in `sessions`.
            if let connection = line.connection, let session = sessions[connection], !session.dropped {
                // The answers of the lines after it of the same connection that send only their
                // answer go out with it, in one send and one check of its output limits (a
                // pipelining client's lines come one after another), and before the commits of
                // any of them are published: for a connection that watches nothing, which those
                // notifications cannot reach before an answer (SPEC §8.3).
                if answersOnly(line), end < sending.lines.count, joins(sending.lines[end], session, after: line.response),
                    watches.count(connection: session.id) == 0
                {
                    var response = line.response
                    while end < sending.lines.count, joins(sending.lines[end], session, after: response) {
                        response = response.lowerBound..<sending.lines[end].response.upperBound
                        end += 1
                    }
                    sending.responses.withBytes(in: response) { session.connection.send($0) }
                    enforceOutputLimits(session)
                } else {
                    send(line, to: session, durable: durable)
                }
            }
            for sent in position..<end {
                for index in sending.lines[sent].commits {
                    guard let made = sending.takeCommit(index) else { continue }
                    publish(
                        made.commit, cause: made.cause, printLines: sending.printLines[index] ?? Dictionary(),
                        last: index == sending.commits.count - 1)
                }
            }
            position = end
        }
        watches.endHoldBack()
        sending.reset()
    }

    /// Hands `session` what `line` of the turn being sent has for it: its answer, or the error
    /// saying that the log could not take its writes; what follows the answer (a watch's
    /// replay); and the close that a line too long asked for.
    private func send(_ line: Turn.Line, to session: ClientSession, durable: Bool) {
        if !durable && line.wrote {
            session.send(sending.notDurableReply(for: line))
        } else if !line.response.isEmpty {
            sending.responses.withBytes(in: line.response) { session.connection.send($0) }
        }
        if !line.followUps.isEmpty { sending.followUps.withBytes(in: line.followUps) { session.connection.send($0) } }
        if line.closeAfter { session.connection.closeAfterFlush() }
        enforceOutputLimits(session)
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
        let start = turn.start
        var isBatch = false
        let wrote: Bool
        // Each case bound apart: an optional `HotRequest` bound whole was destroyed through its
        // generic value witness, some 165 instructions a write (callgrind).
        switch HotRequest.read(line, recentPaths: &recentPaths) {
        case .set(let id, let set)?:
            wrote = answerHot(id: id, of: GraphSetRequest.name, path: set.path, session: session, start: start) {
                () throws(RPCError) in try perform(set, session: session)
            }
        case .get(let id, let get)?:
            wrote = answerHot(id: id, of: GraphGetRequest.name, path: nil, session: session, start: start) {
                () throws(RPCError) in try get.perform(in: self, session: session)
            }
        case nil:
            (isBatch, wrote) = handleGeneralLine(line, session: session, from: start)
        }
        if turn.responses.count > start.response { turn.responses.writeRaw(UInt8(ascii: "\n")) }
        turn.endLine(from: start, connection: session.id, isBatch: isBatch, wrote: wrote)
    }

    /// Answers a hot request (`HotRequest`) `id` of `method`, naming `path`, with what `perform`
    /// does; whether that staged writes to the store.
    private func answerHot(
        id: RequestID, of method: String, path: String?, session: ClientSession, start: Turn.Start,
        _ perform: () throws(RPCError) -> Reply
    ) -> Bool {
        let reply = run(perform)
        turn.ids.append(id)
        write(reply, id: id, of: method, session: session, into: &turn.responses, from: start.response, lineStart: start.response)
        return collect(reply) { StoredCause.hot(method: method, path: path, session: session) }
    }

    /// Answers a line that is not a hot request (`HotRequest`), parsed as a whole: a request or a
    /// batch; whether it was a batch, and whether it staged writes to the store.
    private func handleGeneralLine(
        _ line: UnsafeRawBufferPointer, session: ClientSession, from start: Turn.Start
    ) -> (isBatch: Bool, wrote: Bool) {
        switch IncomingMessage.parse(line) {
        case .failure(let error):
            Envelope.error(id: .null, error, into: &turn.responses)
            return (false, false)
        case .success(.single(let message)):
            let (id, method, reply) = run(message, session: session)
            if case .request(let request) = message, let id = request.id { turn.ids.append(id) }
            write(reply, id: id, of: method, session: session, into: &turn.responses, from: start.response, lineStart: start.response)
            return (false, collect(reply, cause: message, session: session))
        case .success(.batch(let messages)):
            // The array, and each element's answer, at its place in it.
            var array = JSONWriter()
            var answers: [Turn.BatchAnswer] = []
            var wrote = false
            for message in messages {
                let (id, method, reply) = run(message, session: session)
                let elementStart = array.count
                array.writeRaw(elementStart == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
                write(reply, id: id, of: method, session: session, into: &array, from: elementStart + 1, lineStart: 0)
                let elementWrote = collect(reply, cause: message, session: session)
                if elementWrote { wrote = true }
                if let id, array.count > elementStart + 1 {
                    answers.append(Turn.BatchAnswer(id: id, bytes: (elementStart + 1)..<array.count, wrote: elementWrote))
                } else {
                    array.truncate(to: elementStart)
                }
            }
            if array.count > 0 {
                array.writeRaw(UInt8(ascii: "]"))
                let base = turn.responses.count
                turn.responses.writeRaw(array)
                for answer in answers {
                    let bytes = (base + answer.bytes.lowerBound)..<(base + answer.bytes.upperBound)
                    turn.batchAnswers.append(Turn.BatchAnswer(id: answer.id, bytes: bytes, wrote: answer.wrote))
                }
            }
            return (true, wrote)
        }
    }

    /// Runs one message: its reply, and the id (nil for a notification) and method to answer it
    /// under. An envelope that is not a valid request is answered with its error.
    private func run(_ message: RequestOrError, session: ClientSession) -> (id: RequestID?, method: String, reply: Result<Reply, RPCError>)
    {
        switch message {
        case .invalid(let id, let error): return (id, "", .failure(error))
        case .request(let request):
            let reply = run { () throws(RPCError) in try perform(request, session: session) }
            return (request.id, request.method, reply)
        }
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

    /// The `_printChanges` lines of `commit`'s undeclared views that a watch of every view's line
    /// covers, while the graph is as the commit left it (SPEC §10.1, `printChanges`).
    func printLines(of commit: Commit) -> [Int: String] {
        // Asked first, so that a commit nobody prints lines for makes no closure (its context
        // retained the graph). `Dictionary()`, not the literal `[:]`, which calls the literal
        // initializer: this runs for every commit.
        guard watches.printsAnyChanges else { return Dictionary() }
        return watches.printLines(of: commit) { [graph] in graph.printChangesLine(of: $0, reasons: $1, isNew: $2) }
    }

    /// Keeps a method's commit, with what made it, and its follow-up lines in the turn, and
    /// stages its record in the store, with the graph as the commit left it; whether that staged
    /// writes. Last of a reply's uses, after its answer is written, so that the commit is moved
    /// into the turn, not copied; staged first, since the turn takes it.
    private func collect(_ reply: consuming Result<Reply, RPCError>, cause: () -> StoredCause) -> Bool {
        guard case .success(let done) = consume reply else { return false }
        if let extra = done.followUps { turn.followUps.writeRaw(extra) }
        guard let commit = done.commit else { return false }
        let wrote = store.map { Persistence.stage(commit, of: graph, in: $0, objectHead: &objectHead) } ?? false
        let lines = printLines(of: commit)
        turn.append(commit, cause: cause(), printLines: lines)
        return wrote
    }

    /// `collect` for a message of the general path.
    private func collect(_ reply: consuming Result<Reply, RPCError>, cause message: RequestOrError, session: ClientSession) -> Bool {
        collect(reply) {
            guard case .request(let request) = message else { return StoredCause(method: "", session: session, target: .path(nil)) }
            return StoredCause(method: request.method, params: request.params, session: session)
        }
    }

    /// Writes the response to request `id` into `writer` from byte `start` on; nothing for a
    /// notification (`id` nil). A result whose response would take the line it is part of, from
    /// `lineStart` on, past the output hard limit is answered with `ResultTooLarge` instead:
    /// queued, it would get its reader dropped as a slow consumer (SPEC §1.5). What the request
    /// committed stays committed.
    private func write(
        _ reply: Result<Reply, RPCError>, id: RequestID?, of method: String, session: ClientSession, into writer: inout JSONWriter,
        from start: Int, lineStart: Int
    ) {
        guard let id else { return }
        switch reply {
        case .success(let done):
            switch done.result {
            case .json(let result): Envelope.result(id: id, result, into: &writer)
            case .version(let version): Envelope.versionResult(id: id, version: version, into: &writer)
            }
            let limit = configuration.outputLimits.hard
            if writer.count - lineStart > limit {
                let size = writer.count - start
                writer.truncate(to: start)
                log.info("connection \(session.id): the result of \(method) is \(size) bytes, over the output limit; refused")
                Envelope.error(id: id, .resultTooLarge(method: method, size: size, limit: limit), into: &writer)
            }
        case .failure(let error): Envelope.error(id: id, error, into: &writer)
        }
    }

    /// Sends each watcher its notifications of a commit, then records it. A commit with no
    /// changes (a registration, a change of what a view provides) took a version all the same.
    /// `last`: it is the turn's last commit, whose watchers' output is written as it is queued.
    func publish(_ commit: consuming Commit, cause: consuming StoredCause, printLines: [Int: String], last: Bool) {
        guard commit.version > (history.newest ?? Version(0)) else { return }
        // With no watch at all, no fan-out is built and let go (some 190 instructions a commit).
        if watches.count > 0, !commit.isEmpty || watches.watchesCommits {
            deliver(commit, cause: cause, printLines: printLines, writeAhead: last)
        }
        // Last, so that the commit and what made it are moved into the history, not copied.
        let size = store?.stagedSize(of: commit.version.rawValue) ?? 0
        history.append(commit, size: size, cause: cause) { graph.recycle($0) }
    }

    /// Sends each watcher its notifications of `commit`; with `writeAhead` (the turn's last
    /// commit), each watcher's output is written as soon as its share is queued, not once every
    /// share is: its client reads while the rest are queued. Earlier commits of the turn leave
    /// theirs to go with the last one's, a watcher it reaches written with one call.
    private func deliver(_ commit: borrowing Commit, cause: StoredCause, printLines: [Int: String], writeAhead: Bool) {
        let fanOut = watches.notifications(for: commit, cause: cause.cause, printLines: printLines)
        watches.forgetEndedTargets(of: commit)
        // The parts come one connection after another: each session is looked up once, and its
        // output limits checked once all of its share is queued. Read by index, each part where
        // it is: a session kept from one part to the next in an optional, and each part copied
        // out, cost a delivery some 85 instructions of reference counting (callgrind).
        var start = 0
        while start < fanOut.parts.count {
            let connection = fanOut.parts[start].connection
            var end = start + 1
            while end < fanOut.parts.count, fanOut.parts[end].connection == connection { end += 1 }
            if let session = sessions[connection], !session.dropped {
                for index in start..<end {
                    switch fanOut.parts[index].part {
                    case .text(let run): fanOut.text.withBytes(in: run) { session.connection.send($0) }
                    case .shared(let bytes): session.connection.send(shared: bytes)
                    }
                }
                // Written first, so that the limits count what the socket did not take.
                if writeAhead { session.connection.writeAhead() }
                enforceOutputLimits(session)
            }
            start = end
        }
    }

    /// Drops a client that does not read what it is sent (SPEC §1.5), with a last notice saying why,
    /// so that one slow reader cannot hold the daemon's memory; and, past the daemon-wide budget,
    /// the clients with the most unsent output. Called when output is queued and by the timer.
    func enforceOutputLimits(_ session: ClientSession) {
        guard !session.dropped else { return }
        let pending = session.connection.pendingOutputBytes
        let limits = configuration.outputLimits
        // Nearly always: a turn's own output, never over the soft limit, and nobody counted
        // against the budget. The calls below would change nothing, at some 70 instructions
        // a delivery (callgrind).
        if pending < limits.tracked, session.overSoftLimitSince == nil, bufferedOutput.isEmpty { return }
        let reason: String
        if pending > limits.hard {
            reason = "its unsent output passed the hard limit of \(limits.hard) bytes"
        } else if pending > limits.soft {
            let now = Moment.now
            if let since = session.overSoftLimitSince, since.duration(to: now) > .seconds(limits.softSeconds) {
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

/// What a method produced: its result, the transaction it committed, and lines that must
/// follow its response (a resumed watch's replay).
struct Reply {
    var result: ReplyResult
    var commit: Commit?
    var followUps: [UInt8]?

    init(result: JSON, commit: Commit? = nil, followUps: [UInt8]? = nil) {
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
