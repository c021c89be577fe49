/// The mounted views by serial.
///
/// Serials are handed out in order and never reused, so a serial is its own hash: consecutive
/// views land in consecutive buckets, and filling or growing the table walks memory in order
/// instead of hashing every serial to a random bucket (a cache miss each in a large tree).
/// The engine chooses serials, so no client can aim them at one bucket.
struct ViewsBySerial {
    private var nodes: [SerialKey: ViewNode] = [:]

    subscript(serial: Int) -> ViewNode? {
        get { nodes[SerialKey(serial)] }
        set { nodes[SerialKey(serial)] = newValue }
    }

    var count: Int { nodes.count }
    var values: Dictionary<SerialKey, ViewNode>.Values { nodes.values }
}

/// A serial as a key hashed to itself (`ViewsBySerial`, `Dependents`).
struct SerialKey: Hashable {
    let serial: Int

    init(_ serial: Int) { self.serial = serial }

    func hash(into hasher: inout Hasher) { hasher.combine(serial) }
    /// What `Dictionary` and `Set` place a key by: the serial itself, for the reason `ViewsBySerial` gives.
    func _rawHashValue(seed: Int) -> Int { serial }
}
