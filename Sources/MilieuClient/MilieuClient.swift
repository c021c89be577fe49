import MilieuJSON
import MilieuProtocol
import MilieuTransport

#if canImport(Glibc)
import Glibc
#endif

/// A connection to milieud: JSON-RPC requests answered by id, and the daemon's notifications
/// kept in arrival order until taken.
///
/// Use it blocking, with `request`, or from a poll loop of your own: poll `fileDescriptor`
/// for input, call `receiveAvailable()` when it is readable, then `takeNotifications()`.
/// Notifications that arrive while a blocking call waits are queued, never dropped.
///
///     let client = try MilieuClient(socketPath: path)
///     _ = try client.request(WatchRequest(paths: ["login"]))
///     _ = try client.request(GraphSetRequest(path: "login.email", value: "kim@example.com"))
///     let change = try client.nextNotification(timeout: 5)   // .didChange
///
/// Errors: the daemon's refusals are thrown as `RPCError` (branch on `kind`); everything on
/// the client's side (no daemon, a closed connection, a timeout) as `MilieuClientError`.
///
/// Threading: not thread-safe; one thread at a time uses a client.
public final class MilieuClient {
    /// The socket this client is connected to.
    public let socketPath: String
    /// The connected socket, for `poll`; the client owns it and closes it in `close()`.
    public let fileDescriptor: Int32
    /// False once the daemon closed the connection or `close()` was called.
    public private(set) var isConnected = true

    private let input: SocketInput
    private var nextID = 1
    /// Ids of requests sent with `send` whose responses have not been read yet.
    private var awaited: Set<Int> = []
    /// Ids of requests whose wait was interrupted or ran out: their answers are dropped when they come.
    private var abandoned: Set<Int> = []
    /// Ids of the `watch` requests among those two: a watch made after its wait was given up on
    /// would send notifications nobody asked for, and is ended when its answer comes.
    private var watchRequests: Set<Int> = []
    /// Watches this client ends itself (`endAbandoned`), by the id of the `unwatch` that ends
    /// each: until its answer, what they send is dropped (nobody asked for it).
    private var endingWatches: [Int: Int] = [:]
    /// A descriptor that, once readable, interrupts a wait for a response (`.cancelled`); the
    /// client only polls it, its owner reads it. milieu's prompt gives its signal pipe, so that
    /// Ctrl-C abandons a request a stopped daemon will not answer. -1: none.
    public var interruption: Int32 = -1
    /// The longest line the daemon takes (`maxLineBytes`, from `initialize`), once known: a longer
    /// request is refused here, not sent, since the daemon would close the connection over it. A
    /// raw line (`sendLine`) goes as it is.
    public var daemonMaxLineBytes: Int?
    /// Responses read for awaited ids, not yet collected with `result(of:)`.
    private var answers: [Int: JSONObject] = [:]
    /// Responses whose id is not one this client assigned (answers to `sendLine`), in order.
    private var unmatched: [JSON] = []
    /// The raw lines (`sendLine`) whose answers have not come yet, oldest first. The daemon
    /// answers a connection's lines in order (SPEC §2.3), so the next unmatched response is the
    /// first one's; it is dropped if the caller gave up on it (`giveUpRawReply`). While one is
    /// owed, its integer id is given to none of the client's own requests.
    private var rawOwed: [(id: Int?, givenUp: Bool)] = []
    /// The error with id null the daemon sent as its last line, if the last line was one: why it
    /// closed the connection (`Forbidden`, `LimitExceeded`, `MessageTooLarge`, SPEC §1.2, §1.3).
    private var lastWord: RPCError?
    private var notifications: [ClientNotification] = []

    /// The longest line a client takes from the daemon unless told otherwise: 256 MiB, eight times
    /// the daemon's default output hard limit (32 MiB), which bounds every line it sends (SPEC §1.3).
    public static let defaultMaxLineBytes = 256 << 20

