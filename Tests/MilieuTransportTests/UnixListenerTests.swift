import Foundation
import Glibc
import Testing

@testable import MilieuTransport

@Suite struct UnixListenerTests {
    @Test func staleSocketIsReplaced() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("s.sock")
        close(try rawListeningSocket(at: path))  // a crashed server leaves its file behind

        let listener = try UnixListener(path: path)
        defer { listener.close() }
        let client = try UnixSocket.connect(path: path)
        close(client)
    }

    @Test func liveSocketOfAnotherServerIsAddressInUse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("s.sock")
        let other = try rawListeningSocket(at: path)
        defer { close(other) }

        let error = #expect(throws: TransportError.self) { try UnixListener(path: path) }
        #expect(error?.code == .addressInUse)
        #expect(error?.description == "another milieud is already serving \(path)")
        #expect(FileIdentity(ofSocketAt: path) != nil, "the live socket was left alone")
    }

    @Test func secondListenerAtTheSamePathIsAddressInUse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("s.sock")
        let first = try UnixListener(path: path)
        defer { first.close() }

        let error = #expect(throws: TransportError.self) { try UnixListener(path: path) }
        #expect(error?.code == .addressInUse)
    }

    @Test func regularFileAtThePathIsNeverUnlinked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("s.sock")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: TransportError.self) { try UnixListener(path: path) }
        #expect(error?.code == .notASocket)
        #expect(error?.description.contains(path) == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test func missingDirectoryIsCreated0700AndSocketIs0600() throws {
        let directory = try TemporaryDirectory()
        let socketDirectory = directory.file("run/milieu")
        let path = socketDirectory + "/milieu.sock"
        let listener = try UnixListener(path: path)
        defer { listener.close() }

        var status = stat()
        #expect(stat(socketDirectory, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFDIR)
        #expect(status.st_mode & 0o777 == 0o700)
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func directoryOwnedByAnotherUserIsRefused() throws {
        try #require(getuid() == 0, "needs root to give a directory away")
        let directory = try TemporaryDirectory()
        let socketDirectory = directory.file("theirs")
        mkdir(socketDirectory, 0o700)
        chown(socketDirectory, 4242, 4242)

        let error = #expect(throws: TransportError.self) { try UnixListener(path: socketDirectory + "/s.sock") }
        #expect(error?.code == .untrustedPath)
        #expect(error?.description.contains("uid 4242") == true)
    }

    @Test func closeRemovesTheSocketFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("s.sock")
        let listener = try UnixListener(path: path)
        listener.close()

        var status = stat()
        #expect(lstat(path, &status) == -1 && errno == ENOENT)
        #expect(throws: TransportError.self) { try UnixSocket.connect(path: path) }
    }

    @Test func closeLeavesAReplacementSocketAlone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("s.sock")
        let listener = try UnixListener(path: path)
        unlink(path)
        let replacement = try rawListeningSocket(at: path)
        defer { close(replacement) }

        listener.close()
        #expect(FileIdentity(ofSocketAt: path) != nil)
    }

    @Test func pathLongerThanSunPathIsAnError() throws {
        let path = "/tmp/" + String(repeating: "x", count: 120) + ".sock"
        let error = #expect(throws: TransportError.self) { try UnixListener(path: path) }
        #expect(error?.code == .pathTooLong)
        let connectError = #expect(throws: TransportError.self) { try UnixSocket.connect(path: path) }
        #expect(connectError?.code == .pathTooLong)
    }

    @Test func adoptingSomethingOtherThanAListeningSocketIsRefused() throws {
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        defer { pipeEnds.forEach { _ = close($0) } }
        let error = #expect(throws: TransportError.self) { try UnixListener(adopting: pipeEnds[0]) }
        #expect(error?.code == .invalidDescriptor)
    }
}
