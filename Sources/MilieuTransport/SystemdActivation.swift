import Glibc

/// Reads the listening sockets systemd passes to a socket-activated service (sd_listen_fds).
public enum SystemdActivation {
    /// The descriptors systemd passed (`LISTEN_FDS` of them from `firstDescriptor`,
    /// normally 3), or none when `LISTEN_PID` is not this process. Marks them
    /// close-on-exec and, like `sd_listen_fds(1)`, removes `LISTEN_PID`, `LISTEN_FDS`
    /// and `LISTEN_FDNAMES` from the process environment so children do not inherit them.
    public static func listenFDs(
        environment: [String: String] = ProcessEnvironment.current,
        firstDescriptor: Int32 = 3,
        unsetEnvironment: Bool = true
    ) -> [Int32] {
        defer {
            if unsetEnvironment {
                unsetenv("LISTEN_PID")
                unsetenv("LISTEN_FDS")
                unsetenv("LISTEN_FDNAMES")
            }
        }
        guard let pidText = environment["LISTEN_PID"], let pid = pid_t(pidText), pid == getpid(),
            let countText = environment["LISTEN_FDS"], let count = Int32(countText),
            count > 0, count <= Int32.max - firstDescriptor
        else { return [] }
        let descriptors = (0..<count).map { firstDescriptor + $0 }
        for fd in descriptors {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        return descriptors
    }
}

/// Tells systemd about the service's state ("READY=1", "STOPPING=1", "STATUS=...")
/// with datagrams to `$NOTIFY_SOCKET`; does nothing when that is unset.
public struct SystemdNotifier: Sendable {
    /// `$NOTIFY_SOCKET`: a path, or an abstract socket name starting with `@`.
    public let socketPath: String?

    public init(environment: [String: String] = ProcessEnvironment.current) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        socketPath = path.isEmpty ? nil : path
    }

    /// Whether there is a notification socket to talk to.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends `state`, newline-separated `KEY=VALUE` assignments, in one datagram.
    public func notify(_ state: String) throws {
        guard let socketPath else { return }
        guard socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else {
            throw TransportError(
                .invalidDescriptor, path: socketPath,
                detail: "NOTIFY_SOCKET=\(socketPath) is neither an absolute path nor an @abstract name"
            )
        }
        let fd = try Syscall.call("socket") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        defer { Syscall.close(fd) }
        let message = Array(state.utf8)
        try UnixAddress.withAddress(path: socketPath, allowAbstract: true) { address, length in
            try message.withUnsafeBytes { bytes in
                _ = try Syscall.call("sendto", path: socketPath) {
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                }
            }
        }
    }

    /// "READY=1": the service is up and serving.
    public func ready() throws { try notify("READY=1") }

    /// "STOPPING=1": the service is shutting down.
    public func stopping() throws { try notify("STOPPING=1") }

    /// "STATUS=text": a one-line status for `systemctl status`.
    public func status(_ text: String) throws {
        let line = text.map { $0.isNewline ? " " : String($0) }.joined()
        try notify("STATUS=\(line)")
    }
}
