import Glibc
import Synchronization
import Testing

@testable import MilieuTransport

/// Signals are process-wide: these tests run one at a time.
@Suite(.serialized) struct SignalTests {
    @Test func sigtermSentToTheProcessReachesTheHandlerThroughSignalfd() throws {
        let received = Mutex<[Int32]>([])
        let running = try RunningLoop()
        let loop = running.loop
        try running.sync {
            try loop.handleSignals([SIGTERM, SIGINT]) { signal in
                received.withLock { $0.append(signal) }
                loop.stop()
            }
        }
        // Other threads of this test process never blocked SIGTERM; it must still
        // end up at the loop rather than kill the process.
        kill(getpid(), SIGTERM)
        #expect(running.waitUntilStopped())
        #expect(received.withLock { $0 } == [SIGTERM])
    }

    @Test func sigintIsDeliveredToTheSameHandler() throws {
        let received = Mutex<[Int32]>([])
        let running = try RunningLoop()
        let loop = running.loop
        try running.sync {
            try loop.handleSignals([SIGTERM, SIGINT]) { signal in
                received.withLock { $0.append(signal) }
                loop.stop()
            }
        }
        kill(getpid(), SIGINT)
        #expect(running.waitUntilStopped())
        #expect(received.withLock { $0 } == [SIGINT])
    }
}
