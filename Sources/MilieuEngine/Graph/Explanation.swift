import MilieuJSON

/// A place whose change can re-render a view, as `graph/explain` names it.
public enum Attribute: Hashable, Sendable {
    /// A stored or computed property of an object.
    case property(object: String, property: String)
    /// A view's `@State`.
    case state(view: String, variable: String)
    /// Any change of an `ObservableObject`, which its holders subscribe to (`objectWillChange`, rule 10).
    case object(String)
    /// An environment value by key, and the view that provides it (nil: the key's default).
    case environment(provider: String?, key: String)
}

/// Why a view was queued for evaluation in a commit: the reason it reports (rule 10) and what
/// gave it, as the engine saw it, not as read back from the reasons.
public struct Invalidation: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// An attribute the view depends on changed.
        case attribute(Attribute)
        /// `@self`: its parent, this view, was evaluated and passed it other values.
        case parent(String)
        /// What this view provides to its subtree changed (`view/provide`).
        case provider(String)
    }

    public let view: String
    public let reason: String
    public let source: Source
}

/// An invalidation as recorded while the transaction runs, with the nodes and serials it
/// involves; named (`Invalidation`) only once the transaction commits.
struct PendingInvalidation {
    enum Source {
        case dependency(Dependency)
        case parent(ViewNode)
        case provider(ViewNode)
    }

    let view: ViewNode
    let reason: String
    let source: Source
}

extension Graph {
    /// Names the views the transaction queued, with their reasons and what gave them. Work done
    /// only for views that were queued: a write nobody reads names nothing and allocates nothing.
    func namedInvalidations() -> [Invalidation] {
        guard !pending.invalidations.isEmpty else { return [] }
        var named: [Invalidation] = []
        for queued in pending.invalidations {
            let source: Invalidation.Source
            switch queued.source {
            case .parent(let parent): source = .parent(parent.path)
            case .provider(let provider): source = .provider(provider.path)
            case .dependency(let dependency):
                guard let attribute = attribute(of: dependency) else { continue }
                source = .attribute(attribute)
            }
            let invalidation = Invalidation(view: queued.view.path, reason: queued.reason, source: source)
            if !named.contains(invalidation) { named.append(invalidation) }
        }
        return named
    }

    /// The attribute a dependency is on, by name; nil for an object or view no longer in the graph.
    private func attribute(of dependency: Dependency) -> Attribute? {
        switch dependency {
        case .location(.property(let id, let slot)):
            guard let record = objects[id] else { return nil }
            return .property(object: record.name, property: record.type.propertyName(slot))
        case .location(.state(let serial, let index)):
            guard let node = viewsBySerial[serial] else { return nil }
            return .state(view: node.path, variable: node.variables[at: index].name)
        case .object(let id):
            guard let record = objects[id] else { return nil }
            return .object(record.name)
        case .environment(let provider, let key):
            return .environment(provider: provider.flatMap { viewsBySerial[$0]?.path }, key: key)
        }
    }
}
