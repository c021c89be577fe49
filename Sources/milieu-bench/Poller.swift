import CMilieuShims
import Glibc

/// The load generator's epoll instance: level-triggered, each event carrying the index
/// of the connection it concerns.
final class Poller {
    static let readable = EPOLLIN.rawValue
    static let writable = EPOLLOUT.rawValue
    static let failed = EPOLLHUP.rawValue | EPOLLERR.rawValue

    private let fd: Int32
    private let events: UnsafeMutableBufferPointer<epoll_event>

    init() throws {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw BenchError.system("epoll_create1", errno) }
        events = .allocate(capacity: 512)
        events.initialize(repeating: epoll_event())
    }

    deinit {
        close(fd)
        events.deallocate()
    }

    func add(_ descriptor: Int32, index: Int, events interest: UInt32) throws {
        try control(EPOLL_CTL_ADD, descriptor, index: index, events: interest)
    }

    func modify(_ descriptor: Int32, index: Int, events interest: UInt32) throws {
        try control(EPOLL_CTL_MOD, descriptor, index: index, events: interest)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, index: Int, events interest: UInt32) throws {
        var event = epoll_event()
        event.events = interest
        event.data.u64 = UInt64(index)
        guard epoll_ctl(fd, operation, descriptor, &event) == 0 else { throw BenchError.system("epoll_ctl", errno) }
    }

    /// Waits up to `milliseconds` and calls `body(index, events)` for each ready connection.
    func wait(milliseconds: Int32, _ body: (Int, UInt32) throws -> Void) throws {
        let count = epoll_wait(fd, events.baseAddress, Int32(events.count), milliseconds)
        if count < 0 {
            guard errno == EINTR else { throw BenchError.system("epoll_wait", errno) }
            return
        }
        for event in events[..<Int(count)] {
            try body(Int(event.data.u64), event.events)
        }
    }
}
