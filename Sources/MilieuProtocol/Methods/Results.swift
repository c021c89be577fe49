import MilieuJSON

/// A result that is any JSON value: a value read from the graph, a snapshot, a document.
extension JSON: WireResult {
    public var wire: JSON { self }
    public init?(wire: JSON) { self = wire }
}

/// `{}`: the method did what it was asked and has nothing to say.
public struct EmptyResult: WireResult, Equatable {
    public init() {}
    public var wire: JSON { .object([:]) }
    public init?(wire: JSON) {
        guard wire.objectValue != nil else { return nil }
    }
}

/// `{version}`: the version the method's transaction committed (unchanged if nothing changed).
public struct VersionResult: WireResult, Equatable {
    public var version: Int
    public init(version: Int) { self.version = version }
    public var wire: JSON { ["version": .int(version)] }
    public init?(wire: JSON) {
        guard let version = wire["version"]?.intValue else { return nil }
        self.version = version
    }
}

/// Strings from a JSON array, or nil if it holds anything else.
func strings(_ json: JSON?) -> [String]? {
    guard let items = json?.arrayValue else { return nil }
    var strings: [String] = []
    for item in items {
        guard let text = item.stringValue else { return nil }
        strings.append(text)
    }
    return strings
}

extension JSONObject {
    /// Sets `key` when there is a value: params leave out what is not given.
    mutating func set(_ key: String, _ value: JSON?) {
        if let value { self[key] = value }
    }
}
