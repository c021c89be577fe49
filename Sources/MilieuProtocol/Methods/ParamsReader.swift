import MilieuJSON

/// Reads a request's named params and refuses the ones its method does not take; its errors
/// are `InvalidParams` with a JSON Pointer to the member.
public struct ParamsReader {
    /// The params as received.
    public let all: JSONObject
    /// The members read so far, a bit for each by its position in `all`: a method reads a
    /// handful, and a list of their names cost every request an allocation and a scan of names
    /// (`usedBeyond` takes the names of members past the 64th, which no method has).
    private var used: UInt64 = 0
    private var usedBeyond: [String] = []
    private var consumedAll = false

    public init(_ params: JSONObject) { self.all = params }

    /// Takes every member as read: for methods whose params are one open declaration.
    public mutating func consumeAll() { consumedAll = true }

    public mutating func optional(_ key: String) -> JSON? {
        guard let position = all.firstIndex(where: { $0.key == key }) else { return nil }
        if position < UInt64.bitWidth { used |= 1 << position } else { usedBeyond.append(key) }
        return all[position].value
    }

    public mutating func required(_ key: String) throws(RPCError) -> JSON {
        guard let value = optional(key) else { throw .invalidParams(field: "/\(key)", "required") }
        return value
    }

    public mutating func string(_ key: String) throws(RPCError) -> String {
        guard case .string(let value) = try required(key) else { throw .invalidParams(field: "/\(key)", "a string") }
        return value
    }

    public mutating func optionalString(_ key: String) throws(RPCError) -> String? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .string(let text) = value else { throw .invalidParams(field: "/\(key)", "a string") }
        return text
    }

    public mutating func int(_ key: String) throws(RPCError) -> Int {
        guard let value = try optionalInt(key) else { throw .invalidParams(field: "/\(key)", "required") }
        return value
    }

    public mutating func optionalInt(_ key: String) throws(RPCError) -> Int? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .int(let number) = value else { throw .invalidParams(field: "/\(key)", "an integer") }
        return number
    }

    public mutating func optionalBool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .bool(let flag) = value else { throw .invalidParams(field: "/\(key)", "true or false") }
        return flag
    }

    public mutating func array(_ key: String) throws(RPCError) -> [JSON] {
        guard let value = try optionalArray(key) else { throw .invalidParams(field: "/\(key)", "required") }
        return value
    }

    public mutating func optionalArray(_ key: String) throws(RPCError) -> [JSON]? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .array(let items) = value else { throw .invalidParams(field: "/\(key)", "an array") }
        return items
    }

    public mutating func optionalStrings(_ key: String) throws(RPCError) -> [String]? {
        guard let items = try optionalArray(key) else { return nil }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw .invalidParams(field: "/\(key)/\(index)", "a string") }
            strings.append(text)
        }
        return strings
    }

    public mutating func optionalObject(_ key: String) throws(RPCError) -> JSONObject? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .object(let members) = value else { throw .invalidParams(field: "/\(key)", "an object") }
        return members
    }

    public func rejectUnknown() throws(RPCError) {
        guard !consumedAll, all.count > 0 else { return }
        for (position, member) in all.enumerated() {
            let read = position < UInt64.bitWidth ? used & (1 << position) != 0 : usedBeyond.contains(member.key)
            if !read { throw .invalidParams(field: "/\(member.key)", "this method takes no \(member.key)") }
        }
    }
}
