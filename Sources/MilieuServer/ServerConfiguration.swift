import MilieuEngine
import MilieuProtocol

/// How a server runs: where it listens, what it loads, its limits.
public struct ServerConfiguration: Sendable {
    public var socketPath: String
    public var scene: Scene = .default
    public var maxLineBytes = ProtocolInfo.defaultMaxLineBytes
    public var limits = GraphLimits()
    /// Committed versions kept for `watch` with `sinceVersion`.
    public var historyLength = 10_000
    public var maxWatchesPerConnection = 1024
    public var maxTargetsPerWatch = 4096
    public var maxTransactionOps = 10_000
    /// Unsent output past which a connection is dropped.
    public var maxPendingOutputBytes = 64 << 20
    public var logger = Logger()

    public init(socketPath: String) { self.socketPath = socketPath }
}
