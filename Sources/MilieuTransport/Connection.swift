import CMilieuShims
import Glibc

/// One accepted client socket, driven by its `EventLoop`.
///
/// Threading rule: use it only on its loop's thread (handler callbacks, timers and
/// posted blocks run there); debug builds check. Output is buffered and written at
/// the end of the loop turn, many messages per system call, or before it when the handler
/// asks (`writeAhead`).
public final class Connection: PeerConnection {
    /// Unique among the connections of its loop, never reused.
    public let id: Int
    /// Who connected, from SO_PEERCRED at accept time.
    public let peer: PeerCredentials

    let fileDescriptor: Int32
    /// The loop, not counted: it outlives every connection it has not closed or abandoned (its
    /// `deinit` abandons them all), and each use comes after a check that this one is neither, or
    /// from the loop itself. Through an `unowned` reference, every send loaded it strongly (a
    /// retain and its release: 57 instructions a fan-out's delivery, 148 a persistent round trip,
    /// callgrind); `scheduleFlush` reaches it without either.
    private let unownedLoop: Unmanaged<EventLoop>
    #if DEBUG
    /// Debug builds also hold the loop `unowned`, and reach it through this, which traps if a slip
    /// ever reaches a loop that has gone instead of reading freed memory.
    private unowned let checkedLoop: EventLoop
    private var loop: EventLoop { checkedLoop }
    #else
    private var loop: EventLoop { unownedLoop.takeUnretainedValue() }
    #endif
    private let handler: any ConnectionHandler
    private var output = OutputQueue()
    private var state = State.open
    private var readingPaused = false
    /// Whether epoll currently watches for EPOLLOUT.
    private var waitingForWritable = false
    /// The peer hung up while reading was paused; the descriptor is out of epoll
    /// until reading resumes, because a hang-up is reported whatever we ask for.
    private var parkedAfterHangUp = false
    private var closeTimer: TimerID?
    var isQueuedForFlush = false

    private enum State {
        case open
        case closingAfterFlush
        case closed
    }

    init(id: Int, fileDescriptor: Int32, peer: PeerCredentials, loop: EventLoop, handler: any ConnectionHandler) {
        self.id = id
        self.fileDescriptor = fileDescriptor
        self.peer = peer
        unownedLoop = .passUnretained(loop)
        #if DEBUG
        checkedLoop = loop
        #endif
        self.handler = handler
    }

    /// False once closed, by either side.
    public var isOpen: Bool { state != .closed }

    /// Bytes sent but not yet taken by the kernel: what a server limits for slow readers.
    public var pendingOutputBytes: Int { output.count }

    /// Whether `pauseReading()` (or `closeAfterFlush()`) stopped reading.
    public var isReadingPaused: Bool { readingPaused }

