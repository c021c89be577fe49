import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A thread of the store's own (the fold, the once-a-second fsync) that runs `body` every
/// `interval` seconds, or sooner when woken, until stopped; `stop` runs it a last time and joins.
final class BackgroundThread: @unchecked Sendable {
    private let interval: Double
    private let body: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var thread = pthread_t()
    private var running = false

    init(interval: Double, _ body: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.body = body
        sem_init(semaphore, 0, 0)
    }

    deinit {
        stop()
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func start() {
        guard !running else { return }
        running = true
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { raw in
                let owner = Unmanaged<BackgroundThread>.fromOpaque(raw!).takeRetainedValue()
                owner.loop()
                return nil
            }, context)
    }

    /// Runs the body soon rather than at the next interval.
    func wake() { sem_post(semaphore) }

    /// Runs the body once more, then ends the thread; returns once it has.
    func stop() {
        guard running else { return }
        running = false
        stopping.store(true, ordering: .releasing)
        sem_post(semaphore)
        pthread_join(thread, nil)
    }

    private func loop() {
        while true {
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            let nanoseconds = Int(interval * 1e9) + deadline.tv_nsec
            deadline.tv_sec += nanoseconds / 1_000_000_000
            deadline.tv_nsec = nanoseconds % 1_000_000_000
            while sem_timedwait(semaphore, &deadline) != 0 && errno == EINTR {}
            let last = stopping.load(ordering: .acquiring)
            body()
            if last { return }
        }
    }
}
