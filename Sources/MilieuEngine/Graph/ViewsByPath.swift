/// The mounted views by path.
///
/// Paths are long, and siblings' paths are often of equal length (`/App/Rows/Row[12345]`), so a
/// dictionary keyed by the path alone compares strings stored out of line at every probe — a
/// cache miss each in a large tree. Keyed by the path with its hash alongside, a probe compares
/// two integers first and reads a path only when the hashes agree.
struct ViewsByPath {
    private struct Key: Hashable {
        let path: String
        let hash: Int

        init(_ path: String) {
            self.path = path
            hash = path.hashValue
        }

        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.path == b.path }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        /// What `Dictionary` places a key by: the stored hash, already well spread, mixed with the
        /// table's seed, so that growing the table does not hash every path's hash once more.
        func _rawHashValue(seed: Int) -> Int { hash ^ seed }
    }

    private var nodes: [Key: ViewNode] = [:]
    /// The view `find` returned last; always one that is in the table.
    private var recent: ViewNode?

    subscript(path: String) -> ViewNode? { nodes[Key(path)] }

    /// The view at `path`, remembered: mounts come in runs under one parent, and comparing the
    /// path with the last one found costs less than hashing it.
    mutating func find(_ path: String) -> ViewNode? {
        if let recent, recent.path == path { return recent }
        recent = nodes[Key(path)]
        return recent
    }

    /// Takes out the view at `path`, and forgets it if `find` remembered it.
    mutating func remove(_ path: String) {
        if recent?.path == path { recent = nil }
        nodes[Key(path)] = nil
    }

    /// Adds `node` under its path unless a view is mounted there already; returns that view.
    mutating func insert(_ node: ViewNode) -> ViewNode? {
        let key = Key(node.path)
        // One probe in the common case; a duplicate (an error) is put back.
        guard let existing = nodes.updateValue(node, forKey: key) else { return nil }
        nodes[key] = existing
        return existing
    }

    var count: Int { nodes.count }
    var paths: [String] { nodes.keys.map(\.path) }
}
