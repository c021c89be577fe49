import Glibc

/// The outcome of a nonblocking system call: it did its work, or it would have blocked.
enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

/// The one place system calls are made from, in the spirit of swift-nio's `syscall`:
/// `EINTR` is retried, `EAGAIN` becomes `.wouldBlock`, `EBADF`/`EFAULT` are bugs in
/// our descriptor handling, and every other errno is thrown as a `TransportError`.
enum Syscall {
    /// `callerOwnsDescriptor`: the descriptor came from outside the loop (the public
    /// blocking helpers), where closing it to interrupt a reader is fair play, so
    /// `EBADF` is thrown instead of trapping.
    @inline(__always)
    static func run<Result: FixedWidthInteger>(
        _ name: StaticString,
        path: String? = nil,
        callerOwnsDescriptor: Bool = false,
        _ body: () -> Result
    ) throws -> IOResult<Result> {
        while true {
            let result = body()
            if result != -1 { return .processed(result) }
            let code = Glibc.errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                return .wouldBlock
            case EBADF where !callerOwnsDescriptor, EFAULT:
                preconditionFailure("\(name) failed with \(TransportError.text(ofErrno: code)): a descriptor bug in Milieu")
            default:
                throw TransportError.systemCall("\(name)", errno: code, path: path)
            }
        }
    }

    /// Like `run`, for calls that must not block; "would block" is reported as a failure.
    @inline(__always)
    @discardableResult
    static func call<Result: FixedWidthInteger>(
        _ name: StaticString,
        path: String? = nil,
        _ body: () -> Result
    ) throws -> Result {
        switch try run(name, path: path, body) {
        case .processed(let value):
            return value
        case .wouldBlock:
            throw TransportError.systemCall("\(name)", errno: EAGAIN, path: path)
        }
    }

    /// Closes a descriptor. `EINTR` is not retried: Linux has released the descriptor
    /// already, and a retry could close one another thread has just opened.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Sets `O_NONBLOCK` and `FD_CLOEXEC` on a descriptor we did not open ourselves.
    static func makeNonblockingAndCloseOnExec(_ fd: Int32) throws {
        let flags = try call("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        try call("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let fdFlags = try call("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
        try call("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
    }

    /// Reads an integer socket option.
    static func socketOption(_ fd: Int32, _ option: Int32, name: StaticString) throws -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try call(name) { getsockopt(fd, SOL_SOCKET, option, &value, &length) }
        return value
    }
}
