import MilieuJSON
import MilieuProtocol

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
    var appLiterals: ViewLiterals
    public var views: [JSON]

    /// Reads the scene: its shape by `SceneFile`, the one reader milieu's `load` uses too.
    public init(json: JSON) throws(EngineError) {
        let file: SceneFile
        do {
            file = try SceneFile(json: json)
        } catch {
            throw .invalidDeclaration(field: error.field, reason: error.reason)
        }
        try self.init(file: file)
    }

    /// A scene file read already, and `/App`'s declaration in it.
    public init(file: SceneFile) throws(EngineError) {
        self.environmentKeys = file.environmentKeys
        self.types = file.types
        var literals = DeclarationLiterals()
        self.app = try ViewDeclaration(json: file.app ?? [:], literals: &literals, placement: .root)
        self.appLiterals = ViewLiterals(literals.values)
        self.views = file.views
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
