import MilieuJSON
import MilieuProtocol

/// Why a view was queued for evaluation in a commit: the reason it reports (rule 10) and what
/// gave it, as the engine saw it, not as read back from the reasons.
public struct Invalidation: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        /// A place the view depends on changed, named as `view/dependencies` names it.
        case attribute(ViewDependency.Source)
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
        // A set, not a scan of `named`: one write that re-renders N views names N of them (40k
        // views reading theme.colorScheme took 3.5 s to name by scanning).
        var seen = Set<Invalidation>(minimumCapacity: pending.invalidations.count)
        for queued in pending.invalidations {
            let source: Invalidation.Source
            switch queued.source {
            case .parent(let parent): source = .parent(parent.path)
            case .provider(let provider): source = .provider(provider.path)
            case .dependency(let dependency):
                guard let attribute = self.source(of: dependency) else { continue }
                source = .attribute(attribute)
            }
            let invalidation = Invalidation(view: queued.view.path, reason: queued.reason, source: source)
            if seen.insert(invalidation).inserted { named.append(invalidation) }
        }
        return named
    }

}
