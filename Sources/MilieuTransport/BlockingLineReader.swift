import Glibc

/// Reads newline-terminated lines from a socket with a timeout, for clients and tests.
///
/// Not thread-safe: one reader per descriptor, used by one thread at a time.
public final class BlockingLineReader {
    /// The descriptor read from; the reader does not close it.
    public let fileDescriptor: Int32
    private var buffer: [UInt8] = []
    /// Bytes before this index have been returned already.
    private var start = 0
    /// Bytes from `start` up to here are known to hold no newline.
    private var scanned = 0
    private var reachedEnd = false
    private let chunk: UnsafeMutableRawBufferPointer

    public init(fd: Int32) {
        fileDescriptor = fd
        chunk = .allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        chunk.deallocate()
    }

    /// The next line without its "\n"; the unterminated rest at end of stream; nil
    /// once the stream has ended. Throws `.timedOut` if no full line arrives within
    /// `timeout` seconds (nil: wait forever); buffered bytes are kept for the next call.
    public func readLine(timeout: Double? = nil) throws -> [UInt8]? {
        let deadline = timeout.map { TimerQueue.now() &+ TimerQueue.nanoseconds($0) }
        while true {
            if let newline = firstNewline() {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                scanned = 0
                if start == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                } else if start >= 64 * 1024 && start * 2 >= buffer.count {
                    buffer.removeSubrange(0..<start)
                    start = 0
                }
                return line
            }
            scanned = buffer.count - start
            if reachedEnd {
                guard start < buffer.count else { return nil }
                let rest = Array(buffer[start...])
                buffer.removeAll()
                start = 0
                scanned = 0
                return rest
            }
            try fill(deadline: deadline)
        }
    }

    private func firstNewline() -> Int? {
        let from = start + scanned
        guard from < buffer.count else { return nil }
        return buffer.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress,
                let found = memchr(base + from, Int32(UInt8(ascii: "\n")), bytes.count - from)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    private func fill(deadline: UInt64?) throws {
        let fd = fileDescriptor
        let chunk = self.chunk
        while true {
            // Poll first: on a blocking descriptor a bare read would ignore the timeout.
            try UnixSocket.waitUntilReady(fd, events: Int16(POLLIN), deadline: deadline)
            switch try Syscall.run("read", callerOwnsDescriptor: true, { read(fd, chunk.baseAddress, chunk.count) }) {
            case .processed(0):
                reachedEnd = true
                return
            case .processed(let count):
                UnsafeRawBufferPointer(rebasing: chunk[..<count]).withMemoryRebound(to: UInt8.self) {
                    buffer.append(contentsOf: $0)
                }
                return
            case .wouldBlock:
                continue
            }
        }
    }
}
