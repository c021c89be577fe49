import CMilieuShims
import Glibc

/// A listener being served by a loop, and whether it is polled right now.
final class ListenerRegistration {
    let token: UInt64
    let listener: any Listener
    let handler: any ConnectionHandler
    var isPolling = true
    var retryTimer: TimerID?
    /// A descriptor held open (on /dev/null) so that, when the process runs out, one client at a
    /// time can still be accepted on it, told why and closed, instead of waiting in the backlog
    /// for ever. -1 while it is in use, or if it could not be opened.
    var reserve = ListenerRegistration.openReserve()

    init(token: UInt64, listener: any Listener, handler: any ConnectionHandler) {
        self.token = token
        self.listener = listener
        self.handler = handler
    }

    deinit { if reserve >= 0 { Syscall.close(reserve) } }

    static func openReserve() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }
}

extension EventLoop {
    /// How long accepting pauses after accept() fails for lack of descriptors or memory.
    static let acceptRetryDelay = 0.1
    /// Accepts per readable event; the rest wait a turn so reads are not starved.
    static let acceptsPerTurn = 256

    /// Accepts connections on `listener` and hands them to `handler`. The listener
    /// stays the caller's: `stopServing(_:)` it before closing it.
    public func serve(listener: any Listener, handler: any ConnectionHandler) throws {
        assertOnLoopThread()
        let token = makeToken()
        try epoll.add(listener.fileDescriptor, token: token, events: Epoll.readable)
        let entry = ListenerRegistration(token: token, listener: listener, handler: handler)
        register(.listener(entry), token: token)
        listeners.append(entry)
        addHandler(handler)
    }

    /// Stops accepting on `listener`; its open connections are not affected.
    public func stopServing(_ listener: any Listener) {
        assertOnLoopThread()
        guard let index = listeners.firstIndex(where: { $0.listener === listener }) else { return }
        let entry = listeners.remove(at: index)
        if entry.isPolling {
            try? epoll.remove(listener.fileDescriptor)
        }
        if let timer = entry.retryTimer {
            cancel(timer)
        }
        unregister(token: entry.token)
    }

    func acceptConnections(_ entry: ListenerRegistration) {
        let listenFD = entry.listener.fileDescriptor
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        for _ in 0..<Self.acceptsPerTurn where entry.isPolling {
            let fd: Int32
            do {
                switch try Syscall.run("accept4", path: entry.listener.address, { milieu_accept4(listenFD, nil, nil, flags) }) {
                case .wouldBlock:
                    return
                case .processed(let accepted):
                    fd = accepted
                }
            } catch let error as TransportError {
                if error.errno == ECONNABORTED { continue }
                if error.errno == EMFILE || error.errno == ENFILE, refuseOnReserve(entry) { continue }
                // Out of memory, or out of descriptors with none in reserve, or worse: a
                // level-triggered listener would report readable again at once, so rest it
                // instead of spinning.
                pauseAccepting(entry, because: error)
                return
            } catch {
                return
            }
            openConnection(fd: fd, handler: entry.handler)
        }
    }

    /// At the descriptor limit: frees the reserve descriptor, accepts one client on it, sends
    /// it the handler's refusal and closes it, then takes the reserve back. False when there
    /// was no reserve, or no client to accept after all.
    private func refuseOnReserve(_ entry: ListenerRegistration) -> Bool {
        guard entry.reserve >= 0 else { return false }
        Syscall.close(entry.reserve)
        defer { entry.reserve = ListenerRegistration.openReserve() }
        let fd = milieu_accept4(entry.listener.fileDescriptor, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        guard fd >= 0 else { return false }
        let refusal = entry.handler.refusalAtDescriptorLimit()
        // A fresh socket's buffer takes a line at once; what it does not take is lost with the client.
        _ = refusal.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Syscall.close(fd)
        return true
    }

    func pauseAccepting(_ entry: ListenerRegistration, because error: TransportError) {
        entry.handler.acceptFailed(error)
        guard entry.isPolling else { return }
        entry.isPolling = false
        try? epoll.remove(entry.listener.fileDescriptor)
        entry.retryTimer = schedule(after: Self.acceptRetryDelay) { [unowned self] in
            entry.retryTimer = nil
            guard listeners.contains(where: { $0 === entry }), !entry.listener.isClosed else { return }
            do {
                try epoll.add(entry.listener.fileDescriptor, token: entry.token, events: Epoll.readable)
                entry.isPolling = true
            } catch let error as TransportError {
                pauseAccepting(entry, because: error)
            } catch {}
        }
    }

    private func openConnection(fd: Int32, handler: any ConnectionHandler) {
        let token = makeToken()
        let connection: Connection
        do {
            let peer = try PeerCredentials.of(socket: fd)
            try epoll.add(fd, token: token, events: Epoll.readable)
            connection = Connection(id: Int(token), fileDescriptor: fd, peer: peer, loop: self, handler: handler)
        } catch {
            Syscall.close(fd)
            if let error = error as? TransportError { handler.acceptFailed(error) }
            return
        }
        register(.connection(connection), token: token)
        handler.connectionOpened(connection)
    }
}
