import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import MilieuTransport

/// A fresh directory under /tmp (short, so socket paths fit), removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/mt-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TransportError.systemCall("mkdtemp", errno: errno)
        }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// An event loop running on its own thread, set up on the test's thread first.
final class RunningLoop: Sendable {
    let loop: EventLoop
    private let finished = DispatchSemaphore(value: 0)

    /// Creates the loop; `setup` runs here, before the loop thread takes over.
    init(_ setup: (EventLoop) throws -> Void = { _ in }) throws {
        loop = try EventLoop()
        try setup(loop)
        let loop = self.loop
        let finished = self.finished
        let thread = Thread {
            do {
                try loop.run()
            } catch {
                Issue.record("EventLoop.run() threw \(error)")
            }
            loop.close()
            finished.signal()
        }
        thread.start()
    }

    /// Runs `body` on the loop thread and waits for its result.
    func sync<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) throws -> Result {
        let result = Mutex<Swift.Result<Result, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.post {
            let value = Swift.Result { try body() }
            result.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success, let value = result.withLock({ $0 }) else {
            throw TransportError(.timedOut, detail: "the loop did not run a posted block")
        }
        return try value.get()
    }

    /// Stops the loop, waits for run() to return and the loop to close.
    func stop() {
        loop.stop()
        #expect(finished.wait(timeout: .now() + 10) == .success, "the loop did not stop")
    }

    /// Waits for run() to return by itself (after a handler stopped it).
    func waitUntilStopped(timeout: Double = 10) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }
}

/// A handler that echoes by default and records what happened.
///
/// `@unchecked Sendable`: the closures are set before the loop starts and then
/// called only on the loop thread; everything recorded sits behind a Mutex.
final class RecordingHandler: ConnectionHandler, @unchecked Sendable {
    struct Closing: Sendable {
        let id: Int
        let reason: ConnectionCloseReason
    }

    struct Record: Sendable {
        var opened: [PeerCredentials] = []
        var openedDescriptors: [Int: (fd: Int32, inode: UInt64)] = [:]
        var closed: [Closing] = []
        var bytesRead = 0
        var turnsEnded = 0
        var pendingSeenAtTurnEnd: [Int] = []
        var acceptFailures: [TransportError] = []
    }

    let record = Mutex(Record())
    var onOpen: (Connection) -> Void = { _ in }
    var onRead: (Connection, UnsafeRawBufferPointer) -> Void = { connection, bytes in connection.send(bytes) }
    var onTurnEnd: () -> Void = {}
    private var live: [Int: Connection] = [:]

    func connectionOpened(_ connection: Connection) {
        var status = stat()
        fstat(connection.fileDescriptor, &status)
        record.withLock {
            $0.opened.append(connection.peer)
            $0.openedDescriptors[connection.id] = (connection.fileDescriptor, UInt64(status.st_ino))
        }
        live[connection.id] = connection
        onOpen(connection)
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        record.withLock { $0.bytesRead += bytes.count }
        onRead(connection, bytes)
    }

    func connectionClosed(_ connection: Connection, reason: ConnectionCloseReason) {
        live[connection.id] = nil
        record.withLock { $0.closed.append(Closing(id: connection.id, reason: reason)) }
    }

    func loopTurnEnded() {
        let pending = live.values.map(\.pendingOutputBytes).filter { $0 > 0 }
        record.withLock {
            $0.turnsEnded += 1
            $0.pendingSeenAtTurnEnd.append(contentsOf: pending)
        }
        onTurnEnd()
    }

    /// Calls `body` with each open connection; loop thread only (use `RunningLoop.sync`).
    func forEachLiveConnection(_ body: (Connection) -> Void) {
        live.values.sorted { $0.id < $1.id }.forEach(body)
    }

    func acceptFailed(_ error: TransportError) {
        record.withLock { $0.acceptFailures.append(error) }
    }
}

/// Polls `condition` until it holds or `timeout` seconds pass.
func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// Reads exactly `count` bytes from a blocking socket, or fewer at end of stream.
func readExactly(_ fd: Int32, _ count: Int, timeout: Double = 10) throws -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(count)
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    let deadline = Date().addingTimeInterval(timeout)
    while result.count < count {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let remaining = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
        guard poll(&request, 1, remaining) > 0 else {
            throw TransportError(.timedOut, detail: "read \(result.count) of \(count) bytes")
        }
        let wanted = min(chunk.count, count - result.count)
        let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
        if got <= 0 { break }
        result.append(contentsOf: chunk[..<got])
    }
    return result
}

/// Binds and listens on a raw socket at `path`, as another process would.
func rawListeningSocket(at path: String, listening: Bool = true) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    try UnixAddress.withAddress(path: path) { address, length in
        guard bind(fd, address, length) == 0 else { throw TransportError.systemCall("bind", errno: errno, path: path) }
    }
    if listening { listen(fd, 16) }
    return fd
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
