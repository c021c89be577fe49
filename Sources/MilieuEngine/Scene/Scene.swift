import MilieuJSON

/// A start-up graph: model types declared in JSON, the root view `/App` (its state
/// objects and what it provides) and views mounted under it from the start.
///
///     {"types": [...], "app": {"stateObjects": {...}, "provide": {...}}, "views": [<view declaration>, ...]}
public struct Scene: Sendable {
    public var types: [JSON]
    /// Custom environment keys and their defaults (rule 21).
    public var environmentKeys: JSONObject
    var app: ViewDeclaration
    /// The literal values `app` refers to.
    var appLiterals: [JSON]
    public var views: [JSON]

    public init(json: JSON) throws(EngineError) {
        guard case .object(let object) = json else {
            throw .invalidDeclaration(field: "scene", reason: "a scene is a JSON object with types, app and views")
        }
        try rejectUnknownKeys(object, allowed: ["types", "environmentKeys", "app", "views", "description"], field: "scene")
        guard case .object(let keys)? = object["environmentKeys"] ?? .object([:]) else {
            throw .invalidDeclaration(field: "environmentKeys", reason: "environmentKeys is an object of key: {type, default}")
        }
        self.environmentKeys = keys
        guard case .array(let types)? = object["types"] ?? .array([]) else {
            throw .invalidDeclaration(field: "types", reason: "types is an array of type declarations")
        }
        guard case .array(let views)? = object["views"] ?? .array([]) else {
            throw .invalidDeclaration(field: "views", reason: "views is an array of view declarations")
        }
        self.types = types
        var literals = DeclarationLiterals()
        self.app = try ViewDeclaration(json: object["app"] ?? [:], literals: &literals, placement: .root)
        self.appLiterals = literals.values
        self.views = views
    }

    /// The embedded default: `/App` owns `session`, `theme` and `login` (all `@Observable`) with
    /// `@State` and provides them with `.environment(_:)` (rule 15).
    public static let `default`: Scene = {
        do { return try Scene(json: defaultJSON) } catch { preconditionFailure("the embedded scene is valid: \(error)") }
    }()

    /// The embedded default as JSON, for scenes that build on it.
    public static let defaultJSON: JSON = [
        "app": [
            "state": [
                "session": ["$new": ["type": "Session"]], "theme": ["$new": ["type": "Theme"]], "login": ["$new": ["type": "Login"]],
            ],
            "provide": ["observables": ["session", "theme", "login"]],
        ]
    ]
}
