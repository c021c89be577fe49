import Glibc
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTransport

/// `milieu inspect`: a client of milieud that serves one live page on 127.0.0.1.
///
/// It connects like any client, watches `/App` and every object's lifecycle, and relays each
/// notification to the page's event streams; the page reads the tree and makes its writes and
/// calls through `POST /rpc`. Everything runs on one `EventLoop` thread: the daemon's socket is
/// one more descriptor the loop watches, so a notification, a page's request and the daemon's
/// answer to it are handled in the order they come, with no locks and no second thread.
public final class Inspector {
    /// How `run()` ended.
    public enum Ending: Sendable, Equatable {
        /// SIGINT or SIGTERM.
        case stopped
        /// milieud closed the connection; the message says so for the user.
        case daemonGone(String)
    }

    /// The page's address with its token: `http://127.0.0.1:<port>/?token=<token>`.
    public let url: String
    private let loop: EventLoop
    private let daemon: MilieuClient
    private let listener: LoopbackListener
    private let server: InspectorServer
    private var ending = Ending.stopped

    /// Connects to milieud at `socketPath`, watches it, and listens on 127.0.0.1:`port` (0: a
    /// free port). Throws `MilieuClientError` when no daemon answers, `RPCError` when it refuses
    /// the watch, `TransportError` when the port cannot be had.
    public init(socketPath: String, port: UInt16) throws {
        daemon = try MilieuClient(socketPath: socketPath)
        let hello = try daemon.request(InitializeRequest(client: ["name": "milieu inspect"]), timeout: 30)
        _ = try daemon.request(WatchRequest(views: ["/App"], lifecycle: true), timeout: 30)
        listener = try LoopbackListener(port: port)
        loop = try EventLoop()
        let token = AccessToken()
        url = "http://127.0.0.1:\(listener.port)/?token=\(token.text)"
        server = InspectorServer(token: token, page: InspectorPage.html, loop: loop, daemon: daemon, maxLineBytes: hello.maxLineBytes)
        // Before the address is printed: a signal sent as soon as it is seen stops the loop's first turn.
        try loop.handleSignals([SIGINT, SIGTERM]) { [loop] _ in loop.stop() }
    }

    /// Serves the page until SIGINT or SIGTERM, or until milieud goes away.
    public func run() throws -> Ending {
        try loop.serve(listener: listener, handler: server)
        let watch = try loop.watchReadable(daemon.fileDescriptor) { [unowned self] in daemonReadable() }
        // Notifications read with the watch's answer would otherwise wait for the next input;
        // no page listens yet, and one that connects reads the tree afresh.
        _ = daemon.takeNotifications()
        scheduleKeepAlive()
        defer {
            loop.stopWatching(watch)
            loop.stopServing(listener)
            loop.close()
            listener.close()
            daemon.close()
        }
        try loop.run()
        return ending
    }

    private func daemonReadable() {
        let open: Bool
        do {
            open = try daemon.receiveAvailable()
        } catch {
            stop(.daemonGone("the connection to milieud at \(daemon.socketPath) failed: \(error.message)"))
            return
        }
        for notification in daemon.takeNotifications() { server.streams.relay(notification) }
        server.deliverAnswers()
        if !open { stop(.daemonGone("milieud at \(daemon.socketPath) went away")) }
    }

    private func stop(_ reason: Ending) {
        ending = reason
        loop.stop()
    }

    private func scheduleKeepAlive() {
        loop.schedule(after: EventStreams.keepAliveSeconds) { [weak self] in
            self?.server.streams.keepAlive()
            self?.scheduleKeepAlive()
        }
    }
}
