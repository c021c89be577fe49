import MilieuJSON

/// What `graph/reset` does: the views it unmounts, the values it writes back and the views
/// whose provided environment it restores, by path, in the order its operations run.
public struct ResetPlan: Sendable {
    /// Every view clients mounted, retained or not, each with everything below it.
    public var unmounted: [String] = []
    /// Scene views a client had unmounted, mounted again.
    public var remounted: [String] = []
    /// Scene views whose `.environmentObject`, `.environment` objects or values a client changed.
    public var provided: [String] = []
    /// `@State`s of scene views, and stored properties of the objects they hold, back to their start.
    public var written: [String] = []
    /// The operations, as one transaction.
    public var operations: [Operation] = []

    public var isEmpty: Bool { operations.isEmpty }
}

extension Graph {
    /// The operations that take the graph back to its scene's start (`graph/reset`): it is
    /// compared with a graph freshly made from the same scene, never seen by anyone, and what
    /// differs is undone with ordinary operations (unmount, mount, provide, set), so that
    /// invalidation, notifications and the log treat a reset as any other transaction.
    ///
    /// Registered types and declared environment keys stay (they cannot be removed), and so do
    /// object ids: the counter goes on, as ids are never used again. A scene object a client
    /// replaced is not brought back; the object its path holds now gets the scene's values.
    public func resetPlan() throws(EngineError) -> ResetPlan {
        let start = try Graph(scene: scene, clock: clock, limits: limits)
        var plan = ResetPlan()
        for node in root.subtree where node.isClientMounted && node.parent?.isClientMounted == false {
            plan.unmounted.append(node.path)
            plan.operations.append(.unmount(path: node.path))
        }
        for json in scene.views where json["id"] == nil {
            guard let parent = json["parent"]?.stringValue, let name = json["name"]?.stringValue else { continue }
            let path = parent + "/" + name
            guard views[path] == nil else { continue }
            plan.remounted.append(path)
            plan.operations.append(.mount(declaration: json, owner: nil))
        }
        for fresh in start.root.subtree {
            guard let live = views[fresh.path], !live.isClientMounted else { continue }
            if live.provided != fresh.provided, let provide = restoring(live, as: fresh, of: start) {
                plan.provided.append(live.path)
                plan.operations.append(provide)
            }
            for (index, (name, variable)) in fresh.variables.enumerated() where index < live.variables.count {
                let path = live.path + "." + name
                switch (variable, live.variables[at: index].value) {
                case (.state(let initial, _), .state(let now, _)) where initial != now:
                    plan.written.append(path)
                    plan.operations.append(.set(path: path, value: initial, ifVersion: nil))
                case (.object(let initial, _), .object(let now, _)):
                    guard let freshObject = start.objects[initial], let liveObject = objects[now] else { continue }
                    // A secure value is set back whatever it is: whether it is listed must not tell
                    // whether it differs from its start (rule 13).
                    for slot in 0..<freshObject.type.storedCount
                    where freshObject.values[slot] != liveObject.values[slot] || freshObject.type.isSecure(slot) {
                        // A reference points into the fresh graph's objects: only "none" carries over.
                        guard freshObject.type.referencedType(slot) == nil || freshObject.values[slot] == .null else { continue }
                        let property = path + "." + freshObject.type.propertyName(slot)
                        plan.written.append(property)
                        plan.operations.append(.set(path: property, value: freshObject.values[slot], ifVersion: nil))
                    }
                default: continue
                }
            }
        }
        return plan
    }

    /// A `view/provide` making `live` provide what `fresh` of `start` does: its objects by the
    /// name they have in this graph (the scene's are made in the same order, so named alike),
    /// its values, and a withdrawal of whatever else it provides now. nil when an object it
    /// should provide is no longer in this graph.
    private func restoring(_ live: ViewNode, as fresh: ViewNode, of start: Graph) -> Operation? {
        func names(_ provided: [String: ObjectSerial]) -> [String]? {
            let names = provided.keys.sorted().compactMap { start.objects[provided[$0]!]?.name }
            guard names.count == provided.count, names.allSatisfy({ objectsByName[$0] != nil }) else { return nil }
            return names
        }
        guard let objects = names(fresh.provided.objects), let observables = names(fresh.provided.observables) else { return nil }
        let now = live.provided
        let kept = Set(fresh.provided.objects.keys).union(fresh.provided.observables.keys).union(fresh.provided.environment.keys)
        let withdraw = Set(now.objects.keys).union(now.observables.keys).union(now.environment.keys).subtracting(kept).sorted()
        return .provide(
            path: live.path, environmentObjects: objects, observables: observables,
            environment: JSONObject(fresh.provided.environment.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }),
            withdraw: withdraw)
    }
}

extension ViewNode {
    /// Whether a client mounted it, retained or not (a retained one keeps its declaration for
    /// the log); false for the scene's views and what their evaluations build.
    fileprivate var isClientMounted: Bool { owner != nil || durableDeclaration != nil }
}
