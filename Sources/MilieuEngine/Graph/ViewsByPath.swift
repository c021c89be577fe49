/// The mounted views by path: an open-addressing table with linear probing whose slots hold a
/// view and 31 bits of its path's hash.
///
/// A slot is 12 bytes, kept as two arrays: a 4-byte mark (the hash's bits, or 0 for an empty
/// slot) and an 8-byte reference. A `Dictionary` keyed by the path spends 32 (the path, its hash
/// and the view) and more for its metadata; a table of (hash, view) pairs spent 16, and at
/// 100,000 views, with the table grown to 262,144 slots, those 4 bytes a slot were 10 a view.
/// A probe reads marks, 16 to a cache line, and reads a path only when they agree (a false
/// match is one in two billion); growing the table moves marks and references without reading
/// a view or a path. In a tree of 100,000 views the table no longer fits in cache, so what one
/// insert touches is what it costs: a slot does not own its view, so moving and probing slots
/// touches no view's reference count. Paths are hashed with the standard library's
/// per-process seed, so no client can choose paths that pile up in one run of slots.
struct ViewsByPath {
    /// Each slot's mark: 0 when empty, else the top bit set over the low 31 bits of the hash of
    /// its view's path, which place the view (`home`) in any table of up to 2^31 slots.
    private var marks = [UInt32](repeating: 0, count: 16)
    /// Each slot's view, nil when its mark is 0. Not owned: a view is in the table exactly while
    /// it is linked into the tree (`Graph.link` and `unlink` insert and remove it), and a linked
    /// view is kept alive by `Graph.viewsBySerial` and by its parent.
    private var views = [Unmanaged<ViewNode>?](repeating: nil, count: 16)
    private(set) var count = 0
    /// The view `find` returned last; always one that is in the table.
    private var recent: ViewNode?

    /// `marks.count` is a power of two.
    private var mask: Int { marks.count - 1 }

    private static func mark(_ path: String) -> UInt32 { 0x8000_0000 | UInt32(truncatingIfNeeded: path.hashValue) }

    /// The slot a mark's view goes to in a table of `mask + 1` slots, or the first one after it that is free.
    private static func home(_ mark: UInt32, _ mask: Int) -> Int { Int(mark & 0x7FFF_FFFF) & mask }

    subscript(path: String) -> ViewNode? {
        let (index, found) = probe(path, mark: Self.mark(path))
        return found ? views[index]?.takeUnretainedValue() : nil
    }

    /// The view at `path`, remembered: mounts come in runs under one parent, a client writes
    /// under one view again and again, and comparing the path with the last one found costs
    /// less than hashing it.
    mutating func find(_ path: String) -> ViewNode? {
        if let recent, recent.path == path { return recent }
        recent = self[path]
        return recent
    }

    /// Adds `node` under its path unless a view is mounted there already; returns that view.
    mutating func insert(_ node: ViewNode) -> ViewNode? {
        let mark = Self.mark(node.path)
        var (index, found) = probe(node.path, mark: mark)
        if found { return views[index]?.takeUnretainedValue() }
        if (count + 1) * 4 > marks.count * 3 {
            grow()
            index = probe(node.path, mark: mark).index
        }
        marks[index] = mark
        views[index] = .passUnretained(node)
        count += 1
        return nil
    }

    /// Takes out the view at `path`, and forgets it if `find` remembered it.
    mutating func remove(_ path: String) {
        if recent?.path == path { recent = nil }
        let (index, found) = probe(path, mark: Self.mark(path))
        guard found else { return }
        // Backward-shift deletion: each later view of the run that may live in the hole moves
        // into it, so that every view stays reachable from its home slot without tombstones.
        var hole = index
        var next = (index + 1) & mask
        while marks[next] != 0 {
            let home = Self.home(marks[next], mask)
            if (next - home) & mask >= (next - hole) & mask {
                marks[hole] = marks[next]
                views[hole] = views[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        marks[hole] = 0
        views[hole] = nil
        count -= 1
    }

    var paths: [String] { views.compactMap { $0?.takeUnretainedValue().path } }

    /// The slot of the view at `path`, or the empty slot where it would go.
    private func probe(_ path: String, mark: UInt32) -> (index: Int, found: Bool) {
        marks.withUnsafeBufferPointer { marks in
            let mask = marks.count - 1
            var index = Self.home(mark, mask)
            // A view is read only when its mark matches: anything else would touch it, a cache miss in a large tree.
            while marks[index] != 0 {
                if marks[index] == mark, views[index]?.takeUnretainedValue().path == path { return (index, true) }
                index = (index + 1) & mask
            }
            return (index, false)
        }
    }

    /// Doubles the table, placing each view by its mark.
    private mutating func grow() {
        let (oldMarks, oldViews) = (marks, views)
        // Marks keep 31 bits of the hash: enough to place a view in up to 2^31 slots.
        precondition(oldMarks.count < 1 << 31, "a path index of over 2^31 slots")
        marks = [UInt32](repeating: 0, count: oldMarks.count * 2)
        views = [Unmanaged<ViewNode>?](repeating: nil, count: oldMarks.count * 2)
        let mask = self.mask
        marks.withUnsafeMutableBufferPointer { marks in
            views.withUnsafeMutableBufferPointer { views in
                for (mark, view) in zip(oldMarks, oldViews) where mark != 0 {
                    var index = Self.home(mark, mask)
                    while marks[index] != 0 { index = (index + 1) & mask }
                    marks[index] = mark
                    views[index] = view
                }
            }
        }
    }
}
