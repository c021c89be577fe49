/// Values by a non-negative integer id, for the look-ups made at every event: a registration by
/// its epoll token, a session by its connection's id. `Dictionary` hashes each key with SipHash,
/// about 130 instructions a look-up (callgrind); here an id is spread by one multiplication
/// (Fibonacci hashing) and found by linear probing, a few dozen. Ids come from counters, so
/// nothing chooses them to collide.
///
/// Open addressing with backward-shift deletion: no tombstones, so a table's probes stay as short
/// after many connections came and went as when it was new. It grows past three quarters full
/// and never shrinks, as a dictionary does. Inlinable, so that it is specialized for its values
/// in the modules that use it: unspecialized, a look-up cost more than the dictionary's.
public struct IDTable<Value> {
    @usableFromInline struct Slot {
        /// The id held, or `Self.empty`.
        @usableFromInline var id: Int
        @usableFromInline var value: Value?

        @inlinable init(id: Int, value: Value?) {
            self.id = id
            self.value = value
        }
    }

    @inlinable static var empty: Int { -1 }

    @usableFromInline var slots: [Slot]
    /// `64 - log2(slots.count)`: the top bits of the product pick the slot.
    @usableFromInline var shift: Int
    @usableFromInline var held = 0

    /// How many ids hold a value.
    @inlinable public var count: Int { held }

    public init() {
        slots = Array(repeating: Slot(id: Self.empty, value: nil), count: 16)
        shift = 64 - 4
    }

    @inlinable var mask: Int { slots.count - 1 }

    @inlinable @inline(__always)
    func home(of id: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(id)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// Where `id` is, or the empty slot where it would go.
    @inlinable @inline(__always)
    func position(of id: Int) -> (index: Int, found: Bool) {
        var index = home(of: id)
        while true {
            let held = slots[index].id
            if held == id { return (index, true) }
            if held == Self.empty { return (index, false) }
            index = (index &+ 1) & mask
        }
    }

    /// The value under `id`; setting nil removes it.
    @inlinable
    public subscript(id: Int) -> Value? {
        get {
            let (index, found) = position(of: id)
            return found ? slots[index].value : nil
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
            precondition(id >= 0, "IDTable ids are never negative")
            let (index, found) = position(of: id)
            if found {
                slots[index].value = newValue
                return
            }
            guard (held + 1) * 4 <= slots.count * 3 else {
                grow()
                self[id] = newValue
                return
            }
            slots[index] = Slot(id: id, value: newValue)
            held += 1
        }
    }

    /// Removes what `id` holds, returning it. The slots after it that would be found sooner in
    /// its place move back into it, so that every probe still ends at the first empty slot.
    @inlinable @discardableResult
    public mutating func removeValue(forKey id: Int) -> Value? {
        let (found, isHeld) = position(of: id)
        guard isHeld else { return nil }
        let removed = slots[found].value
        var hole = found
        var next = (hole + 1) & mask
        while slots[next].id != Self.empty {
            let wanted = home(of: slots[next].id)
            // Whether `next`'s id may sit in `hole`: its probe from `wanted` passes `hole` on the
            // way to `next` (cyclically).
            let passesHole = hole <= next ? (wanted <= hole || wanted > next) : (wanted <= hole && wanted > next)
            if passesHole {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(id: Self.empty, value: nil)
        held -= 1
        return removed
    }

    /// Every value held, in no order.
    @inlinable
    public var values: [Value] { slots.compactMap(\.value) }

    /// Removes every value, keeping the room.
    @inlinable
    public mutating func removeAll() {
        for index in slots.indices { slots[index] = Slot(id: Self.empty, value: nil) }
        held = 0
    }

    @usableFromInline
    mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(id: Self.empty, value: nil), count: old.count * 2)
        shift -= 1
        held = 0
        for slot in old where slot.id != Self.empty { self[slot.id] = slot.value }
    }
}
