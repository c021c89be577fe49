import MilieuClient
import MilieuJSON
import MilieuTransport

/// The page's open Server-Sent Events streams (`GET /events`): each of the daemon's
/// notifications is relayed to every one as a `data:` line holding the JSON-RPC message.
///
/// A stream whose reader falls `maxPendingBytes` behind is closed rather than buffered for
/// ever; the page's EventSource connects again and reloads the tree.
final class EventStreams {
    static let maxPendingBytes = 4 << 20
    /// How often an idle stream gets a comment line, so that a closed page is noticed.
    static let keepAliveSeconds = 15.0

    private var streams: [Int: Connection] = [:]

    /// Starts a stream on `connection`: the response head, then the page's reconnect delay.
    func open(_ connection: Connection) {
        streams[connection.id] = connection
        connection.send(HTTPResponse.eventStreamHead + Array("retry: 2000\n\n".utf8))
    }

    func remove(_ connection: Connection) {
        streams[connection.id] = nil
    }

    /// Sends `notification` to every stream. Its JSON is one line (the writer never breaks
    /// lines, and strings escape theirs), as one `data:` field must be.
    func relay(_ notification: ClientNotification) {
        send(Array("data: \(notification.message.jsonText)\n\n".utf8))
    }

    /// A comment line, which EventSource ignores.
    func keepAlive() {
        send(Array(": keep-alive\n\n".utf8))
    }

    private func send(_ bytes: [UInt8]) {
        for connection in Array(streams.values) {
            if connection.pendingOutputBytes > Self.maxPendingBytes {
                connection.close()
            } else {
                connection.send(bytes)
            }
        }
    }
}
