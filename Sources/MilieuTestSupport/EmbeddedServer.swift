import MilieuJSON
import MilieuServer
import MilieuTransport

#if canImport(Glibc)
import Glibc
#endif

/// A connection with no socket, as swift-nio's `EmbeddedChannel`: what the server sends piles
/// up until the test reads it, and the peer reads nothing unless told to.
package final class EmbeddedConnection: PeerConnection {
    package let id: Int
    package let peer: PeerCredentials
    private var output: [UInt8] = []
    /// Set by `closeAfterFlush`: the server is done with this connection.
    package private(set) var closingAfterFlush = false
    package private(set) var closed = false
    fileprivate weak var server: Server?

    init(id: Int, uid: uid_t) {
        self.id = id
        self.peer = PeerCredentials(pid: 1, uid: uid, gid: 0)
    }

    package var pendingOutputBytes: Int { output.count }

    package func send(_ bytes: UnsafeRawBufferPointer) {
        guard !closed else { return }
        output.append(contentsOf: bytes)
    }

    /// How much had been sent at each `writeAhead`, the bytes before the end of the turn.
    package private(set) var writtenAhead: [Int] = []

    package func writeAhead() {
        guard !closed, !closingAfterFlush else { return }
        writtenAhead.append(output.count)
    }

    package func close() {
        guard !closed else { return }
        closed = true
        server?.closed(self, reason: .closedLocally)
    }

    package func closeAfterFlush(timeout: Double) { closingAfterFlush = true }

    /// Takes everything sent so far, one JSON message per line.
    package func read() throws -> [JSON] {
        defer { output.removeAll() }
        return try output.split(separator: UInt8(ascii: "\n")).map { line in try JSON(parsing: Array(line)) }
    }
}

/// A server driven by hand, without a process, a socket or a running loop: the test says when
/// bytes arrive and when a loop turn ends, and reads what each connection was sent.
package final class EmbeddedServer {
    package let server: Server
    private var nextID = 1

    package init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration(socketPath: "/nonexistent/embedded.sock")
        configuration.logger = Logger(level: .error)
        configure(&configuration)
        server = try Server(configuration: configuration, loop: EventLoop())
    }

    /// A new client; by default of this process's user, as every accepted one must be.
    package func connect(uid: uid_t = geteuid()) -> EmbeddedConnection {
        let connection = EmbeddedConnection(id: nextID, uid: uid)
        nextID += 1
        connection.server = server
        server.opened(connection)
        return connection
    }

    /// `line` arrives from `connection`; nothing is sent until the turn ends.
    package func receive(_ line: String, from connection: EmbeddedConnection) {
        Array((line + "\n").utf8).withUnsafeBytes { server.received($0, from: connection) }
    }

    /// The loop turn ends: responses, then notifications, are handed to the connections.
    package func endTurn() { server.loopTurnEnded() }

    /// The peer hung up.
    package func hangUp(_ connection: EmbeddedConnection) { server.closed(connection, reason: .peerClosed) }

    /// One request line.
    package static func request(_ id: Int, _ method: String, _ params: JSON = [:]) -> String {
        JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).jsonText
    }
}
