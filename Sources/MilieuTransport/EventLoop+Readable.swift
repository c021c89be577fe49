import Glibc

/// A descriptor an `EventLoop` watches for input on its owner's behalf (`watchReadable`).
public struct ReadableWatch: Sendable, Hashable {
    let token: UInt64
    /// The loop's own duplicate of the watched descriptor.
    let duplicate: Int32
}

extension EventLoop {
    /// Calls `body` on the loop thread whenever `fd` has input, or its peer hung up or failed:
    /// for a socket the loop does not own, such as a client's connection to milieud. Watching is
    /// level-triggered, so `body` reads until the descriptor would block, or is called again the
    /// next turn. The loop watches a duplicate of `fd` that it owns, so the owner may close `fd`
    /// at any time (a client closes its socket as soon as its peer does); the watch goes on until
    /// `stopWatching`.
    public func watchReadable(_ fd: Int32, _ body: @escaping () -> Void) throws -> ReadableWatch {
        assertOnLoopThread()
        let duplicate = try Syscall.call("fcntl(F_DUPFD_CLOEXEC)") { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
        let token = makeToken()
        do {
            try epoll.add(duplicate, token: token, events: Epoll.readable)
        } catch {
            Syscall.close(duplicate)
            throw error
        }
        register(.readable(body), token: token)
        return ReadableWatch(token: token, duplicate: duplicate)
    }

    /// Stops calling a `watchReadable` body and closes the loop's duplicate of the descriptor.
    public func stopWatching(_ watch: ReadableWatch) {
        assertOnLoopThread()
        unregister(token: watch.token)
        // Closing the duplicate also takes it out of epoll.
        Syscall.close(watch.duplicate)
    }
}
