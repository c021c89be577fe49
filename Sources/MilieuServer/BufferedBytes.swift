/// Bytes the daemon holds on behalf of some of its sessions (unfinished lines, unsent output),
/// with their running total, so that a daemon-wide budget is checked without visiting every
/// session, and the largest holder is looked for only among those holding any.
struct BufferedBytes {
    private(set) var total = 0
    private var bySession: [Int: Int] = [:]

    /// Records that `session` now holds `bytes`; zero forgets it.
    mutating func set(_ bytes: Int, for session: Int) {
        // Nearly always: nobody holds anything, and a session is told it holds nothing after each turn.
        if bytes == 0 && bySession.isEmpty { return }
        let old = bytes > 0 ? bySession.updateValue(bytes, forKey: session) : bySession.removeValue(forKey: session)
        total += bytes - (old ?? 0)
    }

    /// Whether no session holds any bytes.
    var isEmpty: Bool { bySession.isEmpty }

    /// The sessions that hold bytes, in no order.
    var sessions: [Int] { Array(bySession.keys) }

    /// The session that holds the most (the lowest id among equals, so that the choice is stable).
    var largest: Int? {
        bySession.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }
}
