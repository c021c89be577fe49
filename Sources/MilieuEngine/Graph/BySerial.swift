/// Views or objects by serial.
///
/// Serials are handed out in order and never reused, so a serial is its own hash: consecutive
/// views land in consecutive buckets, and filling or growing the table walks memory in order
/// instead of hashing every serial to a random bucket (a cache miss each in a large tree), and a
/// lookup costs no hashing at all. The engine chooses serials, so no client can aim them at one bucket.
struct BySerial<Element> {
    private var elements: [SerialKey: Element] = [:]

    subscript(serial: Int) -> Element? {
        get { elements[SerialKey(serial)] }
        set { elements[SerialKey(serial)] = newValue }
    }

    var count: Int { elements.count }
    var values: Dictionary<SerialKey, Element>.Values { elements.values }
}

/// A serial as a key hashed to itself (`BySerial`, `Dependents`).
struct SerialKey: Hashable {
    let serial: Int

    init(_ serial: Int) { self.serial = serial }

    func hash(into hasher: inout Hasher) { hasher.combine(serial) }
    /// What `Dictionary` and `Set` place a key by: the serial itself, for the reason `BySerial` gives.
    func _rawHashValue(seed: Int) -> Int { serial }
}
