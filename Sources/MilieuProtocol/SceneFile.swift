import MilieuJSON

/// A scene file as `milieud --scene` and milieu's `load` read it (SPEC appendix A): one
/// reader, so a member one accepts the other cannot refuse.
///
///     {"description": "…", "types": [...], "environmentKeys": {...}, "app": {...}, "views": [...]}
///
/// `app` is what `/App` owns and provides, read when the daemon starts; the rest are declarations
/// checked where they are used (`schema/register`, `view/mount`). A client loads one with
/// `registration` and `mount`, and unloads it by unmounting its `roots` (milieu's `load`, the
/// inspector's `POST /load`).
public struct SceneFile: Sendable {
    public static let members: Set<String> = ["description", "types", "environmentKeys", "app", "views"]

    public var description: String?
    public var types: [JSON]
    public var environmentKeys: JSONObject
    /// `/App`'s declaration, when the scene gives one.
    public var app: JSON?
    public var views: [JSON]

    /// Why a scene cannot be read: the member (`scene` for the whole) and what is wrong.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let field: String
        public let reason: String
        public var description: String { reason }
    }

    /// Reads a scene file's bytes; a JSON error says the line and column.
    public init(text: [UInt8]) throws(Problem) {
        let json: JSON
        do {
            json = try JSON(parsing: text)
        } catch {
            throw Problem(field: "scene", reason: "not valid JSON: \(error.described(in: text))")
        }
        try self.init(json: json)
    }

    public init(json: JSON) throws(Problem) {
        guard case .object(let object) = json else {
            throw Problem(field: "scene", reason: "a scene is a JSON object with types, app and views")
        }
        if let unknown = object.keys.first(where: { !Self.members.contains($0) }) {
            throw Problem(
                field: "scene", reason: "unknown member \"\(unknown)\"; expected one of " + Self.members.sorted().joined(separator: ", "))
        }
        guard case .array(let types)? = object["types"] ?? .array([]) else {
            throw Problem(field: "types", reason: "types is an array of type declarations")
        }
        guard case .object(let keys)? = object["environmentKeys"] ?? .object([:]) else {
            throw Problem(field: "environmentKeys", reason: "environmentKeys is an object of key: {type, default}")
        }
        guard case .array(let views)? = object["views"] ?? .array([]) else {
            throw Problem(field: "views", reason: "views is an array of view declarations")
        }
        if let index = views.firstIndex(where: { $0.objectValue == nil }) {
            throw Problem(field: "views", reason: "view \(index) of views is not a JSON object")
        }
        if let description = object["description"], description.stringValue == nil {
            throw Problem(field: "description", reason: "description is a string")
        }
        self.description = object["description"]?.stringValue
        self.types = types
        self.environmentKeys = keys
        self.app = object["app"]
        self.views = views
    }

    /// Its types and environment keys registered in the place of any of the same name: a scene's
    /// types are the scene's, so loading it again, edited, replaces them (refused while objects of
    /// the old ones are alive). Nil when it declares none.
    public var registration: SchemaRegisterRequest? {
        guard !types.isEmpty || !environmentKeys.isEmpty else { return nil }
        return SchemaRegisterRequest(types: types, environmentKeys: environmentKeys, replace: true)
    }

    /// All its views mounted in one transaction, retained, so that they outlive the connection
    /// that loaded them. Nil when it has none.
    public var mount: GraphTransactionRequest? {
        guard !views.isEmpty else { return nil }
        return GraphTransactionRequest(
            operations: views.map { view in
                var declaration = view.objectValue ?? [:]
                declaration["retain"] = true
                return ViewMountRequest(declaration: declaration)
            })
    }

    /// The paths of the views it mounts whose parent is not one of them: what unloading it unmounts.
    public var roots: [String] {
        let paths = views.compactMap { view -> String? in
            guard let parent = view["parent"]?.stringValue, let name = view["name"]?.stringValue else { return nil }
            return parent + "/" + name + (view["id"].map { "[\($0.jsonText)]" } ?? "")
        }
        return paths.filter { path in !paths.contains { other in other != path && path.hasPrefix(other + "/") } }
    }
}
