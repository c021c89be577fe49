/// The views that depend on one thing. Most things have one reader (a view's own @State),
/// so a single serial is kept without allocating a set.
enum Dependents {
    /// Nobody: only while an entry is being filled (`Graph.dependents` holds no empty entries).
    case none
    case one(ViewSerial)
    case many(Set<ViewSerial>)

    mutating func insert(_ serial: ViewSerial) {
        switch self {
        case .none: self = .one(serial)
        case .one(let existing) where existing != serial: self = .many([existing, serial])
        case .one: break
        case .many(var set):
            self = .none  // release the set's storage so the insert below does not copy it
            set.insert(serial)
            self = .many(set)
        }
    }

    /// Removes `serial`; false when none are left.
    mutating func remove(_ serial: ViewSerial) -> Bool {
        switch self {
        case .none: return false
        case .one(let existing): return existing != serial
        case .many(var set):
            self = .none
            set.remove(serial)
            if set.count == 1, let last = set.first { self = .one(last) } else { self = .many(set) }
            return !set.isEmpty
        }
    }

    /// In serial order, so that views at the same depth are evaluated in mount order.
    var sorted: [ViewSerial] {
        switch self {
        case .none: []
        case .one(let serial): [serial]
        case .many(let set): set.sorted()
        }
    }
}
