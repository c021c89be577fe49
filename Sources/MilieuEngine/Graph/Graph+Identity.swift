import MilieuJSON

/// Identity (rule 6): `.id(x)` binds a view's identity to a value. When the value changes the
/// view is a new view: it and its whole subtree lose their owned state, which is made afresh from
/// the current inputs.
extension Graph {
    /// Rule 6: a new `id` makes a new view. Among a parent's `children`, each whose id changed
    /// goes with its subtree, and the same declarations are built again in its place, with fresh
    /// state, from the current inputs. Every old identity goes before any new one is built, so
    /// siblings that trade ids in one transaction (`.id(a)` and `.id(b)` swapped) never meet.
    func replaceIdentities(_ children: [(node: ViewNode, evaluated: EvaluatedDeclaration)]) throws(EngineError) {
        var retired: [[RebuildPlan]?] = []
        retired.reserveCapacity(children.count)
        for (child, evaluated) in children {
            guard child.isMounted, !child.hasExplicitID(evaluated.id) else {
                retired.append(nil)
                continue
            }
            retired.append(child.children.map(RebuildPlan.init))
            teardown(child, reason: .identity)
        }
        var previous: ViewNode?
        for ((child, evaluated), plan) in zip(children, retired) {
            guard let plan, let parent = child.parent else {
                if child.isMounted { previous = child }
                continue
            }
            let fresh = try buildNode(
                child.declaration, literals: child.literals, parent: parent, explicitID: evaluated.id, owner: child.owner,
                evaluated: evaluated, after: previous, atEnd: false, arrival: .identity)
            fresh.durableDeclaration = child.durableDeclaration
            for item in plan { try rebuild(item, under: fresh) }
            previous = fresh
        }
    }

    private func rebuild(_ plan: RebuildPlan, under parent: ViewNode) throws(EngineError) {
        let evaluated = try evaluate(plan.declaration, literals: plan.literals, parent: parent, recorder: nil)
        let node = try buildNode(
            plan.declaration, literals: plan.literals, parent: parent, explicitID: evaluated.id, owner: plan.owner,
            evaluated: evaluated, arrival: .identity)
        node.durableDeclaration = plan.durableDeclaration.map { Self.reparented($0, to: parent.path) }
        for child in plan.children { try rebuild(child, under: node) }
    }

    /// A declaration moved under a parent whose path changed with its identity.
    private static func reparented(_ declaration: JSON, to parent: String) -> JSON {
        guard case .object(var object) = declaration else { return declaration }
        object["parent"] = .string(parent)
        return .object(object)
    }
}

/// The declarations under a view whose identity changes, to build them again.
struct RebuildPlan {
    let declaration: ViewDeclaration
    let literals: ViewLiterals
    let owner: ConnectionID?
    let durableDeclaration: JSON?
    let children: [RebuildPlan]

    init(_ node: ViewNode) {
        declaration = node.declaration
        literals = node.literals
        owner = node.owner
        durableDeclaration = node.durableDeclaration
        children = node.children.map(RebuildPlan.init)
    }
}
