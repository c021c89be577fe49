import MilieuJSON

/// A request's method with its params decoded and checked: the one registry of Milieu's methods.
public enum MethodCall: Sendable {
    case initialize(client: JSON?, protocolVersion: String?)
    case schemaTypes
    case schemaRegister(types: [JSON], environmentKeys: JSONObject)
    case get(path: String)
    case set(path: String, value: JSON, ifVersion: Int?)
    case call(path: String, arguments: [JSON])
    case transaction(operations: [MethodCall])
    case mount(declaration: JSON)
    case unmount(path: String)
    case provide(path: String, environmentObjects: [String], observables: [String], environment: JSONObject, withdraw: [String])
    case tree(path: String?)
    case watch(paths: [String], views: [String], lifecycle: Bool, sinceVersion: Int?)
    case unwatch(watch: Int)
    case shutdown
    case discover

    /// Every method name, for `rpc.discover` checks and completion.
    public static let names = [
        "initialize", "schema/types", "schema/register", "graph/get", "graph/set", "graph/call", "graph/transaction",
        "view/mount", "view/unmount", "view/provide", "view/tree", "watch", "unwatch", "shutdown", "rpc.discover",
    ]

    /// The methods a `graph/transaction` op may name.
    public static let transactionMethods: Set<String> = ["graph/set", "graph/call", "view/mount", "view/unmount", "view/provide"]

    public static func decode(method: String, params: JSONObject) throws(RPCError) -> MethodCall {
        var p = Params(params)
        let call: MethodCall
        switch method {
        case "initialize":
            call = .initialize(client: p.optional("client"), protocolVersion: try p.optionalString("protocolVersion"))
        case "schema/types": call = .schemaTypes
        case "schema/register":
            let types = try p.optionalArray("types") ?? []
            let keys = try p.optionalObject("environmentKeys") ?? [:]
            guard !types.isEmpty || !keys.isEmpty else {
                throw .invalidParams(field: "/types", "at least one type declaration or environment key")
            }
            call = .schemaRegister(types: types, environmentKeys: keys)
        case "graph/get": call = .get(path: try p.string("path"))
        case "graph/set": call = .set(path: try p.string("path"), value: try p.required("value"), ifVersion: try p.optionalInt("ifVersion"))
        case "graph/call": call = .call(path: try p.string("path"), arguments: try p.optionalArray("args") ?? [])
        case "graph/transaction":
            var operations: [MethodCall] = []
            for (index, op) in try p.array("ops").enumerated() {
                operations.append(try decodeOperation(op, pointer: "/ops/\(index)"))
            }
            call = .transaction(operations: operations)
        case "view/mount":
            p.consumeAll()
            call = .mount(declaration: .object(params))
        case "view/unmount": call = .unmount(path: try p.string("path"))
        case "view/provide":
            call = .provide(
                path: try p.string("path"), environmentObjects: try p.optionalStrings("environmentObjects") ?? [],
                observables: try p.optionalStrings("observables") ?? [],
                environment: try p.optionalObject("environment") ?? [:], withdraw: try p.optionalStrings("withdraw") ?? [])
        case "view/tree": call = .tree(path: try p.optionalString("path"))
        case "watch":
            call = .watch(
                paths: try p.optionalStrings("paths") ?? [], views: try p.optionalStrings("views") ?? [],
                lifecycle: try p.optionalBool("lifecycle") ?? false, sinceVersion: try p.optionalInt("sinceVersion"))
        case "unwatch": call = .unwatch(watch: try p.int("watch"))
        case "shutdown": call = .shutdown
        case "rpc.discover": call = .discover
        default: throw .methodNotFound(method)
        }
        try p.rejectUnknown()
        return call
    }

    private static func decodeOperation(_ op: JSON, pointer: String) throws(RPCError) -> MethodCall {
        guard case .object(let object) = op else { throw .invalidParams(field: pointer, "an op is {\"method\", \"params\"}") }
        guard case .string(let method)? = object["method"], transactionMethods.contains(method) else {
            throw .invalidParams(field: "\(pointer)/method", "an op is one of " + transactionMethods.sorted().joined(separator: ", "))
        }
        for key in object.keys where key != "method" && key != "params" {
            throw .invalidParams(field: "\(pointer)/\(key)", "unknown member")
        }
        let params: JSONObject
        switch object["params"] {
        case nil: params = [:]
        case .object(let given)?: params = given
        default: throw .invalidParams(field: "\(pointer)/params", "params is an object")
        }
        do {
            return try decode(method: method, params: params)
        } catch {
            throw .invalidParams(field: "\(pointer)/params\(error.data["field"]?.stringValue ?? "")", error.data["reason"]?.stringValue ?? error.message)
        }
    }
}

/// Reads named params and refuses the ones a method does not take.
struct Params {
    private let object: JSONObject
    /// The names read so far; a method reads a handful, so a list beats a set.
    private var used: [String] = []
    private var all = false

    init(_ object: JSONObject) { self.object = object }

    mutating func consumeAll() { all = true }

    mutating func optional(_ key: String) -> JSON? {
        used.append(key)
        return object[key]
    }

    mutating func required(_ key: String) throws(RPCError) -> JSON {
        guard let value = optional(key) else { throw .invalidParams(field: "/\(key)", "required") }
        return value
    }

    mutating func string(_ key: String) throws(RPCError) -> String {
        guard case .string(let value) = try required(key) else { throw .invalidParams(field: "/\(key)", "a string") }
        return value
    }

    mutating func optionalString(_ key: String) throws(RPCError) -> String? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .string(let text) = value else { throw .invalidParams(field: "/\(key)", "a string") }
        return text
    }

    mutating func int(_ key: String) throws(RPCError) -> Int {
        guard let value = try optionalInt(key) else { throw .invalidParams(field: "/\(key)", "required") }
        return value
    }

    mutating func optionalInt(_ key: String) throws(RPCError) -> Int? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .int(let number) = value else { throw .invalidParams(field: "/\(key)", "an integer") }
        return number
    }

    mutating func optionalBool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .bool(let flag) = value else { throw .invalidParams(field: "/\(key)", "true or false") }
        return flag
    }

    mutating func array(_ key: String) throws(RPCError) -> [JSON] {
        guard let value = try optionalArray(key) else { throw .invalidParams(field: "/\(key)", "required") }
        return value
    }

    mutating func optionalArray(_ key: String) throws(RPCError) -> [JSON]? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .array(let items) = value else { throw .invalidParams(field: "/\(key)", "an array") }
        return items
    }

    mutating func optionalStrings(_ key: String) throws(RPCError) -> [String]? {
        guard let items = try optionalArray(key) else { return nil }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw .invalidParams(field: "/\(key)/\(index)", "a string") }
            strings.append(text)
        }
        return strings
    }

    mutating func optionalObject(_ key: String) throws(RPCError) -> JSONObject? {
        guard let value = optional(key), value != .null else { return nil }
        guard case .object(let members) = value else { throw .invalidParams(field: "/\(key)", "an object") }
        return members
    }

    func rejectUnknown() throws(RPCError) {
        guard !all, object.count > 0 else { return }
        for member in object where !used.contains(member.key) {
            throw .invalidParams(field: "/\(member.key)", "this method takes no \(member.key)")
        }
    }
}
