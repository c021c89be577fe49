/// A failure on the client's side of the connection: no daemon, a closed connection, a
/// timeout, or a line from the daemon that is not a JSON-RPC message. (What the daemon
/// itself refuses arrives as `RPCError`.)
public struct MilieuClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value to compare against (`error.code == .notListening`).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notListening, connectionClosed, timedOut, cancelled, invalidMessage, lineTooLong, systemError, untrustedSocket
            case idInUse
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No daemon serves the socket path (nothing there, or a stale socket file).
        public static let notListening = Code(.notListening)
        /// The daemon closed the connection (it stopped, or it dropped this client).
        public static let connectionClosed = Code(.connectionClosed)
        /// No answer came within the timeout.
        public static let timedOut = Code(.timedOut)
        /// The wait was interrupted (`MilieuClient.interruption`, Ctrl-C at milieu's prompt); the
        /// request may still be carried out, but its answer is dropped.
        public static let cancelled = Code(.cancelled)
        /// The daemon sent a line that is not a JSON-RPC message.
        public static let invalidMessage = Code(.invalidMessage)
        /// A line too long: the daemon sent one longer than the client takes (`maxLineBytes` of
        /// `MilieuClient.init`), and the client closed the connection; or a request would have been
        /// longer than the daemon takes, and was not sent (`send(method:params:)` once
        /// `daemonMaxLineBytes` is known, `send(method:paramsText:limit:)`).
        public static let lineTooLong = Code(.lineTooLong)
        /// A system call failed; `message` names it and the errno text.
        public static let systemError = Code(.systemError)
        /// The socket may not be this user's daemon's: another user could change its path or owns
        /// the socket file (`SocketTrust`), or the process serving it runs as another uid. Nothing
        /// was sent.
        public static let untrustedSocket = Code(.untrustedSocket)
        /// A raw line (`sendLine`) carries the id of one of the client's own requests still
        /// unanswered, and was not sent: its answer would be taken for that request's.
        public static let idInUse = Code(.idInUse)

        public var description: String { base.rawValue }
    }

    public let code: Code
    /// A sentence for the user, naming the socket path or the call involved.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
