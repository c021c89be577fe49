import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// A graph with a fixed clock, so that timestamps in tests are known.
func makeGraph(scene: Scene = .default) throws -> Graph {
    try Graph(scene: scene, clock: { "2026-01-01T00:00:00.000Z" })
}

/// 30 views `/App/H0`…`/App/H29`, each owning a `Heavy` whose computed `length` counts its
/// `text` (about one step a character), under a budget of 20,000 steps a request: 10 writes of
/// a 1000-byte text fit in one request, 30 do not.
func makeHeavyRows() throws -> Graph {
    let graph = try Graph(scene: .default, clock: { "2026-01-01T00:00:00.000Z" }, limits: GraphLimits(maxRequestSteps: 20_000))
    try graph.register(
        ModelType(
            declaration: [
                "name": "Heavy", "style": "observable", "properties": ["text": ["type": "string"]],
                "computed": ["length": ["type": "int", "get": ["count": ["get": "text"]]]],
            ]))
    for index in 0..<30 {
        try graph.mount([
            "parent": "/App", "name": .string("H\(index)"), "state": ["h": ["$new": ["type": "Heavy"]]], "body": ["{h.length}"],
        ])
    }
    return graph
}

/// S5 (seed 004): `ParentView` owns `isOn` and shows it; `ToggleRow` reads it through a binding.
func makeToggleScreen() throws -> Graph {
    let graph = try makeGraph()
    try graph.mount(["parent": "/App", "name": "ParentView", "state": ["isOn": false], "body": ["{isOn}"]])
    try graph.mount([
        "parent": "/App/ParentView", "name": "ToggleRow", "bindings": ["isOn": ["$parent": "isOn"]], "body": ["switch: {isOn}"],
    ])
    return graph
}

extension Outcome {
    var mountedView: MountedView? { if case .mounted(let view) = self { view } else { nil } }
    /// What an action returned; nil for any other operation.
    var returned: JSON? { if case .called(let value) = self { value } else { nil } }
}

extension Graph {
    @discardableResult
    func mount(_ declaration: JSON, owner: ConnectionID? = nil) throws -> (view: MountedView?, commit: Commit) {
        let (outcomes, commit) = try apply([.mount(declaration: declaration, owner: owner)])
        return (outcomes[0].mountedView, commit)
    }

    @discardableResult
    func set(_ path: String, _ value: JSON, ifVersion: Int? = nil) throws -> Commit {
        try apply([.set(path: path, value: value, ifVersion: ifVersion.map(Version.init))]).commit
    }

    @discardableResult
    func call(_ path: String, _ arguments: [JSON] = []) throws -> Commit {
        try apply([.call(path: path, arguments: arguments)]).commit
    }

    @discardableResult
    func unmount(_ path: String) throws -> Commit {
        try apply([.unmount(path: path)]).commit
    }

    @discardableResult
    func provide(
        _ path: String, objects: [String] = [], observables: [String] = [], environment: JSONObject = [:], withdraw: [String] = []
    ) throws -> Commit {
        try apply([
            .provide(path: path, environmentObjects: objects, observables: observables, environment: environment, withdraw: withdraw)
        ]).commit
    }

    /// Seed 002 (S3): `ContentView` owns the model and injects it; `CountView` shows `count`,
    /// `ButtonView` only has a button. `ObservableObject`: `@StateObject` + `.environmentObject` +
    /// `@EnvironmentObject`; `@Observable`: `@State` + `.environment(vm)` + `@Environment(NewObservable.self)`.
    func mountCounterScreen(observable: Bool) throws {
        let type: JSON = observable ? "NewObservable" : "OriginalObservable"
        let reader: JSON = observable ? ["environment": ["vm": ["type": type]]] : ["environmentObjects": ["vm": type]]
        try mount([
            "parent": "/App", "name": "ContentView",
            observable ? "state" : "stateObjects": observable ? ["vm": ["$new": ["type": type]]] : ["vm": ["type": type]],
            "provide": [observable ? "observables" : "environmentObjects": ["vm"]],
        ])
        for (name, body) in [("CountView", "count: {vm.count}"), ("ButtonView", "+")] {
            var declaration: JSONObject = ["parent": "/App/ContentView", "name": .string(name), "body": [.string(body)]]
            for (key, value) in reader.objectValue ?? [:] { declaration[key] = value }
            try mount(.object(declaration))
        }
    }

    /// A whole-graph picture for checking that a failed operation changed nothing.
    func fingerprint() throws -> String {
        let objectsText = objects.values.sorted { $0.serial < $1.serial }
            .map { "\($0.name)=\(JSON.array($0.values).jsonText)@\($0.version)/\($0.holders)" }.joined(separator: ";")
        let indexed = dependents.values.reduce(0) { count, readers in count + readers.sorted.count }
        return "v\(version)|\(try tree().wire.jsonText)|\(objectsText)|\(dependents.count)/\(indexed)"
    }
}

extension Commit {
    /// Each re-evaluated view's reasons, by path.
    var updates: [String: [String]] {
        var result: [String: [String]] = [:]
        for case .viewUpdated(let view, let reasons, _, _) in changes { result[view] = reasons }
        return result
    }

    /// The views re-evaluated, in order.
    var updatedViews: [String] {
        changes.compactMap { if case .viewUpdated(let view, _, _, _) = $0 { view } else { nil } }
    }

    func body(of view: String) -> [String]? {
        for change in changes {
            switch change {
            case .viewUpdated(view, _, let body, _), .viewMounted(view, _, let body, _): return Array(body)
            default: continue
            }
        }
        return nil
    }

    var created: [(object: String, owner: String?, reason: String)] {
        changes.compactMap { if case .objectCreated(let o, _, let owner, let r) = $0 { (o, owner, r.rawValue) } else { nil } }
    }

    var destroyed: [(object: String, reason: String)] {
        changes.compactMap { if case .objectDestroyed(let o, _, _, let r) = $0 { (o, r.rawValue) } else { nil } }
    }

    var diagnostics: [(kind: String, view: String, variable: String, ignored: JSON)] {
        changes.compactMap {
            if case .diagnostic(let kind, _, let view, let variable, let ignored, _) = $0 { (kind, view, variable, ignored) } else { nil }
        }
    }

    var propertyChanges: [String: JSON?] {
        var result: [String: JSON?] = [:]
        for change in changes {
            switch change {
            case .property(let object, _, let property, let value): result["\(object).\(property)"] = value
            case .state(let view, let variable, let value): result["\(view).\(variable)"] = value
            default: continue
            }
        }
        return result
    }
}

/// Runs `body`, expecting an EngineError of `kind`, and returns it.
@discardableResult
func expectError(
    _ kind: EngineError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
)
    -> EngineError?
{
    do {
        try body()
        Issue.record("expected \(kind), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as EngineError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension Graph {
    /// What `commit` changes of the durable state, as a list.
    func durableWrites(for commit: Commit) -> [DurableWrite] {
        var writes: [DurableWrite] = []
        forEachDurableWrite(of: commit) { write, _ in writes.append(write) }
        return writes
    }
}
