/// A listening stream socket an `EventLoop` accepts connections on (`EventLoop.serve`): a
/// `UnixListener` for the daemon, a `LoopbackListener` for `milieu inspect`'s page.
public protocol Listener: AnyObject, Sendable {
    /// The listening descriptor: nonblocking and close-on-exec.
    var fileDescriptor: Int32 { get }
    /// Whether the listener has been closed.
    var isClosed: Bool { get }
    /// Where it listens, for messages: a socket path or `127.0.0.1:<port>`; nil when unknown.
    var address: String? { get }
}

extension UnixListener: Listener {
    public var address: String? { path }
}
