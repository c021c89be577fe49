import MilieuJSON
import MilieuProtocol

extension Graph {
    /// `view/environment`: what the environment holds for the view at `path` (rules 7, 17, 21):
    /// for each object type in each slot the nearest provider's object, in the order
    /// `nearestModifier` searches, and every environment key's value, provided or its default.
    public func environmentScope(of path: String) throws(EngineError) -> (path: String, scope: EnvironmentScope) {
        let node = try mountedView(path)
        var objects: [String: EnvironmentScope.ProvidedObject] = [:]
        var observables: [String: EnvironmentScope.ProvidedObject] = [:]
        _ = nearestModifier(above: node) { provided, view -> Void? in
            for (type, id) in provided.objects where objects[type] == nil {
                objects[type] = providedObject(type, id, by: view)
            }
            for (type, id) in provided.observables where observables[type] == nil {
                observables[type] = providedObject(type, id, by: view)
            }
            return nil
        }
        let values = try environmentKeys.all.map { key throws(EngineError) in
            let (provider, value) = try environmentValue(key.name, for: node)
            return EnvironmentScope.Value(key: key.name, value: value, provider: provider.flatMap { viewsBySerial[$0]?.path })
        }
        let scope = EnvironmentScope(
            environmentObjects: objects.values.sorted { $0.type < $1.type }, observables: observables.values.sorted { $0.type < $1.type },
            environment: values)
        return (node.path, scope)
    }

    private func providedObject(_ type: String, _ id: ObjectSerial, by view: ViewNode) -> EnvironmentScope.ProvidedObject {
        EnvironmentScope.ProvidedObject(type: type, object: self.objects[id]?.name ?? "", provider: view.path)
    }

    /// For `EnvironmentObjectMissing`'s hint: the nearest key path to an object of `type` that
    /// could be provided to `node`, and the view to provide it on. An object a view above `node`
    /// holds comes first, nearest first; else any object of that type, by its owner's key path
    /// (or its id), provided on the nearest view above both; never one `node` itself made, which
    /// goes with it when its mount fails. Nil when there is no such object.
    func providableObject(_ type: String, for node: ViewNode) -> (keyPath: String, provider: String)? {
        for view in node.ancestorsAndSelf.dropFirst() {
            for (name, variable) in view.variables {
                if let id = variable.object, objects[id]?.type.name == type { return ("\(view.path).\(name)", view.path) }
            }
        }
        // Past the ancestors only the objects themselves say where they are: this runs on an
        // error, never on a mount that succeeds.
        guard let parent = node.parent,
            let record = objects.values.filter({ $0.type.name == type && $0.ownerView !== node }).min(by: { $0.serial < $1.serial })
        else { return nil }
        let owner = record.ownerView.map { Set($0.ancestorsAndSelf.map(\.serial)) } ?? []
        let provider = parent.ancestorsAndSelf.first { owner.contains($0.serial) } ?? parent
        return (record.owner ?? record.name, provider.path)
    }
}
