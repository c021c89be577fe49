/// A restart bringing back what the log holds (SPEC §8.1, §12.3): the restore takes no
/// versions — what it brings back was committed under versions logged before the restart.
extension Graph {
    /// Runs `operations` as one transaction of the restore, as `apply(_:)` does, but taking no
    /// version: what it creates or changes carries `last`, the last version logged (or the
    /// graph's version, if later); the graph is at that version after, committed or not.
    public func applyRestored(_ operations: [Operation], at last: Version) throws(EngineError) {
        let at = max(last, version)
        version = Version(at.rawValue - 1)
        defer { version = at }
        _ = try apply(operations)
    }

    /// Continues the version counter after `last`, the last version a restarted daemon logged,
    /// so that versions are never reused across restarts (SPEC §8.1); a graph already past
    /// `last` (a new store: the scene is version 1) keeps its version.
    public func continueVersions(after last: Version) {
        if last > version { version = last }
    }
}
