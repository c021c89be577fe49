import MilieuJSON

/// A restart bringing back what the log holds (SPEC §8.1, §12.3): the restore takes no
/// versions — what it brings back was committed under versions logged before the restart —
/// and every view and object keeps the version it had.
extension Graph {
    /// Runs `operations` as one transaction of the restore, as `apply(_:)` does, but taking no
    /// version: what it creates or changes carries `last`, the last version logged (or the
    /// graph's version, if later), until `restoreVersion` gives it the one it had; the graph is
    /// at that version after, committed or not.
    public func applyRestored(_ operations: [Operation], at last: Version) throws(EngineError) {
        let at = max(last, version)
        version = Version(at.rawValue - 1)
        defer { version = at }
        _ = try apply(operations)
    }

    /// Gives a restored view (`variable` empty) or the object its variable owns the version it
    /// had before the restart, no later than the graph's; returns whether there is one to give it to.
    @discardableResult
    public func restoreVersion(_ restored: Version, view path: String, variable: String) -> Bool {
        guard let node = views[path] else { return false }
        let restored = min(restored, version)
        if variable.isEmpty {
            node.version = restored
            return true
        }
        // `outer.inner`: the object `outer`'s property made (`makes`).
        let members = variable.split(separator: ".").map(String.init)
        guard case .object(let id, let wrapper)? = node.variables[members[0]], wrapper.owns, let owned = objects[id],
            owned.ownerView === node
        else { return false }
        var record = owned
        for member in members.dropFirst() {
            guard let slot = record.type.slots[member], let made = objectsByName[record.values[slot].stringValue ?? ""],
                record.madeObjects.contains(made.serial)
            else { return false }
            record = made
        }
        record.version = restored
        return true
    }

    /// Continues the version counter after `last`, the last version a restarted daemon logged,
    /// so that versions are never reused across restarts (SPEC §8.1); a graph already past
    /// `last` (a new store: the scene is version 1) keeps its version.
    public func continueVersions(after last: Version) {
        if last > version { version = last }
    }
}
