import CMilieuShims
import Glibc

extension EventLoop {
    /// Delivers `signals` to `handler` on the loop thread through a signalfd.
    ///
    /// The signals are blocked in the calling thread (threads started later inherit
    /// that) and in the thread that runs the loop. Threads that already existed may
    /// still have them unblocked, so a process-wide handler forwards any that land
    /// there to the loop thread. Call it before starting other threads when you can.
    public func handleSignals(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws {
        assertOnLoopThread()
        guard !isClosed else {
            throw TransportError(.invalidDescriptor, detail: "EventLoop.handleSignals called after close()")
        }
        try self.signals.add(signals, handler: handler, epoll: epoll)
        register(.signals, token: Token.signals)
    }
}

/// The signals a loop handles: their mask, their signalfd and their handlers.
/// Loop thread only.
final class SignalRegistry {
    private var descriptor: Int32 = -1
    private var mask = sigset_t()
    private var handlers: [Int32: (Int32) -> Void] = [:]

    init() {
        sigemptyset(&mask)
    }

    func add(_ signals: [Int32], handler: @escaping (Int32) -> Void, epoll: Epoll) throws {
        for signal in signals {
            guard sigaddset(&mask, signal) == 0 else {
                throw TransportError.systemCall("sigaddset", errno: errno)
            }
            handlers[signal] = handler
        }
        try blockInCurrentThread()
        if descriptor < 0 {
            let fd = try Syscall.call("signalfd") { signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
            do {
                try epoll.add(fd, token: EventLoop.Token.signals, events: Epoll.readable)
            } catch {
                Syscall.close(fd)
                throw error
            }
            descriptor = fd
        } else {
            try Syscall.call("signalfd") { signalfd(descriptor, &mask, 0) }
        }
        try forwardToCurrentThread()
    }

    /// `run()` calls this: the loop thread may not be the one that registered.
    func adoptCurrentThread() throws {
        guard descriptor >= 0 else { return }
        try blockInCurrentThread()
        try forwardToCurrentThread()
    }

    private func blockInCurrentThread() throws {
        let result = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard result == 0 else { throw TransportError.systemCall("pthread_sigmask", errno: result) }
    }

    private func forwardToCurrentThread() throws {
        let thread = milieu_gettid()
        for signal in handlers.keys.sorted() {
            guard milieu_forward_signal(signal, thread) == 0 else {
                throw TransportError.systemCall("sigaction", errno: errno)
            }
        }
    }

    /// Reads every pending signal and calls its handler.
    func deliverPending() {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while descriptor >= 0 {
            let fd = descriptor
            guard case .processed(let count)? = try? Syscall.run("read(signalfd)", { read(fd, &info, size) }),
                count == size
            else { return }
            let signal = Int32(bitPattern: info.ssi_signo)
            handlers[signal]?(signal)
        }
    }

    /// Restores the default dispositions and closes the signalfd. They stay blocked
    /// in the loop thread, so one that is pending cannot kill the process late.
    func close() {
        for signal in handlers.keys {
            _ = milieu_stop_forwarding_signal(signal)
        }
        handlers.removeAll()
        if descriptor >= 0 {
            Syscall.close(descriptor)
            descriptor = -1
        }
    }
}
