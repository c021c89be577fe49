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

/// Views or objects by serial.
struct BySerial<Key: Serial, Element> {
    private var elements: [Key: Element] = [:]

    subscript(serial: Key) -> Element? {
        get { elements[serial] }
        set { elements[serial] = newValue }
    }

    var count: Int { elements.count }
    var values: Dictionary<Key, Element>.Values { elements.values }
}
