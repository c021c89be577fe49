import Glibc
import Synchronization

/// A listening TCP socket on 127.0.0.1 only, never on another interface: for a local page
/// such as `milieu inspect`'s. Connections accepted on it report no peer credentials (the
/// kernel gives uid and gid -1 for TCP), so whoever serves it must guard it otherwise, as the
/// inspector does with a token.
public final class LoopbackListener: Listener {
    public let fileDescriptor: Int32
    /// The port it listens on: the one asked for, or the one the kernel chose for port 0.
    public let port: Int
    private let closed = Atomic<Bool>(false)

    /// Binds 127.0.0.1:`port` and listens; port 0 takes a free port. Throws `.addressInUse`
    /// when the port is taken.
    public init(port: UInt16 = 0, backlog: Int32 = 16) throws {
        let fd = try Syscall.call("socket") {
            socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            var reuse: Int32 = 1
            // A fixed --port can be taken again while the last run's connections are in TIME_WAIT.
            try Syscall.call("setsockopt(SO_REUSEADDR)") {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = Self.loopback(port: port)
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 ? 0 : errno
                }
            }
            if bound == EADDRINUSE {
                throw TransportError(.addressInUse, detail: "127.0.0.1:\(port) is already in use; choose another --port, or none")
            }
            if bound != 0 { throw TransportError.systemCall("bind", errno: bound) }
            try Syscall.call("listen") { listen(fd, backlog) }
            fileDescriptor = fd
            self.port = try Self.boundPort(of: fd)
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    deinit { close() }

    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    public var address: String? { "127.0.0.1:\(port)" }

    /// Closes the socket. Stop serving it on its loop first. Idempotent.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Syscall.close(fileDescriptor)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        return address
    }

    private static func boundPort(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try Syscall.call("getsockname") {
            withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
