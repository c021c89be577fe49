import CMilieuShims
import Glibc

/// The process, user and group at the other end of a Unix socket, from SO_PEERCRED.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The peer's process id when it connected.
    public let pid: pid_t
    /// The peer's effective user id.
    public let uid: uid_t
    /// The peer's effective group id.
    public let gid: gid_t

    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Asks the kernel who is connected to the Unix socket `fd`.
    public static func of(socket fd: Int32) throws -> PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        try Syscall.call("getsockopt(SO_PEERCRED)") { milieu_peer_credentials(fd, &pid, &uid, &gid) }
        return PeerCredentials(pid: pid, uid: uid, gid: gid)
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