    /// Connects to the daemon at `socketPath` (default: `MILIEU_SOCKET`, else the
    /// per-user default path). Throws `.notListening` when no daemon answers there, and
    /// `.untrustedSocket`, before anything is sent, when another user could change the path or
    /// owns the socket file (`SocketTrust`, SPEC §1.2), or its server runs as another uid.
    /// A line from the daemon longer than `maxLineBytes` closes the connection (`.lineTooLong`).
    public init(socketPath: String = SocketPath.defaultPath(), maxLineBytes: Int = defaultMaxLineBytes) throws(MilieuClientError) {
        self.socketPath = socketPath
        try Self.checkPath(socketPath)
        let fd: Int32
        do {
            fd = try UnixSocket.connect(path: socketPath)
        } catch let error as TransportError where error.code == .notListening {
            throw MilieuClientError(.notListening, "no milieud is answering at \(socketPath)")
        } catch {
            throw MilieuClientError(.systemError, "cannot connect to \(socketPath): \(error)")
        }
        do {
            try Self.checkPeer(fd, socketPath: socketPath)
        } catch {
            Glibc.close(fd)
            throw error
        }
        fileDescriptor = fd
        input = SocketInput(fd: fileDescriptor, maxLineBytes: maxLineBytes)
    }

    /// Refuses, before a byte is sent, a path another user could change or whose socket another
    /// user's process serves: `SocketTrust`, the rule of SPEC §1.2 that milieud applies too. Nothing
    /// there is left to `connect`, which then reports `.notListening`.
    private static func checkPath(_ socketPath: String) throws(MilieuClientError) {
        guard case .failure(let refusal) = SocketTrust.judge(socketPath, for: .connect), refusal.reason != .missing else { return }
        throw MilieuClientError(.untrustedSocket, "refusing \(socketPath): \(refusal.why); \(SocketTrust.fix)")
    }

    /// Refuses a connected socket whose server runs as another uid (SO_PEERCRED).
    private static func checkPeer(_ fd: Int32, socketPath: String) throws(MilieuClientError) {
        let peer: PeerCredentials
        do {
            peer = try PeerCredentials.of(socket: fd)
        } catch {
            throw MilieuClientError(.systemError, "cannot ask who serves \(socketPath): \(error)")
        }
        let me = geteuid()
        guard peer.uid == me else {
            throw MilieuClientError(
                .untrustedSocket,
                "refusing \(socketPath): the process serving it runs as uid \(peer.uid), not as you (uid \(me)); \(SocketTrust.fix)")
        }
    }

    deinit {
        if isConnected { Glibc.close(fileDescriptor) }
    }

    /// Closes the connection. Views this connection mounted without `retain` go with it.
    public func close() { markClosed() }

    // MARK: Requests

    /// Sends a request and waits for its response; returns its typed result. Throws the
    /// daemon's `RPCError`, or `MilieuClientError` (`.timedOut` after `timeout` seconds;
    /// nil waits as long as the connection lives; `.invalidMessage` for a result of the wrong shape).
    @discardableResult
    public func request<M: RPCMethod>(_ method: M, timeout: Double? = nil) throws -> M.Result {
        do {
            return try result(of: send(method), as: M.self, timeout: timeout)
        } catch let error as MilieuClientError {
            guard error.code == .cancelled else { throw error }
            throw MilieuClientError(.cancelled, "cancelled: no answer to \(M.name) from milieud at \(socketPath) yet")
        }
    }

    /// The view tree from `path` (nil: `/App`), `depth` levels below it at most, asked for
    /// `pageSize` views at a time and put together: a tree of any size arrives without any one
    /// answer passing the daemon's output limit (SPEC §9.11). Pages are each consistent at their
    /// own version; a tree that changes meanwhile may come back as a mix of them.
    public func tree(
        path: String? = nil, depth: Int? = nil, pageSize: Int = ViewTreeRequest.defaultLimit, timeout: Double? = nil
    ) throws -> ViewSnapshot {
        var nodes: [ViewTreePage.Node] = []
        var request = ViewTreeRequest(path: path, depth: depth, limit: pageSize)
        while true {
            guard case .page(let page, _) = try self.request(request, timeout: timeout) else {
                throw MilieuClientError(.invalidMessage, "view/tree with a limit answered with a whole tree")
            }
            nodes += page.nodes
            guard let cursor = page.nextCursor else { break }
            request = ViewTreeRequest(limit: pageSize, cursor: cursor)
        }
        guard let root = ViewTreePage.tree(of: nodes) else { throw MilieuClientError(.invalidMessage, "view/tree sent no root") }
        return root
    }

    /// Sends a request without waiting; returns its id for `result(of:as:)`. Several may be
    /// in flight at once: the daemon answers them in order.
    public func send(_ method: some RPCMethod) throws(MilieuClientError) -> Int {
        try send(method: type(of: method).name, params: method.params)
    }

