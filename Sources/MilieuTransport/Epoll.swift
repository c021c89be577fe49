import CMilieuShims
import Glibc

/// A thin owner of one epoll instance; events carry a 64-bit token, never a descriptor,
/// so a stale event for a closed-and-reused descriptor cannot reach the wrong owner.
struct Epoll {
    static let readable: UInt32 = EPOLLIN.rawValue
    static let writable: UInt32 = EPOLLOUT.rawValue
    static let hangUp: UInt32 = EPOLLHUP.rawValue
    static let error: UInt32 = EPOLLERR.rawValue

    let fileDescriptor: Int32

    init() throws {
        fileDescriptor = try Syscall.call("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    func add(_ fd: Int32, token: UInt64, events: UInt32) throws {
        try control(EPOLL_CTL_ADD, fd, token: token, events: events)
    }

    func modify(_ fd: Int32, token: UInt64, events: UInt32) throws {
        try control(EPOLL_CTL_MOD, fd, token: token, events: events)
    }

    func remove(_ fd: Int32) throws {
        try control(EPOLL_CTL_DEL, fd, token: 0, events: 0)
    }

    private func control(_ operation: Int32, _ fd: Int32, token: UInt64, events: UInt32) throws {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        try Syscall.call("epoll_ctl") { epoll_ctl(fileDescriptor, operation, fd, &event) }
    }

    /// Waits up to `timeout` milliseconds (-1: forever). An interrupted wait counts as
    /// zero events so the caller re-checks its timers.
    func wait(into events: UnsafeMutableBufferPointer<epoll_event>, timeout: Int32) throws -> Int {
        let count = epoll_wait(fileDescriptor, events.baseAddress, Int32(events.count), timeout)
        if count >= 0 { return Int(count) }
        let code = errno
        if code == EINTR { return 0 }
        throw TransportError.systemCall("epoll_wait", errno: code)
    }

    func close() {
        Syscall.close(fileDescriptor)
    }
}
