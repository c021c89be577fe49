import MilieuProtocol
import MilieuTransport

/// The daemon's memory held for clients, bounded (SPEC §1.5, §13): unfinished lines by age and
/// by a daemon-wide budget, unsent output by a daemon-wide budget, and both checked by a timer
/// as well as when bytes arrive or are queued, so that a client that goes quiet is still caught.
extension Server {
    /// How often the timer looks at the sessions holding unfinished lines or unsent output.
    var housekeepingInterval: Double {
        min(1, Double(configuration.incompleteLineSeconds) / 2, configuration.outputLimits.softSeconds / 2)
    }

    /// Starts the timer; it runs until the loop stops. The loop runs only inside `run`, so the
    /// timer never fires without the server. Unowned: a `weak` capture gives the server a side
    /// table, and every retain and release of it then took the runtime's slow path (some 130
    /// instructions a loop turn; callgrind).
    func scheduleHousekeeping() {
        loop.schedule(after: housekeepingInterval) { [unowned self] in
            housekeeping()
            scheduleHousekeeping()
        }
    }

    /// Closes connections whose unfinished line is too old, and drops readers over their output
    /// limits though nothing more is queued for them. Visits only the sessions holding bytes.
    func housekeeping() {
        let now = Moment.now
        let maximum = Duration.seconds(configuration.incompleteLineSeconds)
        for id in bufferedInput.sessions {
            guard let session = sessions[id] else {
                bufferedInput.set(0, for: id)
                continue
            }
            guard let started = session.lineStartedAt, started.duration(to: now) > maximum else { continue }
            let seconds = configuration.incompleteLineSeconds
            refuseUnfinishedLine(
                of: session,
                .limitExceeded(
                    "lineSeconds", max: seconds,
                    message: "a line stayed unfinished for more than \(seconds) s; send each message whole, ended by a newline"),
                log: "its line of \(session.framer.pendingBytes) bytes stayed unfinished for more than \(seconds) s")
        }
        for id in bufferedOutput.sessions {
            guard let session = sessions[id] else {
                bufferedOutput.set(0, for: id)
                continue
            }
            enforceOutputLimits(session)
        }
    }

    /// Keeps the age and size of `session`'s unfinished line, after bytes arrived; past the
    /// daemon-wide input budget, the sessions holding the most are refused until the rest fits.
    func noteUnfinishedLine(of session: ClientSession, restarted: Bool) {
        guard !session.closed else { return }
        let pending = session.framer.pendingBytes
        if pending == 0 {
            session.lineStartedAt = nil
        } else if restarted || session.lineStartedAt == nil {
            session.lineStartedAt = .now
        }
        bufferedInput.set(pending, for: session.id)
        let budget = configuration.maxBufferedInputBytes
        while bufferedInput.total > budget, let largest = bufferedInput.largest {
            guard let owner = sessions[largest] else {
                bufferedInput.set(0, for: largest)
                continue
            }
            refuseUnfinishedLine(
                of: owner,
                .limitExceeded(
                    "bufferedInput", max: budget,
                    message:
                        "the daemon holds more than \(budget) bytes of unfinished lines, and this connection the most (\(owner.framer.pendingBytes)); the connection will be closed"
                ),
                log: "its unfinished line of \(owner.framer.pendingBytes) bytes is the largest when all of them pass \(budget) bytes")
        }
    }

    /// Drops what is held of `session`'s unfinished line, and closes it after `error`.
    private func refuseUnfinishedLine(of session: ClientSession, _ error: RPCError, log reason: String) {
        log.warning("closing connection \(session.id): \(reason)")
        session.framer.stop()
        session.lineStartedAt = nil
        bufferedInput.set(0, for: session.id)
        closeAfter(error, to: session)
    }

    /// Counts `session`'s unsent output against the daemon-wide budget; past it, the sessions
    /// with the most are dropped as slow consumers until the rest fits. The running total counts
    /// what each session held when last looked at: only when it says the budget is passed is
    /// every counted session looked at again, since their output may have been written since.
    func trackOutput(of session: ClientSession, _ pending: Int) {
        let limits = configuration.outputLimits
        bufferedOutput.set(pending >= limits.tracked ? pending : 0, for: session.id)
        guard bufferedOutput.total > limits.budget else { return }
        for id in bufferedOutput.sessions {
            let now = sessions[id].map { $0.dropped ? 0 : $0.connection.pendingOutputBytes } ?? 0
            bufferedOutput.set(now >= limits.tracked ? now : 0, for: id)
        }
        while bufferedOutput.total > limits.budget, let largest = bufferedOutput.largest {
            guard let owner = sessions[largest] else {
                bufferedOutput.set(0, for: largest)
                continue
            }
            let pending = owner.connection.pendingOutputBytes
            drop(
                owner, because: "the unsent output of all clients passed \(limits.budget) bytes and this one had the most", pending: pending
            )
        }
    }
}