    /// Appends bytes to the output buffer; written at the end of this loop turn.
    /// Ignored once the connection is closed or closing after a flush.
    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard state == .open, !bytes.isEmpty else { return }
        assertOnLoopThread()
        output.append(bytes)
        scheduleFlush()
    }

    /// Queues bytes shared with other connections without copying them; written with the rest.
    public func send(shared bytes: SharedBytes) {
        guard state == .open, bytes.count > 0 else { return }
        assertOnLoopThread()
        output.append(bytes)
        scheduleFlush()
    }

    /// Writes what is queued now rather than at the end of the loop turn, with one system call
    /// (up to `OutputQueue.maxVectors` runs): for output a peer waits on while the handler
    /// still works (a fan-out's notifications, each client reading its own while the next are
    /// queued). Whatever it leaves, output the socket does not take now or an error, the
    /// turn's flush deals with as ever: a close here would call the handler in the middle of
    /// its work.
    public func writeAhead() {
        guard state == .open, !waitingForWritable, !parkedAfterHangUp, !output.isEmpty else { return }
        assertOnLoopThread()
        _ = try? writeOnce()
    }

    /// Closes the connection now, dropping unsent output; `connectionClosed` follows
    /// with `.closedLocally` before this returns.
    public func close() {
        close(reason: .closedLocally)
    }

    /// Stops reading, writes what is buffered, then closes (`.closedLocally`), e.g.
    /// after the error line for an oversized message. If the peer does not take the
    /// output within `timeout` seconds the connection is closed anyway (`.failed`).
    public func closeAfterFlush(timeout: Double) {
        guard state == .open else { return }
        assertOnLoopThread()
        if parkedAfterHangUp {
            close(reason: .peerClosed)  // nobody is left to read it
            return
        }
        state = .closingAfterFlush
        readingPaused = true
        closeTimer = loop.schedule(after: timeout) { [weak self] in
            self?.closeTimer = nil
            self?.close(
                reason: .failed(
                    TransportError(.timedOut, detail: "the peer did not read its last \(self?.pendingOutputBytes ?? 0) bytes in time")))
        }
        if pendingOutputBytes == 0 {
            close(reason: .closedLocally)
        } else {
            updateInterest()
            scheduleFlush()
        }
    }

    /// Whether the peer has closed its side, asked of the socket now rather than at the loop's
    /// next turn; a connection whose peer is gone is closed here (`connectionClosed` follows).
    /// For a server that must free a slot before refusing a newcomer for want of one.
    public func closeIfPeerClosed() -> Bool {
        guard state != .closed else { return true }
        assertOnLoopThread()
        var byte: UInt8 = 0
        guard recv(fileDescriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 else { return false }
        peerClosed()
        return true
    }

    /// Stops reading from the socket (backpressure) until `resumeReading()`.
    public func pauseReading() {
        guard state == .open, !readingPaused else { return }
        assertOnLoopThread()
        readingPaused = true
        updateInterest()
    }

    /// Reads again after `pauseReading()`.
    public func resumeReading() {
        guard state == .open, readingPaused else { return }
        assertOnLoopThread()
        readingPaused = false
        if parkedAfterHangUp {
            parkedAfterHangUp = false
            do {
                try loop.epoll.add(fileDescriptor, token: UInt64(id), events: interest)
            } catch {
                fail(error)
                return
            }
            if pendingOutputBytes > 0 { scheduleFlush() }
        } else {
            updateInterest()
        }
    }

    /// The loop's threading rule, checked in debug builds: `loop` is read inside the assertion,
    /// which release builds do not evaluate, so that they load nothing for it.
    @inline(__always)
    private func assertOnLoopThread(_ function: StaticString = #function) {
        assert(loop.isOnLoopThread, "Connection.\(function) called off the loop thread")
    }

    // MARK: Driven by the loop

    func handle(events: UInt32) {
        if events & Epoll.writable != 0 {
            flush()
        }
        guard state != .closed else { return }
        if !readingPaused, events & (Epoll.readable | Epoll.hangUp | Epoll.error) != 0 {
            readOnce()
        } else if events & (Epoll.hangUp | Epoll.error) != 0 {
            peerHungUpWhilePaused(error: events & Epoll.error != 0)
        }
    }

    private func readOnce() {
        let buffer = loop.readBuffer
        let fd = fileDescriptor
        do {
            switch try Syscall.run("read", { milieu_read(fd, buffer.baseAddress, buffer.count) }) {
            case .processed(0):
                peerClosed()
            case .processed(let count):
                handler.connection(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            case .wouldBlock:
                break
            }
        } catch {
            fail(error)
        }
    }

    /// The peer shut its side: write what we can without waiting, then close ours
    /// too rather than keep a half-open socket.
    private func peerClosed() {
        if pendingOutputBytes > 0 {
            flush()
        }
        close(reason: .peerClosed)
    }

    private func peerHungUpWhilePaused(error: Bool) {
        if state == .closingAfterFlush || error {
            // Nobody will read what is left, or the socket is broken: read the
            // error (if any) and give up.
            if error, let code = try? Syscall.socketOption(fileDescriptor, SO_ERROR, name: "getsockopt(SO_ERROR)"), code != 0 {
                fail(TransportError.systemCall("read", errno: code))
            } else {
                close(reason: .peerClosed)
            }
            return
        }
        // Requests already received may still be processed once reading resumes.
        parkedAfterHangUp = true
        try? loop.epoll.remove(fileDescriptor)
    }

    private func scheduleFlush() {
        guard !isQueuedForFlush, !waitingForWritable, !parkedAfterHangUp else { return }
        isQueuedForFlush = true
        #if DEBUG
        loop.queueFlush(self)
        #else
        unownedLoop._withUnsafeGuaranteedRef { $0.queueFlush(self) }
        #endif
    }

    /// Writes as much output as the socket takes now, several runs a call (`sendmsg`); the rest
    /// waits for EPOLLOUT. One run, nearly all output, goes by `send`, which spares the kernel
    /// reading a message header and an iovec array: some 70–100 ns of a 1.1 µs write of 160 bytes.
    func flush() {
        guard state != .closed else { return }
        while !output.isEmpty {
            let result: IOResult<Int>
            do {
                result = try writeOnce()
            } catch {
                fail(error)
                return
            }
            if case .wouldBlock = result {
                output.compact()
                setWaitingForWritable(true)
                return
            }
        }
        setWaitingForWritable(false)
        if state == .closingAfterFlush {
            close(reason: .closedLocally)
        }
    }

    /// Writes what is queued as far as the socket takes it, in one call: the runs that follow
    /// the first go with it (`sendmsg`), one run alone by `send`.
    private func writeOnce() throws -> IOResult<Int> {
        let fd = fileDescriptor
        return try output.write { iovecs in
            if iovecs.count == 1 {
                let run = iovecs[0]
                return try Syscall.run("send") { milieu_send(fd, run.iov_base, run.iov_len, Int32(MSG_NOSIGNAL)) }
            }
            var message = msghdr()
            message.msg_iov = iovecs.baseAddress
            message.msg_iovlen = iovecs.count
            return try Syscall.run("sendmsg") { milieu_sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
        }
    }

    private func setWaitingForWritable(_ waiting: Bool) {
        guard waitingForWritable != waiting else { return }
        waitingForWritable = waiting
        updateInterest()
    }

    private var interest: UInt32 {
        (readingPaused ? 0 : Epoll.readable) | (waitingForWritable ? Epoll.writable : 0)
    }

    private func updateInterest() {
        guard state != .closed, !parkedAfterHangUp else { return }
        do {
            try loop.epoll.modify(fileDescriptor, token: UInt64(id), events: interest)
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: any Error) {
        guard let error = error as? TransportError else {
            close(reason: .failed(TransportError(.systemCall, detail: "\(error)")))
            return
        }
        if error.errno == ECONNRESET || error.errno == EPIPE {
            close(reason: .peerClosed)
        } else {
            close(reason: .failed(error))
        }
    }

    func close(reason: ConnectionCloseReason) {
        guard state != .closed else { return }
        assertOnLoopThread()
        state = .closed
        if let closeTimer {
            loop.cancel(closeTimer)
            self.closeTimer = nil
        }
        loop.unregister(token: UInt64(id))
        // Closing the descriptor also takes it out of epoll.
        Syscall.close(fileDescriptor)
        output.removeAll()
        handler.connectionClosed(self, reason: reason)
    }

    /// Closes the descriptor without callbacks or touching the loop: for its deinit.
    func abandon() {
        guard state != .closed else { return }
        state = .closed
        Syscall.close(fileDescriptor)
    }
}