    /// Sends a request by its wire name, for tools that pass on requests they have no type
    /// for (`milieu inspect`); returns its id, for `takeResponse(to:)` or `result(of:as:)`.
    public func send(method: String, params: JSONObject) throws(MilieuClientError) -> Int {
        let id = newID()
        let message: JSON = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": .object(params)]
        let line = message.jsonText
        if let limit = daemonMaxLineBytes { try Self.refuse(method, length: line.utf8.count, over: limit) }
        try write(line: line)
        expect(id, method: method)
        return id
    }

    /// Sends a request whose params are JSON text already written (one object, on one line), as
    /// they are: for tools that pass on requests and must not change what was written (`milieu
    /// inspect`: `1e2` read and written again would be `100.0`, a longer line). Returns its id.
    /// Throws `.lineTooLong`, sending nothing and keeping the connection, when the line would be
    /// longer than `limit` bytes (the daemon's `maxLineBytes`, which would close the connection).
    public func send(method: String, paramsText: [UInt8], limit: Int) throws(MilieuClientError) -> Int {
        let id = newID()
        let head = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":\#(JSON.string(method).jsonText),"params":"#.utf8)
        try Self.refuse(method, length: head.count + paramsText.count + 1, over: limit)
        try write(head + paramsText + Array("}\n".utf8))
        expect(id, method: method)
        return id
    }

    /// The id of the client's next request: none a raw line's answer still owed carries.
    private func newID() -> Int {
        while rawOwed.contains(where: { $0.id == nextID }) { nextID += 1 }
        defer { nextID += 1 }
        return nextID
    }

    /// Request `id`, to `method`, was sent: its answer is awaited.
    private func expect(_ id: Int, method: String) {
        awaited.insert(id)
        if method == WatchRequest.name { watchRequests.insert(id) }
    }

    /// Throws `.lineTooLong` when a request to `method` would be a line of `length` bytes, longer
    /// than the daemon takes (`limit`): sent, it would make the daemon close the connection.
    private static func refuse(_ method: String, length: Int, over limit: Int) throws(MilieuClientError) {
        guard length > limit else { return }
        throw MilieuClientError(
            .lineTooLong, "the request to \(method) would be a line of \(length) bytes, longer than milieud's limit of \(limit); not sent")
    }

    /// The response to request `id` as it arrived (`result` or `error`, untouched), if an
    /// earlier read filed it; nil while it has not arrived. For poll loops, which call
    /// `receiveAvailable()` and then take what came, without waiting.
    public func takeResponse(to id: Int) -> JSONObject? {
        answers.removeValue(forKey: id)
    }

    /// Sends a request as a JSON-RPC notification: the daemon runs it and never answers.
    public func notify(_ method: some RPCMethod) throws(MilieuClientError) {
        let message: JSON = ["jsonrpc": "2.0", "method": .string(type(of: method).name), "params": .object(method.params)]
        try write(line: message.jsonText)
    }

    /// Waits for the response to the request `id` (from `send`) and returns its typed result,
    /// or throws its error as `RPCError`.
    public func result<M: RPCMethod>(of id: Int, as method: M.Type, timeout: Double? = nil) throws -> M.Result {
        let result = try result(of: id, timeout: timeout)
        guard let typed = M.Result(wire: result) else {
            throw MilieuClientError(.invalidMessage, "milieud answered \(M.name) with a result of another shape: \(result.jsonText)")
        }
        return typed
    }

    /// Waits for the response to the request `id` and returns its `result` as JSON.
    private func result(of id: Int, timeout: Double?) throws -> JSON {
        let deadline = Deadline(timeout)
        var answer = answers.removeValue(forKey: id)
        while answer == nil {
            guard isConnected else { throw closedError() }
            guard awaited.contains(id) else {
                throw MilieuClientError(.invalidMessage, "request \(id) was not sent, or its response was taken")
            }
            do {
                try receive(until: deadline, waitingFor: "response to request \(id)")
            } catch {
                if error.code == .cancelled || error.code == .timedOut { abandon(id) }
                throw error
            }
            answer = answers.removeValue(forKey: id)
        }
        guard let response = answer else { throw closedError() }
        if let error = response["error"] {
            guard let rpcError = RPCError(wire: error) else { throw invalid(.object(response)) }
            throw rpcError
        }
        guard let result = response["result"] else { throw invalid(.object(response)) }
        return result
    }

