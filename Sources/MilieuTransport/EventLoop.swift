import CMilieuShims
import Glibc
import Synchronization

/// A single-threaded epoll loop that drives listeners, connections, timers and signals.
///
/// Threading rule: the loop and its connections belong to one thread, the thread
/// that calls `run()` (before that, the thread that created the loop, which may set
/// it up and then hand it over). Only `stop()`, `wakeUp()` and `post(_:)` may be
/// called from other threads. Debug builds check the rule on every entry point,
/// which is why the class is `@unchecked Sendable`: other threads need a reference
/// to post to it.
public final class EventLoop: @unchecked Sendable {
    /// Bytes read per readable event, into one buffer the loop reuses.
    static let readChunk = 64 * 1024

    // MARK: Shared with other threads
    private let remote = Mutex(RemoteState())
    private let stopRequested = Atomic<Bool>(false)
    private let wakeDescriptor: Int32

    // MARK: Loop thread only
    let epoll: Epoll
    private var ownerThread: pthread_t
    /// By token (`IDTable`: one is looked up at every event).
    private var registrations = IDTable<Registration>()
    private var nextToken: UInt64 = Token.firstDynamic
    private var handlers: [any ConnectionHandler] = []
    var listeners: [ListenerRegistration] = []
    private var dirty: [Connection] = []
    private var flushing: [Connection] = []
    var timers = TimerQueue()
    let signals = SignalRegistry()
    private var isRunning = false
    private(set) var isClosed = false
    let readBuffer: UnsafeMutableRawBufferPointer
    private let events: UnsafeMutableBufferPointer<epoll_event>

    private struct RemoteState {
        var posted: [@Sendable () -> Void] = []
        var wakePending = false
        var closed = false
    }

    enum Token {
        static let wake: UInt64 = 0
        static let signals: UInt64 = 1
        static let firstDynamic: UInt64 = 2
    }

    enum Registration {
        case wake
        case signals
        case listener(ListenerRegistration)
        case connection(Connection)
        case readable(() -> Void)
    }

    /// Creates the epoll instance and the eventfd other threads wake it with, and
    /// ignores SIGPIPE for the whole process (writes also pass MSG_NOSIGNAL).
    public init() throws {
        _ = Self.ignoreBrokenPipe
        epoll = try Epoll()
        do {
            wakeDescriptor = try Syscall.call("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            epoll.close()
            throw error
        }
        do {
            try epoll.add(wakeDescriptor, token: Token.wake, events: Epoll.readable)
        } catch {
            Syscall.close(wakeDescriptor)
            epoll.close()
            throw error
        }
        ownerThread = pthread_self()
        readBuffer = .allocate(byteCount: Self.readChunk, alignment: 16)
        events = .allocate(capacity: 256)
        events.initialize(repeating: epoll_event())
        registrations[Int(Token.wake)] = .wake
    }

    deinit {
        if !isClosed {
            // No callbacks from deinit: the handlers may be going away with us.
            for case .connection(let connection) in registrations.values {
                connection.abandon()
            }
            closeDescriptors()
        }
        readBuffer.deallocate()
        events.deallocate()
    }

    private static let ignoreBrokenPipe: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Checks the threading rule in debug builds.
    @inline(__always)
    func assertOnLoopThread(_ function: StaticString = #function) {
        assert(isOnLoopThread, "EventLoop.\(function) called off the loop thread")
    }

    /// Whether the caller runs on the loop's thread: the one running `run()`, or before that,
    /// the one that made the loop.
    var isOnLoopThread: Bool { pthread_equal(ownerThread, pthread_self()) != 0 }

    /// The number of open connections.
    public var connectionCount: Int {
        assertOnLoopThread()
        return registrations.values.reduce(0) { count, registration in
            if case .connection = registration { return count + 1 }
            return count
        }
    }

    /// Runs the loop on the calling thread until `stop()`. Each turn handles one
    /// epoll_wait batch, fires due timers, calls `loopTurnEnded()` on every handler,
    /// then writes all buffered output.
    public func run() throws {
        precondition(!isRunning, "EventLoop.run() is already running")
        guard !isClosed else {
            throw TransportError(.invalidDescriptor, detail: "EventLoop.run() called after close()")
        }
        ownerThread = pthread_self()
        isRunning = true
        defer {
            isRunning = false
            stopRequested.store(false, ordering: .relaxed)
        }
        try signals.adoptCurrentThread()
        while !stopRequested.load(ordering: .relaxed) {
            flushPendingOutput()
            let count = try epoll.wait(into: events, timeout: nextTimeout())
            for index in 0..<count {
                let event = events[index]
                dispatch(token: event.data.u64, events: event.events)
            }
            fireDueTimers()
            for handler in handlers {
                handler.loopTurnEnded()
            }
            flushPendingOutput()
        }
    }

    /// Makes `run()` return once the current turn has finished. Any thread.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        wakeUp()
    }

