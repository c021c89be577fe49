import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import MilieuTransport

@Suite struct EventLoopTests {
    @Test func timersFireInDeadlineOrder() throws {
        let fired = Mutex<[String]>([])
        let running = try RunningLoop { loop in
            loop.schedule(after: 0.06) { fired.withLock { $0.append("third") } }
            loop.schedule(after: 0.02) { fired.withLock { $0.append("first") } }
            loop.schedule(after: 0.04) { fired.withLock { $0.append("second") } }
        }
        defer { running.stop() }
        #expect(eventually { fired.withLock { $0.count } == 3 })
        #expect(fired.withLock { $0 } == ["first", "second", "third"])
    }

    @Test func timersDueTogetherFireInSchedulingOrder() {
        var queue = TimerQueue()
        var fired: [Int] = []
        for index in 0..<5 {
            _ = queue.schedule(deadline: 100) { fired.append(index) }
        }
        while let body = queue.popDue(now: 100, scheduledBefore: queue.nextID) { body() }
        #expect(fired == [0, 1, 2, 3, 4])
    }

    /// The next deadline is always a live timer's, whether the timers cancelled before it were
    /// dropped by asking for it, by firing, or by compacting the queue.
    @Test func theNextDeadlineSkipsCancelledTimers() {
        var queue = TimerQueue()
        var deadlines: [UInt64?] = []
        let ids = (1...4).map { queue.schedule(deadline: UInt64($0) * 10) {} }
        deadlines.append(queue.nextDeadline())
        let cancelled = [queue.cancel(ids[0]), queue.cancel(ids[2])]
        deadlines.append(queue.nextDeadline())
        let fired = [queue.popDue(now: 35, scheduledBefore: queue.nextID), queue.popDue(now: 35, scheduledBefore: queue.nextID)]
        deadlines.append(queue.nextDeadline())
        let cancelledLast = queue.cancel(ids[3])
        deadlines.append(queue.nextDeadline())
        // Past 64 entries, most of them cancelled, the queue is compacted.
        let many = (0..<100).map { queue.schedule(deadline: 1_000 + UInt64($0)) {} }
        let cancelledMany = many.dropLast().map { queue.cancel($0) }
        deadlines.append(queue.nextDeadline())
        _ = queue.schedule(deadline: 500) {}
        deadlines.append(queue.nextDeadline())
        #expect(cancelled == [true, true] && cancelledLast && !cancelledMany.contains(false))
        #expect(fired.map { $0 != nil } == [true, false])
        #expect(deadlines == [10, 20, 40, nil, 1_099, 500])
    }

    @Test func cancelledTimerNeverFires() throws {
        let fired = Mutex<[String]>([])
        let running = try RunningLoop { loop in
            let doomed = loop.schedule(after: 0.02) { fired.withLock { $0.append("cancelled") } }
            loop.schedule(after: 0.04) { fired.withLock { $0.append("kept") } }
            #expect(loop.cancel(doomed))
            #expect(!loop.cancel(doomed))
        }
        defer { running.stop() }
        #expect(eventually { fired.withLock { $0.count } == 1 })
        usleep(30_000)
        #expect(fired.withLock { $0 } == ["kept"])
    }

    @Test func timerWaitsAtLeastItsDelay() throws {
        let start = Date()
        let elapsed = Mutex<Double?>(nil)
        let running = try RunningLoop { loop in
            loop.schedule(after: 0.05) { elapsed.withLock { $0 = Date().timeIntervalSince(start) } }
        }
        defer { running.stop() }
        #expect(eventually { elapsed.withLock { $0 } != nil })
        #expect((elapsed.withLock { $0 } ?? 0) >= 0.05)
    }

    @Test func postFromOtherThreadsRunsOnTheLoopInOrderPerThread() throws {
        let running = try RunningLoop()
        defer { running.stop() }
        let seen = Mutex<[Int: [Int]]>([:])
        let loop = running.loop
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for value in 0..<100 {
                loop.post { seen.withLock { $0[thread, default: []].append(value) } }
            }
        }
        #expect(eventually { seen.withLock { $0.values.map(\.count).reduce(0, +) } == 400 })
        for values in seen.withLock({ $0 }).values {
            #expect(values == Array(0..<100))
        }
    }

    @Test func wakeUpFromAnotherThreadInterruptsAnIdleWait() throws {
        let turns = Mutex(0)
        let handler = RecordingHandler()
        let directory = try TemporaryDirectory()
        let listener = try UnixListener(path: directory.file("s.sock"))
        handler.onTurnEnd = { turns.withLock { $0 += 1 } }
        let running = try RunningLoop { try $0.serve(listener: listener, handler: handler) }
        defer { running.stop() }
        usleep(50_000)
        let before = turns.withLock { $0 }
        let loop = running.loop
        let thread = Thread { loop.wakeUp() }
        thread.start()
        #expect(eventually { turns.withLock { $0 } > before })
    }

    @Test func stopFromAnotherThreadMakesRunReturn() throws {
        let running = try RunningLoop()
        let loop = running.loop
        Thread { loop.stop() }.start()
        #expect(running.waitUntilStopped())
    }

    @Test func closeClosesEveryConnectionWithLoopClosed() throws {
        let directory = try TemporaryDirectory()
        let listener = try UnixListener(path: directory.file("s.sock"))
        let handler = RecordingHandler()
        let running = try RunningLoop { try $0.serve(listener: listener, handler: handler) }
        let clients = try (0..<3).map { _ in try UnixSocket.connect(path: listener.path ?? "") }
        defer { clients.forEach { _ = close($0) } }
        #expect(eventually { handler.record.withLock { $0.opened.count } == 3 })
        running.stop()
        #expect(handler.record.withLock { $0.closed.map(\.reason) } == Array(repeating: .loopClosed, count: 3))
        for client in clients {
            #expect(try BlockingLineReader(fd: client).readLine(timeout: 5) == nil)
        }
    }

    @Test func acceptRunningOutOfDescriptorsPausesTheListenerInsteadOfSpinning() throws {
        let directory = try TemporaryDirectory()
        let listener = try UnixListener(path: directory.file("s.sock"))
        let handler = RecordingHandler()
        let running = try RunningLoop { try $0.serve(listener: listener, handler: handler) }
        defer { running.stop() }
        let loop = running.loop

        // What acceptConnections does when accept4 fails with EMFILE.
        let pausedAt = Date()
        try running.sync {
            guard let entry = loop.listeners.first else { return }
            loop.pauseAccepting(entry, because: TransportError.systemCall("accept4", errno: EMFILE, path: listener.path))
        }
        #expect(handler.record.withLock { $0.acceptFailures.map(\.errno) } == [EMFILE])
        let turnsBefore = handler.record.withLock { $0.turnsEnded }
        let client = try UnixSocket.connect(path: listener.path ?? "")
        defer { close(client) }
        usleep(30_000)
        let opened = handler.record.withLock { $0.opened.count }
        if Date().timeIntervalSince(pausedAt) < 0.09 {  // a starved test thread may wake after the retry
            #expect(opened == 0, "the listener is not polled while paused")
        }
        #expect(handler.record.withLock { $0.turnsEnded } - turnsBefore < 5, "and the loop does not spin")

        #expect(eventually { handler.record.withLock { $0.opened.count } == 1 }, "accepting resumes after ~100 ms")
        try UnixSocket.writeAll(client, Array("back\n".utf8))
        #expect(try BlockingLineReader(fd: client).readLine(timeout: 5)?.text == "back")
    }
}