    // MARK: Raw lines

    /// Sends one line as it is (a request, a batch, anything): for tools that let a person
    /// type JSON-RPC. Returns whether the daemon answers it (`RawLine`); the answer comes back
    /// through `nextUnmatchedReply`. A line break in it goes as a space, so that it stays one
    /// line on the wire (JSON allows one only as whitespace between tokens). Not sent: a line
    /// longer than the daemon takes (`.lineTooLong`), which would make it close the connection;
    /// and one whose answer would carry the id of one of the client's own requests still
    /// unanswered (`.idInUse`), since the answer would be taken for that request's.
    @discardableResult
    public func sendLine(_ line: String) throws(MilieuClientError) -> Bool {
        var bytes = Array(line.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") {
            bytes[index] = UInt8(ascii: " ")
        }
        if let limit = daemonMaxLineBytes, bytes.count > limit {
            throw MilieuClientError(.lineTooLong, "the line is \(bytes.count) bytes, longer than milieud's limit of \(limit); not sent")
        }
        let raw = bytes.withUnsafeBytes { RawLine($0) }
        if let id = raw.id, awaited.contains(id) || abandoned.contains(id) {
            throw MilieuClientError(
                .idInUse, "id \(id) is this client's, for a request milieud has not answered yet; give the line another id")
        }
        bytes.append(UInt8(ascii: "\n"))
        try write(bytes)
        if raw.expectsResponse { rawOwed.append((raw.id, false)) }
        return raw.expectsResponse
    }

    /// Gives up the answer to the oldest raw line not yet taken, for a caller whose wait for it
    /// ran out or was cancelled: it is dropped if it has come, else when it comes, so that it is
    /// not taken for the next line's.
    public func giveUpRawReply() {
        if !unmatched.isEmpty {
            unmatched.removeFirst()
        } else if let oldest = rawOwed.firstIndex(where: { !$0.givenUp }) {
            rawOwed[oldest].givenUp = true
        }
    }

    /// Writes `line`, one JSON message the client made, and its line feed.
    private func write(line: String) throws(MilieuClientError) { try write(Array((line + "\n").utf8)) }

    /// Writes `bytes`, one or more whole lines.
    private func write(_ bytes: [UInt8]) throws(MilieuClientError) {
        guard isConnected else { throw closedError() }
        do {
            try UnixSocket.writeAll(fileDescriptor, bytes, timeout: 10)
        } catch let error as TransportError where error.code == .timedOut {
            // Part of the line may have gone: what follows would be read as its rest.
            markClosed()
            throw MilieuClientError(.timedOut, "milieud at \(socketPath) is not reading; the connection is closed")
        } catch {
            // The daemon may have written why before it closed (another user's daemon says
            // Forbidden): read it, so that the error says so rather than EPIPE.
            try? pump()
            markClosed()
            throw closedError()
        }
    }

    /// The next response whose id this client did not assign — the answer to a line sent
    /// with `sendLine`, a batch's array, or an error with id null — in arrival order. A caller
    /// that stops waiting for it calls `giveUpRawReply`.
    public func nextUnmatchedReply(timeout: Double? = nil) throws(MilieuClientError) -> JSON {
        let deadline = Deadline(timeout)
        while unmatched.isEmpty {
            do {
                try receive(until: deadline, waitingFor: "response")
            } catch {
                guard error.code == .cancelled else { throw error }
                throw MilieuClientError(.cancelled, "cancelled: no response from milieud at \(socketPath) yet")
            }
        }
        return unmatched.removeFirst()
    }

    // MARK: Notifications

    /// Reads whatever the socket holds now, without blocking, and files each message.
    /// Returns false once the connection has closed. For poll loops: call it when
    /// `fileDescriptor` is readable.
    @discardableResult
    public func receiveAvailable() throws(MilieuClientError) -> Bool {
        guard isConnected else { return false }
        try pump()
        return isConnected
    }

    /// True when notifications are waiting to be taken.
    public var hasNotifications: Bool { !notifications.isEmpty }

    /// Every notification received so far, oldest first; the queue is then empty.
    public func takeNotifications() -> [ClientNotification] {
        defer { notifications.removeAll() }
        return notifications
    }

    /// The oldest queued notification, waiting up to `timeout` seconds for one to arrive.
    public func nextNotification(timeout: Double? = nil) throws(MilieuClientError) -> ClientNotification {
        let deadline = Deadline(timeout)
        while notifications.isEmpty { try receive(until: deadline, waitingFor: "notification") }
        return notifications.removeFirst()
    }

