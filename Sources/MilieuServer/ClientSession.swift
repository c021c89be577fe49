import MilieuJSON
import MilieuProtocol
import MilieuTransport

/// One client connection's protocol state: its framer and its watch ids.
final class ClientSession {
    let connection: any PeerConnection
    var framer: LineFramer
    var nextWatchID = 1
    /// When its unsent output first went over the soft limit, if it still is.
    var overSoftLimitSince: Moment?
    /// Set once it is being dropped for not reading; nothing more is sent to it.
    var dropped = false
    /// Set when its connection closed and the server let go of it: what a turn still holds for
    /// it is not sent, without a look-up of the server's sessions.
    var closed = false
    /// When the line not yet ended began to arrive, if one has.
    var lineStartedAt: Moment?
    /// The `client.name` it gave in `initialize`, for what it commits (`graph/explain`).
    var clientName: String?
    /// When it connected (`daemon/clients`).
    let connectedAt = ContinuousClock.now
    /// What made its last hot request's commit, which the next one shares if it is the same
    /// (`StoredCause.hot`).
    var lastHotCause: StoredCause?

    init(connection: any PeerConnection, maxLineBytes: Int) {
        self.connection = connection
        self.framer = LineFramer(maxLineBytes: maxLineBytes)
    }

    var id: Int { connection.id }

    func send(_ writer: JSONWriter) {
        writer.withBytes { connection.send(UnsafeRawBufferPointer($0)) }
    }
}
