import MilieuProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A moment after which a blocking wait gives up; nil seconds means never.
struct Deadline {
    let seconds: Double?
    private let end: timespec?

    init(_ seconds: Double?) {
        self.seconds = seconds
        guard let seconds else {
            end = nil
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let whole = Int(seconds.rounded(.down))
        var nanoseconds = now.tv_nsec + Int((seconds - Double(whole)) * 1e9)
        var wholeSeconds = now.tv_sec + whole
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        end = timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
    }

    /// Milliseconds left, for poll(2): -1 for no deadline, 0 once it has passed.
    var pollTimeout: Int32 {
        guard let end else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let left = Double(end.tv_sec - now.tv_sec) * 1000 + Double(end.tv_nsec - now.tv_nsec) / 1e6
        return left <= 0 ? 0 : Int32(min(left.rounded(.up), Double(Int32.max)))
    }
}

/// The reading half of the client's socket: waits for input and splits it into lines of at
/// most `maxLineBytes` (the daemon's lines are bounded by its output limit, 32 MiB by default,
/// not by its 1 MiB request limit; SPEC §1.3).
final class SocketInput {
    let fd: Int32
    private var framer: LineFramer
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(fd: Int32, maxLineBytes: Int) {
        self.fd = fd
        framer = LineFramer(maxLineBytes: maxLineBytes)
    }

    deinit { chunk.deallocate() }

    /// Waits until the socket has input or was closed; false if the deadline passed first.
    /// Throws `.cancelled` when `interruption` (a descriptor, or -1 for none) becomes readable first.
    func waitReadable(until deadline: Deadline, interruption: Int32 = -1) throws(MilieuClientError) -> Bool {
        while true {
            var requests = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: interruption, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&requests, interruption >= 0 ? 2 : 1, deadline.pollTimeout)
            if ready > 0 && requests[0].revents != 0 { return true }
            if ready > 0 { throw MilieuClientError(.cancelled, "the wait was interrupted") }
            if ready == 0 { return false }
            guard errno == EINTR else { throw systemError("poll") }
        }
    }

    /// Reads until the socket would block, calling `handle` for each complete line.
    /// Returns false when the daemon has closed the connection, or sent a line longer than
    /// `maxLineBytes` (then `overflowed` is true and nothing more is read).
    func readAvailable(_ handle: (UnsafeRawBufferPointer) -> Void) throws(MilieuClientError) -> Bool {
        while true {
            let count = recv(fd, chunk.baseAddress, chunk.count, Int32(MSG_DONTWAIT))
            if count == 0 { return false }
            if count < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return true
                case ECONNRESET: return false
                default: throw systemError("recv")
                }
            }
            framer.feed(UnsafeRawBufferPointer(rebasing: chunk[..<count])) { frame in
                if case .line(let line) = frame { handle(line) }
            }
            if framer.overflowed { return false }
        }
    }

    /// Whether the daemon sent a line past `maxLineBytes`, which ended the reading.
    var overflowed: Bool { framer.overflowed }

    /// The longest line taken.
    var maxLineBytes: Int { framer.maxLineBytes }

    private func systemError(_ call: String) -> MilieuClientError {
        let code = errno
        let text = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
        return MilieuClientError(.systemError, "\(call) on the milieud socket failed: \(text)")
    }
}