    // MARK: Reading

    /// Waits until the socket is readable (or the deadline passes), then files what it holds.
    private func receive(until deadline: Deadline, waitingFor what: String) throws(MilieuClientError) {
        guard isConnected else { throw closedError() }
        guard try input.waitReadable(until: deadline, interruption: interruption) else {
            throw MilieuClientError(.timedOut, "no \(what) from milieud at \(socketPath) within \(deadline.seconds ?? 0) s")
        }
        try pump()
    }

    /// Reads until the socket would block, filing every complete line.
    private func pump() throws(MilieuClientError) {
        var malformed: String?
        let open: Bool
        do {
            open = try input.readAvailable { line in
                if let problem = file(line) { malformed = malformed ?? problem }
            }
        } catch {
            markClosed()
            throw error
        }
        if !open { markClosed() }
        if input.overflowed { throw closedError() }
        if let malformed { throw MilieuClientError(.invalidMessage, "milieud sent a line that is not JSON-RPC: \(malformed)") }
    }

    /// Files one line as an answer, an unmatched reply or a notification; returns a
    /// description of the line if it is not a JSON-RPC message.
    private func file(_ line: UnsafeRawBufferPointer) -> String? {
        // Read as the daemon reads requests: a raw line's id may be a number no double holds (1e400).
        guard let message = try? JSON.parsingMessage(line).message else { return String(decoding: line.prefix(200), as: UTF8.self) }
        lastWord = nil
        guard case .object(let object) = message else {
            guard case .array = message else { return message.jsonText }
            fileUnmatched(message)
            return nil
        }
        if object["id"] == .null, let error = object["error"] { lastWord = RPCError(wire: error) }
        if object["id"] == nil {
            guard case .string(let method)? = object["method"] else { return message.jsonText }
            let notification = ClientNotification(method: method, params: object["params"]?.objectValue ?? [:])
            if let watch = notification.watch, endingWatches.values.contains(watch) { return nil }
            notifications.append(notification)
        } else if case .int(let id)? = object["id"], awaited.remove(id) != nil {
            watchRequests.remove(id)
            answers[id] = object
        } else if case .int(let id)? = object["id"], abandoned.remove(id) != nil {
            // The answer to a request whose wait was given up on: nobody wants it now. After an
            // `unwatch`'s, its watch sends nothing more.
            endingWatches[id] = nil
            if watchRequests.remove(id) != nil, case .int(let watch)? = object["result"]?["watch"] { endAbandoned(watch: watch) }
            return nil
        } else {
            fileUnmatched(message)
        }
        return nil
    }

    /// Keeps `reply` for `nextUnmatchedReply`, unless it answers a raw line given up on.
    private func fileUnmatched(_ reply: JSON) {
        if !rawOwed.isEmpty, rawOwed.removeFirst().givenUp { return }
        unmatched.append(reply)
    }

    /// Ends daemon watch `watch`, which a `watch` request given up on made; the answer is dropped.
    private func endAbandoned(watch: Int) {
        guard let id = try? send(method: UnwatchRequest.name, params: ["watch": .int(watch)]) else { return }
        abandon(id)
        endingWatches[id] = watch
    }

    /// Stops waiting for request `id`: its answer is dropped when it comes.
    private func abandon(_ id: Int) {
        awaited.remove(id)
        abandoned.insert(id)
    }

    private func markClosed() {
        guard isConnected else { return }
        isConnected = false
        awaited.removeAll()
        Glibc.close(fileDescriptor)
    }

    private func closedError() -> MilieuClientError {
        if input.overflowed {
            return MilieuClientError(
                .lineTooLong,
                "milieud at \(socketPath) sent a line longer than this client's limit of \(input.maxLineBytes) bytes; the connection is closed"
            )
        }
        guard let lastWord else { return MilieuClientError(.connectionClosed, "milieud at \(socketPath) closed the connection") }
        return MilieuClientError(
            .connectionClosed, "milieud at \(socketPath) closed the connection: \(lastWord.message) (\(lastWord.kind))")
    }

    private func invalid(_ message: JSON) -> MilieuClientError {
        MilieuClientError(.invalidMessage, "milieud sent a response that is not JSON-RPC: \(message.jsonText)")
    }
}
