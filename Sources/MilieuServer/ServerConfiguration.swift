import MilieuEngine
import MilieuProtocol
import MilieuStore

/// How much unsent output a client may let pile up before it is dropped, as Redis's
/// client-output-buffer-limit: past `hard` at once, or past `soft` for `softSeconds` on end.
public struct OutputLimits: Sendable {
    public var hard = 32 << 20
    public var soft = 8 << 20
    public var softSeconds = 10.0
    /// The unsent output of all clients together; past it, the client with the most is dropped
    /// as a slow consumer, then the next, until the rest fits.
    public var budget = 512 << 20

    public init() {}

    /// The least unsent output a client is counted for against `budget`: below it, output is
    /// what one turn queued, written at the end of the turn, and counting it would cost every send.
    /// Never past either limit, so that output under it, from a session not over the soft
    /// limit while nobody is counted, needs no check (`Server.enforceOutputLimits`).
    var tracked: Int { min(64 << 10, soft, hard) }
}

/// How a server runs: where it listens, what it loads, its limits.
public struct ServerConfiguration: Sendable {
    public var socketPath: String
    public var scene: Scene = .default
    public var maxLineBytes = ProtocolInfo.defaultMaxLineBytes
    public var limits = GraphLimits()
    /// Committed versions kept for `watch` with `sinceVersion`.
    public var historyLength = 10_000
    /// Bytes of log records kept for `watch` with `sinceVersion` (with a data directory).
    public var historyBytes = 64 << 20
    public var maxWatchesPerConnection = 1024
    public var maxTargetsPerWatch = 4096
    /// UTF-8 bytes of the targets of one connection's watches together: a view target need not
    /// be mounted, so without it 1024 watches of 1 MiB lines of paths would be held.
    public var maxWatchTargetBytes = 4 << 20
    public var maxTransactionOps = 10_000
    public var outputLimits = OutputLimits()
    /// Connections served at once; one more is refused with LimitExceeded.
    public var maxConnections = 4096
    public var logger = Logger()
    /// Where the durable state lives (`milieu.db`); nil keeps nothing across restarts.
    public var dataDirectory: String?
    /// When the log is synced: `always` before each turn's responses (power loss loses nothing
    /// acknowledged), `everysec` once a second on a thread of its own, `no` never.
    public var fsync = FsyncPolicy.everysec
    /// Start from a damaged store by keeping what is intact and dropping the rest (SPEC §12.3).
    public var recover = false
    /// The bytes of log records a full disk may leave waiting in memory; past it, requests that
    /// would change state are refused (`LimitExceeded`, `diskBacklog`) until the disk takes them.
    public var maxBacklogBytes = 64 << 20
    /// How long a line may stay unfinished (bytes received, no newline) before its connection is
    /// told `LimitExceeded` (`lineSeconds`) and closed: otherwise a client pins up to
    /// `maxLineBytes` for ever.
    public var incompleteLineSeconds = 30
    /// The bytes of unfinished lines of all clients together; past it, the client holding the
    /// most is told `LimitExceeded` (`bufferedInput`) and closed, then the next, until the rest fits.
    public var maxBufferedInputBytes = 256 << 20

    public init(socketPath: String, dataDirectory: String? = nil) {
        self.socketPath = socketPath
        self.dataDirectory = dataDirectory
    }

    /// `$XDG_STATE_HOME/milieu`, else `~/.local/state/milieu`.
    public static func defaultDataDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/milieu" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return home + "/.local/state/milieu"
    }
}
