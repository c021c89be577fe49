import Glibc
import Synchronization

/// A listening Unix stream socket, bound safely at a path or adopted from systemd.
///
/// Binding creates the socket's directory (the last component 0700) if missing,
/// refuses a path another user could change (`SocketTrust`), replaces a stale socket but never a
/// live one or a file that is not a socket, and leaves the socket mode 0600.
public final class UnixListener: Sendable {
    /// The listening descriptor: nonblocking and close-on-exec.
    public let fileDescriptor: Int32
    /// The socket's path, when it has one.
    public let path: String?
    /// The socket file we created, removed by `close()` if it is still ours.
    private let createdFile: FileIdentity?
    /// `<path>.lock`, held with flock while we serve, so that two daemons starting
    /// at once cannot both decide the socket is stale.
    private let lockDescriptor: Int32
    private let closed = Atomic<Bool>(false)

    private init(fileDescriptor: Int32, path: String?, createdFile: FileIdentity?, lockDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        self.path = path
        self.createdFile = createdFile
        self.lockDescriptor = lockDescriptor
    }

    /// Binds and listens at `path`. Throws `.addressInUse` if another process serves
    /// it, `.notASocket` if a non-socket file is there, `.untrustedPath` if another user could
    /// change the path (`SocketTrust`), `.pathTooLong` if the path does not fit.
    public convenience init(path: String, backlog: Int32 = SOMAXCONN) throws {
        try SocketPath.validate(path)
        try SocketDirectory.prepare(forSocketAt: path)
        let lock = try Self.takeLock(for: path)
        do {
            try Self.removeStaleSocket(at: path)
            let (fd, identity) = try Self.bindAndListen(path: path, backlog: backlog)
            self.init(fileDescriptor: fd, path: path, createdFile: identity, lockDescriptor: lock)
        } catch {
            Syscall.close(lock)
            throw error
        }
    }

    /// Takes over a listening Unix stream socket someone else opened, such as one
    /// from `SystemdActivation.listenFDs()`. `close()` closes it but never unlinks its path.
    public convenience init(adopting fd: Int32) throws {
        guard fcntl(fd, F_GETFD) != -1 else {
            throw TransportError(.invalidDescriptor, detail: "descriptor \(fd) handed to milieud is not open")
        }
        let domain: Int32, type: Int32, accepting: Int32
        do {
            domain = try Syscall.socketOption(fd, SO_DOMAIN, name: "getsockopt(SO_DOMAIN)")
            type = try Syscall.socketOption(fd, SO_TYPE, name: "getsockopt(SO_TYPE)")
            accepting = try Syscall.socketOption(fd, SO_ACCEPTCONN, name: "getsockopt(SO_ACCEPTCONN)")
        } catch {
            throw TransportError(.invalidDescriptor, detail: "descriptor \(fd) handed to milieud is not a socket (\(error))")
        }
        guard domain == AF_UNIX, type == Int32(SOCK_STREAM.rawValue), accepting == 1 else {
            throw TransportError(.invalidDescriptor, detail: "descriptor \(fd) handed to milieud is not a listening Unix stream socket")
        }
        try Syscall.makeNonblockingAndCloseOnExec(fd)
        self.init(fileDescriptor: fd, path: UnixAddress.boundPath(of: fd), createdFile: nil, lockDescriptor: -1)
    }

    deinit {
        close()
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Closes the socket and removes its file if we created it and it is still that
    /// socket (same device and inode). Stop serving it on its loop first. Idempotent.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let path, let createdFile, FileIdentity(ofSocketAt: path) == createdFile {
            unlink(path)
        }
        Syscall.close(fileDescriptor)
        if lockDescriptor >= 0 { Syscall.close(lockDescriptor) }
    }

    private static func takeLock(for path: String) throws -> Int32 {
        let lockPath = path + ".lock"
        let fd = try Syscall.call("open", path: lockPath) {
            open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            Syscall.close(fd)
            if code == EWOULDBLOCK {
                throw addressInUse(path)
            }
            throw TransportError.systemCall("flock", errno: code, path: lockPath)
        }
        return fd
    }

    /// A leftover socket nobody accepts on is removed; anything else at the path is
    /// left alone and reported.
    private static func removeStaleSocket(at path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw TransportError.systemCall("lstat", errno: code, path: path)
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw TransportError(
                .notASocket, path: path,
                detail: "\(path) exists and is not a socket; milieud will not remove it (move it away or choose another --socket path)"
            )
        }
        let probe = try Syscall.call("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        defer { Syscall.close(probe) }
        let result = try UnixAddress.withAddress(path: path) { address, length in
            connect(probe, address, length) == 0 ? 0 : errno
        }
        switch result {
        case 0, EAGAIN, EINPROGRESS:
            // EAGAIN: its backlog is full, so it is very much alive.
            throw addressInUse(path)
        case ECONNREFUSED:
            if unlink(path) != 0 && errno != ENOENT {
                throw TransportError.systemCall("unlink", errno: errno, path: path)
            }
        case ENOENT:
            return
        default:
            throw TransportError.systemCall("connect", errno: result, path: path)
        }
    }

    private static func bindAndListen(path: String, backlog: Int32) throws -> (Int32, FileIdentity) {
        let fd = try Syscall.call("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        var bound = false
        do {
            try UnixAddress.withAddress(path: path) { address, length in
                if bind(fd, address, length) != 0 {
                    let code = errno
                    throw code == EADDRINUSE ? addressInUse(path) : TransportError.systemCall("bind", errno: code, path: path)
                }
            }
            bound = true
            // No client can connect before listen(), so narrowing the mode between
            // bind and listen leaves no window; unlike umask it touches no other thread's files.
            try Syscall.call("chmod", path: path) { chmod(path, 0o600) }
            guard let identity = FileIdentity(ofSocketAt: path) else {
                throw TransportError.systemCall("lstat", errno: errno, path: path)
            }
            try Syscall.call("listen", path: path) { listen(fd, backlog) }
            return (fd, identity)
        } catch {
            if bound { unlink(path) }
            Syscall.close(fd)
            throw error
        }
    }

    private static func addressInUse(_ path: String) -> TransportError {
        TransportError(.addressInUse, path: path, detail: "another milieud is already serving \(path)")
    }
}

/// The device and inode of a socket file, to tell our socket from a replacement.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the socket at `path`, or nil if nothing, or no socket, is there.
    init?(ofSocketAt path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
