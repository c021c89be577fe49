import MilieuEngine
import MilieuJSON
import MilieuProtocol

/// What one loop turn sends once its changes are in the log (`Server.loopTurnEnded`): each
/// line's response, the lines that must follow it (a resumed watch's replay), its commits and
/// what to answer with an error if the log could not take them. They live in turn-wide
/// buffers that keep their storage from turn to turn, each line a range of them, so answering a
/// line allocates nothing of its own (a response writer and two arrays a line cost about 1.5k
/// instructions of a pipelined `graph/set`).
struct Turn {
    /// One line's share of the turn.
    struct Line {
        /// The connection it answers (its session's id); nil for a commit no request made (a
        /// closed connection's views going). An id, not the session: copying a line, as sending
        /// the turn does, then copies no reference.
        let connection: Int?
        let response: Range<Int>
        let followUps: Range<Int>
        let commits: Range<Int>
        /// A request's id; none for a notification or a batch (its answers are in `batchAnswers`).
        let ids: Range<Int>
        let isBatch: Bool
        /// Whether it staged writes to the store (for a batch, any element, a notification
        /// included): only those answers depend on the log.
        let wrote: Bool
        /// The connection is closed once this has been written (after MessageTooLarge).
        let closeAfter: Bool
    }

    /// Where the line being answered begins in each buffer.
    struct Start {
        let response: Int
        let followUps: Int
        let commits: Int
        let ids: Int
    }

    /// A batch's answer to one of its elements: the request's id, where the answer is (in
    /// `responses`, or in the batch's array while it is being written), and whether the request
    /// staged writes, when it must be replaced with an error if the log cannot take them.
    struct BatchAnswer {
        let id: RequestID
        let bytes: Range<Int>
        let wrote: Bool
    }

    var responses = JSONWriter()
    var followUps = JSONWriter(capacity: 0)
    /// The turn's commits in order, each with what made it (`graph/explain`); nil once
    /// published (`takeCommit`).
    private(set) var commits: [Made?] = []
    /// The `_printChanges` lines of undeclared views, for watches of every view's line
    /// (`WatchRegistry.printLines`), by commit index; only commits that have some.
    var printLines: [Int: [Int: String]] = [:]
    var ids: [RequestID] = []
    /// The answers of the turn's batches, sorted by `bytes`: a batch line finds its own by its
    /// response's range, so `Line` keeps no range of them.
    var batchAnswers: [BatchAnswer] = []
    private(set) var lines: [Line] = []

    /// Storage past this is released after the turn rather than kept (one large answer).
    private static let retainedBytes = 1 << 20

    var isEmpty: Bool { lines.isEmpty }

    /// A commit and what made it.
    struct Made {
        let commit: Commit
        let cause: StoredCause
    }

    /// Adds a commit, what made it and its undeclared views' `_printChanges` lines.
    mutating func append(_ commit: consuming Commit, cause: consuming StoredCause, printLines lines: [Int: String] = [:]) {
        if !lines.isEmpty { printLines[commits.count] = lines }
        commits.append(Made(commit: commit, cause: cause))
    }

    /// Whether the turn holds commits. While its lines are read none is published yet: a watch
    /// made then must not be told of them as they go out (`WatchRegistry.holdBack`).
    var hasCommits: Bool { !commits.isEmpty }

    /// The turn's commits after `version` not yet published, oldest first, with what made each:
    /// what a watch resuming from `version` missed that the history does not hold yet. A commit
    /// that made no version of its own is left out, as `Server.publish` leaves it out.
    func unpublished(after version: Version) -> [(commit: Commit, cause: StoredCause?)] {
        var found: [(commit: Commit, cause: StoredCause?)] = []
        for case let made? in commits where made.commit.version > (found.last?.commit.version ?? version) {
            found.append((made.commit, made.cause))
        }
        return found
    }

    /// Moves commit `index` out to be published: the history keeps it, and a copy and its
    /// release cost two retains and two releases a write (callgrind). Nil once taken, so that a
    /// commit is published once.
    mutating func takeCommit(_ index: Int) -> Made? { commits[index].take() }

    /// The bytes of the answers and follow-ups written since `start` (nil: this turn's all).
    func answerBytes(since start: Start?) -> Int {
        responses.count + followUps.count - (start.map { $0.response + $0.followUps } ?? 0)
    }

    /// Lets go of the answers and follow-ups written since `start`, those of a client dropped
    /// before they were sent: its lines stay, so that their commits are published, but they are
    /// never sent (`Server.loopTurnEnded` skips a dropped client's lines).
    mutating func discardAnswers(since start: Start) {
        responses.truncate(to: start.response)
        followUps.truncate(to: start.followUps)
        batchAnswers.removeAll { $0.bytes.lowerBound >= start.response }
    }

    /// Where a line answered from now on begins.
    var start: Start { Start(response: responses.count, followUps: followUps.count, commits: commits.count, ids: ids.count) }

    /// Ends the line begun at `start`: everything written since is its share.
    mutating func endLine(
        from start: Start, connection: Int?, isBatch: Bool = false, wrote: Bool = false, closeAfter: Bool = false
    ) {
        lines.append(
            Line(
                connection: connection, response: start.response..<responses.count, followUps: start.followUps..<followUps.count,
                commits: start.commits..<commits.count, ids: start.ids..<ids.count, isBatch: isBatch, wrote: wrote,
                closeAfter: closeAfter))
    }

    /// The response sent instead of `line`'s when the log could not take the turn's changes: the
    /// error for its request, or a batch's array with the error for each request that wrote
    /// (its reads and failures keep their answers). Nothing for notifications, as when they
    /// succeed (a batch of them gets no array).
    func notDurableReply(for line: Line) -> JSONWriter {
        var writer = JSONWriter(capacity: 0)
        if line.isBatch {
            let answers = batchAnswers(in: line.response)
            guard !answers.isEmpty else { return writer }
            writer.writeRaw(UInt8(ascii: "["))
            for (index, answer) in answers.enumerated() {
                if index > 0 { writer.writeRaw(UInt8(ascii: ",")) }
                if answer.wrote {
                    Envelope.error(id: answer.id, Self.notDurable, into: &writer)
                } else {
                    responses.withBytes(in: answer.bytes) { writer.writeRaw($0) }
                }
            }
            writer.writeRaw(UInt8(ascii: "]"))
        } else {
            guard let id = ids[line.ids].first else { return writer }
            Envelope.error(id: id, Self.notDurable, into: &writer)
        }
        writer.writeRaw(UInt8(ascii: "\n"))
        return writer
    }

    /// The batch answers whose bytes lie in `response`.
    private func batchAnswers(in response: Range<Int>) -> ArraySlice<BatchAnswer> {
        let low = batchAnswers.partitionIndex { $0.bytes.lowerBound < response.lowerBound }
        var end = low
        while end < batchAnswers.count, batchAnswers[end].bytes.upperBound <= response.upperBound { end += 1 }
        return batchAnswers[low..<end]
    }

    private static let notDurable = RPCError.internalError(
        "the change is applied in memory but could not be written to the database; it will be written when the disk allows")

    /// Empties the turn for reuse, keeping its storage unless one large answer grew it.
    mutating func reset() {
        responses.removeAll(keepingCapacity: responses.capacity <= Self.retainedBytes)
        followUps.removeAll(keepingCapacity: followUps.capacity <= Self.retainedBytes)
        commits.removeAllKeepingCapacity()
        printLines.removeAll()
        ids.removeAllKeepingCapacity()
        batchAnswers.removeAllKeepingCapacity()
        lines.removeAllKeepingCapacity()
    }
}
