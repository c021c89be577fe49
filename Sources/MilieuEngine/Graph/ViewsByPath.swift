/// The mounted views by path: an open-addressing table with linear probing whose slots hold a
/// view and its path's hash.
///
/// A slot is 16 bytes where a `Dictionary` keyed by the path spends 32 (the path, its hash and
/// the view) and more for its metadata; a probe compares hashes and reads a path only when they
/// agree; and growing the table moves hashes and references without reading a view or a path.
/// In a tree of 100,000 views the table no longer fits in cache, so what one insert touches is
/// what it costs: a slot does not own its view, so moving and probing slots touches no view's
/// reference count. Paths are hashed with the standard library's per-process seed, so no client
/// can choose paths that pile up in one run of slots.
struct ViewsByPath {
    private struct Slot {
        var hash = 0
        /// Nil for an empty slot. Not owned: a view is in the table exactly while it is linked
        /// into the tree (`Graph.link` and `unlink` insert and remove it), and a linked view is
        /// kept alive by `Graph.viewsBySerial` and by its parent.
        var view: Unmanaged<ViewNode>?

        init() {}

        init(hash: Int, node: ViewNode) {
            self.hash = hash
            view = .passUnretained(node)
        }

        var node: ViewNode? { view?.takeUnretainedValue() }
        var isEmpty: Bool { view == nil }
    }

    private var slots = [Slot](repeating: Slot(), count: 16)
    private(set) var count = 0
    /// The view `find` returned last; always one that is in the table.
    private var recent: ViewNode?

    /// `slots.count` is a power of two.
    private var mask: Int { slots.count - 1 }

    subscript(path: String) -> ViewNode? {
        let (index, found) = probe(path, hash: path.hashValue)
        return found ? slots[index].node : nil
    }

    /// The view at `path`, remembered: mounts come in runs under one parent, and comparing the
    /// path with the last one found costs less than hashing it.
    mutating func find(_ path: String) -> ViewNode? {
        if let recent, recent.path == path { return recent }
        recent = self[path]
        return recent
    }

    /// Adds `node` under its path unless a view is mounted there already; returns that view.
    mutating func insert(_ node: ViewNode) -> ViewNode? {
        let hash = node.path.hashValue
        let (index, found) = probe(node.path, hash: hash)
        if found { return slots[index].node }
        if (count + 1) * 4 > slots.count * 3 {
            grow()
            slots[probe(node.path, hash: hash).index] = Slot(hash: hash, node: node)
        } else {
            slots[index] = Slot(hash: hash, node: node)
        }
        count += 1
        return nil
    }

    /// Takes out the view at `path`, and forgets it if `find` remembered it.
    mutating func remove(_ path: String) {
        if recent?.path == path { recent = nil }
        let (index, found) = probe(path, hash: path.hashValue)
        guard found else { return }
        // Backward-shift deletion: each later view of the run that may live in the hole moves
        // into it, so that every view stays reachable from its home slot without tombstones.
        var hole = index
        var next = (index + 1) & mask
        while !slots[next].isEmpty {
            let home = slots[next].hash & mask
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot()
        count -= 1
    }

    var paths: [String] { slots.compactMap { $0.node?.path } }

    /// The slot of the view at `path`, or the empty slot where it would go.
    private func probe(_ path: String, hash: Int) -> (index: Int, found: Bool) {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = hash & mask
            // A view is read only when its hash matches: anything else would touch it, a cache miss in a large tree.
            while !slots[index].isEmpty {
                if slots[index].hash == hash, slots[index].node?.path == path { return (index, true) }
                index = (index + 1) & mask
            }
            return (index, false)
        }
    }

    /// Doubles the table, placing each view by its stored hash.
    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        let mask = self.mask
        slots.withUnsafeMutableBufferPointer { slots in
            for slot in old where !slot.isEmpty {
                var index = slot.hash & mask
                while !slots[index].isEmpty { index = (index + 1) & mask }
                slots[index] = slot
            }
        }
    }
}
