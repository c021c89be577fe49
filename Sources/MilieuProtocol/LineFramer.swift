#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Splits a byte stream into lines ended by `\n` (a `\r` before it is dropped and not counted;
/// lines of only spaces and tabs are skipped), refusing any line longer than `maxLineBytes`.
///
/// A small state machine with no I/O: bytes go in as they are read, lines come out in order.
/// Complete lines inside one chunk are handed out without copying.
public struct LineFramer: Sendable {
    public let maxLineBytes: Int
    private var partial: [UInt8] = []
    /// Set once a line was too long; the framer yields nothing after that.
    public private(set) var overflowed = false
    /// Newlines seen so far: when it moved, an unfinished line that remains is a new one.
    public private(set) var completedLines = 0
    /// A line buffer grown past this is let go once its line is handed out, so that one long
    /// line does not pin its memory for the connection's life.
    private static let retainedCapacity = 64 << 10

    public init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// What the framer found in the bytes fed to it.
    public enum Frame {
        /// One line, without its terminator; valid only during the callback.
        case line(UnsafeRawBufferPointer)
        /// A line passed the limit; `size` is how many bytes it had reached.
        case tooLarge(size: Int)
    }

    /// Feeds `bytes` and calls `handle` for each complete line, in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Frame) -> Void) {
        guard !overflowed, let base = bytes.baseAddress else { return }
        var start = 0
        let count = bytes.count
        while start < count {
            guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), count - start) else {
                let rest = count - start
                // One byte of slack: it may be the `\r` of a line at the limit. Subtracted on the
                // left, so that a bound as large as `Int.max` cannot overflow.
                guard partial.count + rest - 1 <= maxLineBytes else { return overflow(partial.count + rest, handle) }
                partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<count]))
                return
            }
            let end = UnsafeRawPointer(found) - base
            completedLines += 1
            if partial.isEmpty {
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                guard Self.contentLength(line) <= maxLineBytes else { return overflow(line.count, handle) }
                emit(line, handle)
            } else {
                partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                let length = partial.withUnsafeBytes(Self.contentLength)
                guard length <= maxLineBytes else { return overflow(partial.count, handle) }
                let line = partial
                partial.removeAll(keepingCapacity: partial.capacity <= Self.retainedCapacity)
                line.withUnsafeBytes { emit($0, handle) }
            }
            start = end + 1
        }
    }

    /// Lets go of the unfinished line and yields nothing more: its connection is being closed.
    public mutating func stop() {
        overflowed = true
        partial = []
    }

    /// Bytes held for a line not yet ended.
    public var pendingBytes: Int { partial.count }

    /// A line's length without a trailing `\r`.
    private static func contentLength(_ line: UnsafeRawBufferPointer) -> Int {
        line.last == UInt8(ascii: "\r") ? line.count - 1 : line.count
    }

    private func emit(_ line: UnsafeRawBufferPointer, _ handle: (Frame) -> Void) {
        let content = UnsafeRawBufferPointer(rebasing: line[0..<Self.contentLength(line)])
        guard !Self.isBlank(content) else { return }
        handle(.line(content))
    }

    /// Whether `line` (without its `\n`) is JSON whitespace alone (RFC 8259: space, tab, CR),
    /// which is no message: it gets no response (SPEC §1.3).
    public static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        !line.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
    }

    private mutating func overflow(_ size: Int, _ handle: (Frame) -> Void) {
        overflowed = true
        partial = []
        handle(.tooLarge(size: size))
    }
}
