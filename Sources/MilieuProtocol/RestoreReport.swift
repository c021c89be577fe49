import MilieuJSON

/// What a daemon that keeps state brought back when it started (SPEC §12.3): how many stored
/// types, retained views and values it restored, and what it could not, each with why.
/// `daemon/info` carries it; `initialize` too when something was dropped, so that a client
/// learns of it as it connects (SPEC §8.1).
public struct RestoreReport: Sendable, Equatable {
    /// What could not be brought back: a stored type or environment key, a retained view or a value.
    public struct Dropped: Sendable, Equatable {
        public enum Kind: String, Sendable, CaseIterable {
            case type, environmentKey, view, value
        }

        public var kind: Kind
        /// The type's or key's name, the view's path, the value's key path.
        public var name: String
        /// The engine's refusal, as a sentence.
        public var reason: String

        public init(kind: Kind, name: String, reason: String) {
            self.kind = kind
            self.name = name
            self.reason = reason
        }

        public var wire: JSON { ["kind": .string(kind.rawValue), "name": .string(name), "reason": .string(reason)] }

        public init?(wire: JSON) {
            guard let kind = wire["kind"]?.stringValue.flatMap(Kind.init(rawValue:)), let name = wire["name"]?.stringValue,
                let reason = wire["reason"]?.stringValue
            else { return nil }
            self.init(kind: kind, name: name, reason: reason)
        }
    }

    /// At most this many drops are listed; `droppedCount` counts them all.
    public static let listedDrops = 100

    public var types = 0
    public var views = 0
    public var values = 0
    /// The first `listedDrops` of what was dropped, in restore order.
    public private(set) var dropped: [Dropped] = []
    public private(set) var droppedCount = 0

    public init() {}

    public init(types: Int, views: Int, values: Int, dropped: [Dropped], droppedCount: Int) {
        (self.types, self.views, self.values) = (types, views, values)
        self.dropped = dropped
        self.droppedCount = droppedCount
    }

    /// Notes a drop; past `listedDrops` only the count grows, so a restore that drops a million
    /// views holds a hundred reasons.
    public mutating func drop(_ kind: Dropped.Kind, _ name: String, because reason: String) {
        droppedCount += 1
        if dropped.count < Self.listedDrops { dropped.append(Dropped(kind: kind, name: name, reason: reason)) }
    }

    public var wire: JSON {
        [
            "types": .int(types), "views": .int(views), "values": .int(values), "dropped": .array(dropped.map(\.wire)),
            "droppedCount": .int(droppedCount),
        ]
    }

    public init?(wire: JSON) {
        guard let types = wire["types"]?.intValue, let views = wire["views"]?.intValue, let values = wire["values"]?.intValue,
            let items = wire["dropped"]?.arrayValue, let droppedCount = wire["droppedCount"]?.intValue
        else { return nil }
        let dropped = items.compactMap(Dropped.init(wire:))
        guard dropped.count == items.count else { return nil }
        self.init(types: types, views: views, values: values, dropped: dropped, droppedCount: droppedCount)
    }
}
