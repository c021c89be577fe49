/// A number the engine hands out in order and never reuses, naming one view or one object.
/// Views and objects have their own types, so that one is never looked up as the other.
protocol Serial: Hashable, Comparable, Sendable {
    var rawValue: Int { get }
    init(rawValue: Int)
}

extension Serial {
    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A view's serial: mount order.
struct ViewSerial: Serial {
    let rawValue: Int
}

/// An object's serial: creation order.
struct ObjectSerial: Serial {
    let rawValue: Int
}

/// A client connection, as the transport numbers them: the owner of the views it mounts
/// without `retain` (rule 15).
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "\(rawValue)" }
}

/// Something the engine keeps by its serial: a view or an object.
protocol SerialNumbered: AnyObject {
    associatedtype Number: Serial
    var serial: Number { get }
}

extension ViewNode: SerialNumbered {}
extension ObjectRecord: SerialNumbered {}

/// Views or objects by serial: an open-addressing table with linear probing, kept as two
/// arrays, a 4-byte mark per slot (0 when empty, else the top bit over 31 bits of the serial's
/// hash) and the element.
///
/// A slot is 12 bytes where a `Dictionary` of serials spends 16 a bucket: at 100,000 views
/// (262,144 slots either way) 31 bytes a view instead of 42. A probe compares marks, 16 to a
/// cache line, and reads an element only when they agree (a false match is one in two billion),
/// to check its serial; growing moves marks and elements without hashing again. Serials are
/// the engine's own consecutive numbers, never a client's choice, so a multiplicative hash
/// spreads them evenly with no flooding to fear: the standard library's seeded one cost 150
/// instructions a look-up, two look-ups a write. (`ViewsByPath`, whose paths clients write,
/// keeps the seeded hash.)
struct BySerial<Element: SerialNumbered> {
    private var marks = [UInt32](repeating: 0, count: 16)
    private var elements = [Element?](repeating: nil, count: 16)
    private(set) var count = 0

    /// `marks.count` is a power of two.
    private var mask: Int { marks.count - 1 }

    private static func mark(_ serial: Element.Number) -> UInt32 {
        // Fibonacci hashing: the high bits of the product by 2^64 / φ.
        0x8000_0000 | UInt32(truncatingIfNeeded: (UInt64(bitPattern: Int64(serial.rawValue)) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    /// The slot a mark's element goes to in a table of `mask + 1` slots, or the first one after it that is free.
    private static func home(_ mark: UInt32, _ mask: Int) -> Int { Int(mark & 0x7FFF_FFFF) & mask }

    subscript(serial: Element.Number) -> Element? {
        get {
            let (index, found) = probe(serial, mark: Self.mark(serial))
            return found ? elements[index] : nil
        }
        set {
            if let newValue {
                assert(newValue.serial == serial, "an element kept under another serial")
                insert(newValue)
            } else {
                remove(serial)
            }
        }
    }

    var values: some Sequence<Element> { elements.lazy.compactMap { $0 } }

    private mutating func insert(_ element: Element) {
        let mark = Self.mark(element.serial)
        var (index, found) = probe(element.serial, mark: mark)
        if found {
            elements[index] = element
            return
        }
        if (count + 1) * 4 > marks.count * 3 {
            grow()
            index = probe(element.serial, mark: mark).index
        }
        marks[index] = mark
        elements[index] = element
        count += 1
    }

    private mutating func remove(_ serial: Element.Number) {
        let (index, found) = probe(serial, mark: Self.mark(serial))
        guard found else { return }
        // Backward-shift deletion, as in `ViewsByPath`; swapping moves an element without
        // touching its reference count.
        var hole = index
        var next = (index + 1) & mask
        while marks[next] != 0 {
            let home = Self.home(marks[next], mask)
            if (next - home) & mask >= (next - hole) & mask {
                marks[hole] = marks[next]
                elements.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
        marks[hole] = 0
        elements[hole] = nil
        count -= 1
    }

    /// The slot of the element numbered `serial`, or the empty slot where it would go.
    private func probe(_ serial: Element.Number, mark: UInt32) -> (index: Int, found: Bool) {
        marks.withUnsafeBufferPointer { marks in
            let mask = marks.count - 1
            var index = Self.home(mark, mask)
            while marks[index] != 0 {
                if marks[index] == mark, elements[index]?.serial == serial { return (index, true) }
                index = (index + 1) & mask
            }
            return (index, false)
        }
    }

    /// Doubles the table, placing each element by its mark.
    private mutating func grow() {
        let oldMarks = marks
        var oldElements = elements
        // Marks keep 31 bits of the hash: enough to place an element in up to 2^31 slots.
        precondition(oldMarks.count < 1 << 31, "a serial index of over 2^31 slots")
        marks = [UInt32](repeating: 0, count: oldMarks.count * 2)
        elements = [Element?](repeating: nil, count: oldMarks.count * 2)
        let mask = self.mask
        for (old, mark) in oldMarks.enumerated() where mark != 0 {
            var index = Self.home(mark, mask)
            while marks[index] != 0 { index = (index + 1) & mask }
            marks[index] = mark
            // Taken out of the old array, not copied: no reference count to touch.
            elements[index] = oldElements[old].take()
        }
    }
}
