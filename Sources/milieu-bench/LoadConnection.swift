import Glibc
import MilieuTransport

/// One client socket of the load generator, non-blocking. Requests are queued as
/// pre-encoded bytes and written once per loop turn; replies are counted by their line
/// ends and never parsed: both servers answer in order on a connection, so the n-th
/// reply belongs to the n-th request.
final class LoadConnection {
    let fd: Int32
    /// Lines that make one reply: 1 for a JSON-RPC line or a RESP status, 7 for a RESP
    /// pub/sub message (whose strings hold no line ends).
    let linesPerReply: Int
    private var output: [UInt8] = []
    private var outputStart = 0
    private var linesOfNextReply = 0

    init(path: String, linesPerReply: Int = 1) throws {
        fd = try UnixSocket.connect(path: path)
        self.linesPerReply = linesPerReply
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            close(fd)
            throw BenchError.system("fcntl(O_NONBLOCK)", errno)
        }
        output.reserveCapacity(64 * 1024)
    }

    deinit {
        close(fd)
    }

    /// Appends a request to what the next `flush` writes.
    func queue(_ request: [UInt8]) {
        output.append(contentsOf: request)
    }

    /// Writes what is queued; false if the socket would not take it all (wait for EPOLLOUT).
    func flush() throws -> Bool {
        while outputStart < output.count {
            let start = outputStart
            let sent = output.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + start, bytes.count - start, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                outputStart += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: return false
            case let code: throw BenchError.system("send", code)
            }
        }
        output.removeAll(keepingCapacity: true)
        outputStart = 0
        return true
    }

    /// Reads what is there into `buffer` and returns how many whole replies it completed.
    func readReplies(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = read(fd, buffer.baseAddress, buffer.count)
        if count == 0 { throw BenchError.unexpectedReply("the server closed a connection during the load") }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return 0 }
            throw BenchError.system("read", errno)
        }
        var lineEnds = 0
        for byte in UnsafeRawBufferPointer(rebasing: buffer[..<count]) where byte == UInt8(ascii: "\n") {
            lineEnds &+= 1
        }
        let lines = linesOfNextReply + lineEnds
        linesOfNextReply = lines % linesPerReply
        return lines / linesPerReply
    }

    /// For setting up, not for measuring: sends `request` and waits for `lines` whole
    /// lines, returned without their line ends ("\n" or "\r\n"). Anything after them
    /// is a mistake in the benchmark and throws.
    func exchange(_ request: [UInt8], lines wanted: Int, timeout: Double = 30) throws -> [[UInt8]] {
        precondition(output.isEmpty && wanted > 0, "exchange() with queued requests or no reply to wait for")
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        var written = 0
        var received: [UInt8] = []
        var lineStart = 0
        var lines: [[UInt8]] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while lines.count < wanted {
            let now = MonotonicClock.now()
            guard now < deadline else {
                throw BenchError.timedOut("\(lines.count) of \(wanted) reply lines in \(timeout) s")
            }
            var ready = pollfd(
                fd: fd, events: Int16(POLLIN) | (written < request.count ? Int16(POLLOUT) : 0), revents: 0)
            let polled = poll(&ready, 1, Int32((deadline - now) / 1_000_000) + 1)
            if polled < 0 && errno != EINTR { throw BenchError.system("poll", errno) }
            if ready.revents & Int16(POLLOUT) != 0 {
                let sent = request.withUnsafeBytes { send(fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
                if sent > 0 { written += sent } else if errno != EAGAIN && errno != EINTR { throw BenchError.system("send", errno) }
            }
            guard ready.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            let count = read(fd, chunk.baseAddress, chunk.count)
            if count == 0 { throw BenchError.unexpectedReply("the server closed the connection after \(lines.count) lines") }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw BenchError.system("read", errno)
            }
            received.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            while lines.count < wanted, let end = received[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                let stop = end > lineStart && received[end - 1] == UInt8(ascii: "\r") ? end - 1 : end
                lines.append(Array(received[lineStart..<stop]))
                lineStart = end + 1
            }
        }
        guard lineStart == received.count else {
            let extra = String(decoding: received[lineStart...].prefix(200), as: UTF8.self)
            throw BenchError.unexpectedReply("bytes after the expected \(wanted) lines: \(extra)")
        }
        return lines
    }
}