    /// Interrupts epoll_wait so the loop takes another turn. Any thread.
    public func wakeUp() {
        remote.withLock { state in
            guard !state.closed, !state.wakePending else { return }
            state.wakePending = true
            signalWakeDescriptor()
        }
    }

    /// Runs `block` on the loop thread during its next turn; posts run in order.
    /// Any thread. Dropped if the loop has been closed.
    public func post(_ block: @escaping @Sendable () -> Void) {
        remote.withLock { state in
            guard !state.closed else { return }
            state.posted.append(block)
            if !state.wakePending {
                state.wakePending = true
                signalWakeDescriptor()
            }
        }
    }

    /// Called with the lock held, so the descriptor cannot be closed under us.
    private func signalWakeDescriptor() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    private func runPosted() {
        // Clear the counter before taking the queue, so a post racing with us either
        // lands in this batch or writes the eventfd again.
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, MemoryLayout<UInt64>.size)
        let blocks = remote.withLock { state -> [@Sendable () -> Void] in
            state.wakePending = false
            defer { state.posted.removeAll() }
            return state.posted
        }
        for block in blocks {
            block()
        }
    }

    /// Runs `body` on the loop thread after `seconds`; timers due at the same time
    /// fire in the order they were scheduled.
    @discardableResult
    public func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerID {
        assertOnLoopThread()
        return timers.schedule(deadline: TimerQueue.now() &+ TimerQueue.nanoseconds(seconds), body)
    }

    /// Cancels a timer; returns false if it already fired or was cancelled.
    @discardableResult
    public func cancel(_ timer: TimerID) -> Bool {
        assertOnLoopThread()
        return timers.cancel(timer)
    }

    private func nextTimeout() -> Int32 {
        guard let deadline = timers.nextDeadline() else { return -1 }
        let now = TimerQueue.now()
        guard deadline > now else { return 0 }
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(clamping: milliseconds)
    }

    private func fireDueTimers() {
        guard !timers.isEmpty else { return }
        let now = TimerQueue.now()
        let limit = timers.nextID
        while let body = timers.popDue(now: now, scheduledBefore: limit) {
            body()
        }
    }

    private func dispatch(token: UInt64, events: UInt32) {
        // A registration closed earlier in this batch has no entry any more.
        guard let registration = registrations[Int(token)] else { return }
        switch registration {
        case .wake:
            runPosted()
        case .signals:
            signals.deliverPending()
        case .listener(let listener):
            acceptConnections(listener)
        case .connection(let connection):
            connection.handle(events: events)
        case .readable(let body):
            body()
        }
    }

    // MARK: Registrations, for the loop's own extensions and Connection

    func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    func register(_ registration: Registration, token: UInt64) {
        registrations[Int(token)] = registration
    }

    func unregister(token: UInt64) {
        registrations[Int(token)] = nil
    }

    func addHandler(_ handler: any ConnectionHandler) {
        if !handlers.contains(where: { $0 === handler }) {
            handlers.append(handler)
        }
    }

    /// Queues a connection's output to be written at the end of this turn.
    func queueFlush(_ connection: Connection) {
        dirty.append(connection)
    }

    private func flushPendingOutput() {
        // Closing a connection may make its handler send on others; keep going until quiet.
        while !dirty.isEmpty {
            swap(&dirty, &flushing)
            // Taken from the end, each released as it is flushed: emptying the list afterwards
            // went through the runtime's generic array destroy, some 70 instructions a turn.
            // Reversed first, so that they are written in the order they were queued (the
            // handler may have written some ahead, `Connection.writeAhead`; on one connection
            // the order is its queue's, whatever is written when).
            flushing.reverse()
            while let connection = flushing.popLast() {
                connection.isQueuedForFlush = false
                connection.flush()
            }
        }
    }

    /// Closes every connection (reason `.loopClosed`), stops serving every listener
    /// (without closing them: they belong to the caller), drops timers and signal
    /// handling, and releases the loop's descriptors. Call it after `run()` returns.
    public func close() {
        assertOnLoopThread()
        precondition(!isRunning || stopRequested.load(ordering: .relaxed), "EventLoop.close() while running; stop() first")
        guard !isClosed else { return }
        for case .connection(let connection) in registrations.values {
            connection.close(reason: .loopClosed)
        }
        isClosed = true
        closeDescriptors()
        registrations.removeAll()
        handlers.removeAll()
        listeners.removeAll()
        dirty.removeAll()
        timers.removeAll()
    }

    private func closeDescriptors() {
        remote.withLock { state in
            state.closed = true
            state.posted.removeAll()
            Syscall.close(wakeDescriptor)
        }
        signals.close()
        epoll.close()
    }
}
