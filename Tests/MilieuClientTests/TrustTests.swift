import Foundation
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

/// The client trusts only its own daemon (SPEC §1.2): a socket another user could replace, or
/// whose file another user owns, is refused before a byte is sent (issue #15 item 12, issue #26
/// items 13 and 14).
@Suite(.serialized)
struct TrustTests {
    /// A listening socket at `directory/milieu.sock` that never accepts: a connection the
    /// client made would wait in its backlog, where `accepted()` finds it.
    final class FakeServer: Sendable {
        let path: String
        let fd: Int32

        init(directory: String) throws {
            path = "\(directory)/milieu.sock"
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard fd >= 0, bound == 0, listen(fd, 4) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }

        /// Whether a client connected (whatever it sent, it was sent to a stranger).
        func accepted() -> Bool {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return false }
            close(connection)
            return true
        }

        deinit { close(fd) }

        /// Does what milieud does for another user's connection (SPEC §1.2): accepts, writes
        /// one error line with id null, closes, before the client has sent anything.
        func refuse() {
            var polled = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&polled, 1, 5_000) == 1 else { return }
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            let line = Array(Self.refusal.utf8)
            _ = line.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }

        static let refusal =
            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"message":"connections from uid 1001 are refused: "#
            + #"milieud serves only its own user","data":{"reason":"peer","kind":"Forbidden"}}}"# + "\n"
    }

    private func squatted(mode: mode_t, owner: uid_t? = nil) throws -> (parent: String, directory: String, server: FakeServer) {
        let parent = try Daemon.makeDirectory()
        let directory = "\(parent)/milieu-squat"
        #expect(mkdir(directory, 0o700) == 0)
        let server = try FakeServer(directory: directory)
        #expect(chmod(directory, mode) == 0)
        if let owner { #expect(chown(directory, owner, gid_t.max) == 0) }
        return (parent, directory, server)
    }

    @Test func aWorldWritableSocketDirectoryIsRefusedBeforeConnecting() throws {
        let (parent, directory, server) = try squatted(mode: 0o777)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let error = #expect(throws: MilieuClientError.self) { try MilieuClient(socketPath: server.path) }
        #expect(error?.code == .untrustedSocket)
        #expect(
            error?.message
                == "refusing \(server.path): \(directory) has mode 0777: others may write to it and it is not sticky, "
                + "so they could replace the socket; use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)")
        #expect(!server.accepted())
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another uid needs root"))
    func aSocketDirectoryOfAnotherUIDIsRefusedBeforeConnecting() throws {
        let (parent, directory, server) = try squatted(mode: 0o700, owner: 65534)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let error = #expect(throws: MilieuClientError.self) { try MilieuClient(socketPath: server.path) }
        #expect(error?.code == .untrustedSocket)
        #expect(
            error?.message
                == "refusing \(server.path): \(directory) belongs to uid 65534, not to you (uid 0) or root, "
                + "so that user could replace the socket; use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)"
        )
        #expect(!server.accepted())
    }

    /// Another user's socket moved into one's own private directory: the file's owner tells before
    /// anything is sent (issue #26, item 13; the Node client has no peer credentials to ask).
    @Test(.enabled(if: geteuid() == 0, "chown to another uid needs root"))
    func aSocketOfAnotherUIDInOnesOwnDirectoryIsRefusedBeforeConnecting() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FakeServer(directory: directory)
        #expect(lchown(server.path, 65534, gid_t.max) == 0)
        let error = #expect(throws: MilieuClientError.self) { try MilieuClient(socketPath: server.path) }
        #expect(error?.code == .untrustedSocket)
        #expect(
            error?.message
                == "refusing \(server.path): the socket \(server.path) belongs to uid 65534, not to you (uid 0), "
                + "so another user's process serves it; use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)"
        )
        #expect(!server.accepted())
    }

    /// One's own daemon's socket straight in /tmp, sticky and writable by all, is trusted (issue #30 item 7).
    @Test func ownDaemonsSocketStraightInTmpIsTrusted() throws {
        let path = "/tmp/milieu-trust-\(getpid()).sock"
        defer { unlink(path + ".lock") }
        let daemon = try Daemon(socketPath: path)
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: path)
        #expect(try client.request(GraphGetRequest(path: "theme.colorScheme"), timeout: 5) == "light")
    }

    @Test func aRefusedConnectionSaysTheDaemonsReasonNotThatItClosed() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try FakeServer(directory: directory)
        // Before and after the client writes: the refusal may come either side of its request.
        for delay in [0, 50_000] {
            let refusing = Thread { server.refuse() }
            refusing.start()
            let client = try MilieuClient(socketPath: server.path)
            usleep(useconds_t(delay))
            let error = #expect(throws: MilieuClientError.self) {
                try client.request(InitializeRequest(), timeout: 5)
            }
            #expect(error?.code == .connectionClosed)
            #expect(
                error?.message
                    == "milieud at \(server.path) closed the connection: connections from uid 1001 are refused: "
                    + "milieud serves only its own user (Forbidden)")
        }
    }
}
