import Glibc

/// A failure of the transport layer, naming the system call, the errno text and the path involved.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value to compare against (`error.code == .addressInUse`).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case systemCall
            case addressInUse
            case notASocket
            case pathTooLong
            case untrustedPath
            case notListening
            case invalidDescriptor
            case timedOut
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A system call failed; `errno` and `syscall` say which and why.
        public static let systemCall = Code(.systemCall)
        /// Another process is already serving the socket path.
        public static let addressInUse = Code(.addressInUse)
        /// Something that is not a socket sits at the socket path; it is never removed.
        public static let notASocket = Code(.notASocket)
        /// The path does not fit in `sockaddr_un.sun_path`.
        public static let pathTooLong = Code(.pathTooLong)
        /// Another user could change the socket's path: a directory or link on it is theirs, or a
        /// directory on it is writable by others and not sticky (`SocketTrust`, SPEC §1.2).
        public static let untrustedPath = Code(.untrustedPath)
        /// A client found no server at the path (ENOENT or ECONNREFUSED).
        public static let notListening = Code(.notListening)
        /// A file descriptor handed to us (e.g. by systemd) is unusable.
        public static let invalidDescriptor = Code(.invalidDescriptor)
        /// A blocking read or write did not finish within its timeout.
        public static let timedOut = Code(.timedOut)

        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The system call that failed, if one did.
    public let syscall: String?
    /// The errno the system call reported, if one did.
    public let errno: Int32?
    /// The socket or directory path involved, if any.
    public let path: String?
    /// A sentence for the user, when the code alone does not say enough.
    public let detail: String?

    init(_ code: Code, syscall: String? = nil, errno: Int32? = nil, path: String? = nil, detail: String? = nil) {
        self.code = code
        self.syscall = syscall
        self.errno = errno
        self.path = path
        self.detail = detail
    }

    /// A failed system call, with the errno it set.
    static func systemCall(_ name: String, errno: Int32, path: String? = nil) -> TransportError {
        TransportError(.systemCall, syscall: name, errno: errno, path: path)
    }

    /// The text of an errno value, e.g. "Permission denied".
    static func text(ofErrno value: Int32) -> String {
        guard let text = strerror(value) else { return "errno \(value)" }
        return String(cString: text)
    }

    public var description: String {
        var text = detail ?? ""
        if text.isEmpty && code != .systemCall {
            text = path.map { "\(code) at \($0)" } ?? code.description
        }
        guard let syscall else { return text }
        let call = path.map { "\(syscall)(\($0))" } ?? syscall
        let reason = errno.map { "\(TransportError.text(ofErrno: $0)) (errno \($0))" } ?? "failed"
        let failure = "\(call): \(reason)"
        return text.isEmpty ? failure : "\(text) (\(failure))"
    }
}
