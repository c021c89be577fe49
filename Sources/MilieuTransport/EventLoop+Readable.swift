/// A descriptor an `EventLoop` watches for input on its owner's behalf (`watchReadable`).
public struct ReadableWatch: Sendable, Hashable {
    let token: UInt64
    let fileDescriptor: Int32
}

extension EventLoop {
    /// Calls `body` on the loop thread whenever `fd` has input, or its peer hung up or failed:
    /// for a socket the loop does not own, such as a client's connection to milieud. Watching is
    /// level-triggered, so `body` reads until the descriptor would block, or is called again the
    /// next turn. The descriptor stays the caller's: `stopWatching` it before closing it.
    public func watchReadable(_ fd: Int32, _ body: @escaping () -> Void) throws -> ReadableWatch {
        assertOnLoopThread()
        let token = makeToken()
        try epoll.add(fd, token: token, events: Epoll.readable)
        register(.readable(body), token: token)
        return ReadableWatch(token: token, fileDescriptor: fd)
    }

    /// Stops calling a `watchReadable` body; the descriptor is left open.
    public func stopWatching(_ watch: ReadableWatch) {
        assertOnLoopThread()
        try? epoll.remove(watch.fileDescriptor)
        unregister(token: watch.token)
    }
}
