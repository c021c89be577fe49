import Glibc

/// What a server needs of a connection: who is on the other end, a way to send it bytes, and
/// a way to end it. `Connection` is the real one; tests drive a server through doubles.
public protocol PeerConnection: AnyObject {
    /// Unique among the connections of its loop, never reused.
    var id: Int { get }
    var peer: PeerCredentials { get }
    /// Bytes sent but not yet taken by the peer.
    var pendingOutputBytes: Int { get }
    func send(_ bytes: UnsafeRawBufferPointer)
    /// Sends bytes shared with other connections; a connection may keep the reference instead of a copy.
    func send(shared bytes: SharedBytes)
    /// Writes what is queued now instead of at the end of the loop turn, as far as the peer
    /// takes it at once; what is left goes at the end of the turn, as ever.
    func writeAhead()
    /// Closes now, dropping unsent output; the handler's `connectionClosed` follows.
    func close()
    /// Stops reading, writes what is buffered, then closes; gives up after `timeout` seconds.
    func closeAfterFlush(timeout: Double)
}

extension PeerConnection {
    public func send(_ bytes: [UInt8]) { bytes.withUnsafeBytes { send($0) } }
    /// A copy, for connections that keep no references (test doubles).
    public func send(shared bytes: SharedBytes) { send(UnsafeRawBufferPointer(bytes.storage)) }
    public func closeAfterFlush() { closeAfterFlush(timeout: 10) }
}

/// What a server implements to receive a listener's connections, their bytes and their closing.
///
/// Threading rule: every method is called on the event loop's thread, one at a
/// time, in the order events happened; per connection, reads arrive in order.
public protocol ConnectionHandler: AnyObject {
    /// A client connected; `connection.peer` says who it is.
    func connectionOpened(_ connection: Connection)

    /// Bytes arrived, exactly as read (no framing). The buffer is reused after this
    /// returns: copy what must outlive the call.
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer)

    /// The connection closed, for whatever reason; called exactly once, after which
    /// the connection is inert (sends are dropped).
    func connectionClosed(_ connection: Connection, reason: ConnectionCloseReason)

    /// Called once after each epoll_wait batch has been handled, before buffered
    /// output is written: the place to group-commit and queue notifications.
    func loopTurnEnded()

    /// accept() failed; when descriptors ran out the loop stops accepting for
    /// ~100 ms instead of spinning. The default writes a line to stderr.
    func acceptFailed(_ error: TransportError)

    /// The process is out of descriptors: a client was accepted on the one the loop keeps in
    /// reserve, and is sent the bytes returned here, then closed. The default sends nothing.
    func refusalAtDescriptorLimit() -> [UInt8]
}

extension ConnectionHandler {
    public func loopTurnEnded() {}

    public func refusalAtDescriptorLimit() -> [UInt8] { [] }

    public func acceptFailed(_ error: TransportError) {
        let line = Array("milieu transport: accept failed: \(error)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// Why a connection closed, as told to `ConnectionHandler.connectionClosed`.
public enum ConnectionCloseReason: Sendable, Equatable, CustomStringConvertible {
    /// The peer closed its end or reset the connection.
    case peerClosed
    /// We closed it with `close()`, or `closeAfterFlush()` finished.
    case closedLocally
    /// A read, write or epoll error, or `closeAfterFlush()` timing out.
    case failed(TransportError)
    /// `EventLoop.close()` closed every connection.
    case loopClosed

    public var description: String {
        switch self {
        case .peerClosed: "peer closed"
        case .closedLocally: "closed locally"
        case .failed(let error): "failed: \(error)"
        case .loopClosed: "event loop closed"
        }
    }
}
