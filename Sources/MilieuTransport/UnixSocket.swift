import Glibc

/// Blocking client-side socket calls, for the Swift client library and tests.
public enum UnixSocket {
    /// Connects a blocking, close-on-exec stream socket to the server at `path`.
    /// Throws `.notListening` when nothing serves the path, `.pathTooLong` when it
    /// does not fit in a socket address.
    public static func connect(path: String) throws -> Int32 {
        let fd = try Syscall.call("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            try UnixAddress.withAddress(path: path) { address, length in
                var result = Glibc.connect(fd, address, length)
                // An interrupted connect carries on in the kernel; retrying reports where it got.
                while result != 0 && errno == EINTR {
                    result = Glibc.connect(fd, address, length)
                    if result != 0 && errno == EISCONN { result = 0 }
                }
                guard result != 0 else { return }
                let code = errno
                if code == ENOENT || code == ECONNREFUSED {
                    throw TransportError(
                        .notListening, syscall: "connect", errno: code, path: path,
                        detail: "nothing is listening at \(path) (is milieud running?)"
                    )
                }
                throw TransportError.systemCall("connect", errno: code, path: path)
            }
        } catch {
            Syscall.close(fd)
            throw error
        }
        return fd
    }

    /// Writes all of `bytes`, waiting for the socket as needed (it may be blocking or
    /// not). Throws `.timedOut` if `timeout` seconds pass first; never raises SIGPIPE.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, timeout: Double? = nil) throws {
        let deadline = timeout.map { TimerQueue.now() &+ TimerQueue.nanoseconds($0) }
        var offset = 0
        var isSocket = true
        while offset < bytes.count {
            let start = offset
            let result = try Syscall.run("send", callerOwnsDescriptor: true) { () -> Int in
                let base = bytes.baseAddress! + start
                if isSocket {
                    let sent = send(fd, base, bytes.count - start, Int32(MSG_NOSIGNAL))
                    guard sent == -1 && errno == ENOTSOCK else { return sent }
                    isSocket = false
                }
                return write(fd, base, bytes.count - start)
            }
            switch result {
            case .processed(let written):
                offset += written
            case .wouldBlock:
                try waitUntilReady(fd, events: Int16(POLLOUT), deadline: deadline)
            }
        }
    }

    /// Writes all of `bytes`; see the raw-buffer overload.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], timeout: Double? = nil) throws {
        try bytes.withUnsafeBytes { try writeAll(fd, $0, timeout: timeout) }
    }

    /// Polls `fd` for `events` until the monotonic `deadline` (nanoseconds; nil: forever).
    static func waitUntilReady(_ fd: Int32, events: Int16, deadline: UInt64?) throws {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let now = TimerQueue.now()
                guard now < deadline else {
                    throw TransportError(.timedOut, detail: "descriptor \(fd) was not ready in time")
                }
                timeout = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            var request = pollfd(fd: fd, events: events, revents: 0)
            let ready = try Syscall.run("poll", callerOwnsDescriptor: true) { poll(&request, 1, timeout) }
            if request.revents & Int16(POLLNVAL) != 0 {
                throw TransportError.systemCall("poll", errno: EBADF)
            }
            if case .processed(let count) = ready, count > 0 { return }
        }
    }
}
