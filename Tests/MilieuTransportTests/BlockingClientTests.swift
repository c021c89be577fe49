import Glibc
import Testing

@testable import MilieuTransport

@Suite struct BlockingClientTests {
    private func socketPair() -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
        return (ends[0], ends[1])
    }

    @Test func lineReaderSplitsSeveralLinesFromOneRead() throws {
        let (a, b) = socketPair()
        defer { close(a); close(b) }
        try UnixSocket.writeAll(a, Array("one\ntwo\nthree\n".utf8))
        let reader = BlockingLineReader(fd: b)
        #expect(try reader.readLine(timeout: 1)?.text == "one")
        #expect(try reader.readLine(timeout: 1)?.text == "two")
        #expect(try reader.readLine(timeout: 1)?.text == "three")
    }

    @Test func lineReaderJoinsALineSplitAcrossWrites() throws {
        let (a, b) = socketPair()
        defer { close(a); close(b) }
        let reader = BlockingLineReader(fd: b)
        try UnixSocket.writeAll(a, Array("hal".utf8))
        #expect(throws: TransportError.self) { try reader.readLine(timeout: 0.05) }
        try UnixSocket.writeAll(a, Array("f a line\n".utf8))
        #expect(try reader.readLine(timeout: 1)?.text == "half a line")
    }

    @Test func lineReaderTimesOutWithTimedOut() throws {
        let (a, b) = socketPair()
        defer { close(a); close(b) }
        let error = #expect(throws: TransportError.self) { try BlockingLineReader(fd: b).readLine(timeout: 0.05) }
        #expect(error?.code == .timedOut)
    }

    @Test func lineReaderReturnsTheUnterminatedRestThenNilAtEnd() throws {
        let (a, b) = socketPair()
        defer { close(b) }
        try UnixSocket.writeAll(a, Array("done\nrest".utf8))
        close(a)
        let reader = BlockingLineReader(fd: b)
        #expect(try reader.readLine(timeout: 1)?.text == "done")
        #expect(try reader.readLine(timeout: 1)?.text == "rest")
        #expect(try reader.readLine(timeout: 1) == nil)
    }

    @Test func writeAllToAClosedPeerThrowsInsteadOfRaisingSigpipe() throws {
        _ = try EventLoop()  // ignores SIGPIPE process-wide, as the daemon does
        let (a, b) = socketPair()
        defer { close(a) }
        close(b)
        let error = #expect(throws: TransportError.self) { try UnixSocket.writeAll(a, Array("x".utf8)) }
        #expect(error?.errno == EPIPE)
    }

    @Test func readingAnInvalidDescriptorThrowsInsteadOfTrapping() {
        let error = #expect(throws: TransportError.self) { try BlockingLineReader(fd: 999_999).readLine(timeout: 1) }
        #expect(error?.errno == EBADF)
    }

    @Test func connectingWhereNothingListensIsNotListening() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: TransportError.self) { try UnixSocket.connect(path: directory.file("none.sock")) }
        #expect(error?.code == .notListening)
        #expect(error?.description.contains("none.sock") == true)
    }

    @Test func errorDescriptionNamesSyscallErrnoTextAndPath() {
        let error = TransportError.systemCall("bind", errno: EACCES, path: "/run/x.sock")
        #expect(error.description == "bind(/run/x.sock): Permission denied (errno 13)")
    }
}
