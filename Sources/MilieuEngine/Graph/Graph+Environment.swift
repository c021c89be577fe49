import MilieuJSON

extension Graph {
    /// Rule 7: the nearest provider of `type`, searching the view itself and then its ancestors.
    /// When there is none, the error lists `node.ancestorsAndSelf`: every view searched.
    func environmentObject(_ type: String, for node: ViewNode) -> Int? {
        for view in node.ancestorsAndSelf {
            if let id = view.providedObjects[type] { return id }
        }
        return nil
    }

    func environmentValue(_ key: String, for node: ViewNode) -> (provider: Int?, value: JSON) {
        for view in node.ancestorsAndSelf {
            if let value = view.providedEnvironment[key] { return (view.serial, value) }
        }
        // SPEC §6.1: a key no ancestor provides reads null.
        return (nil, .null)
    }

    /// What a declaration's `provide` comes to for `node` now: objects by type, values by key.
    func declaredProvides(of node: ViewNode) throws(EngineError) -> ([String: Int], [String: JSON]) {
        var objects: [String: Int] = [:]
        for path in node.declaration.provideObjects {
            let (type, id) = try providedObject(path, relativeTo: node)
            guard objects.updateValue(id, forKey: type) == nil else {
                throw .invalidDeclaration(field: "provide.environmentObjects", reason: "two objects of type \(type)", view: node.path)
            }
        }
        return (objects, Dictionary(node.declaration.provideEnvironment.map { ($0.key, $0.value) }, uniquingKeysWith: { _, b in b }))
    }

    /// A key path to an object, relative to `node` unless it is absolute or starts at an object id.
    private func providedObject(_ path: String, relativeTo node: ViewNode) throws(EngineError) -> (String, Int) {
        var keyPath = try KeyPath(parsing: path)
        if !path.hasPrefix("/"), case .view = keyPath.root { keyPath.root = .view(node.path) }
        let bound = try resolve(keyPath, display: path)
        guard case .object(let id) = bound, let record = objects[id] else {
            let actual: String
            switch bound {
            case .value(let value): actual = value.kindName
            case .secure: actual = "string"
            case .object: actual = "object"
            }
            throw .typeMismatch(path: path, expected: "object", actual: actual)
        }
        return (record.type.name, id)
    }

    /// `view/provide`: adds, replaces or withdraws what a mounted view provides to its subtree.
    func provideOperation(_ path: String, objects paths: [String], environment: JSONObject, withdraw: [String])
        throws(EngineError)
    {
        let canonical = try ViewPath.split(path).view
        guard let node = views[canonical] else { throw .unknownPath(path, "no view is mounted there") }
        var objects = node.providedObjects
        var values = node.providedEnvironment
        var added = Set<String>()
        for (index, objectPath) in paths.enumerated() {
            let (type, id) = try providedObject(objectPath, relativeTo: node)
            guard added.insert(type).inserted else {
                throw .invalidParams(pointer: "/environmentObjects/\(index)", "a second object of type \(type)")
            }
            objects[type] = id
        }
        for (key, value) in environment { values[key] = value }
        for (index, name) in withdraw.enumerated() {
            guard !added.contains(name), environment[name] == nil else {
                throw .invalidParams(pointer: "/withdraw/\(index)", "\(name) is both provided and withdrawn")
            }
            if objects.removeValue(forKey: name) == nil, values.removeValue(forKey: name) == nil {
                throw .invalidParams(pointer: "/withdraw/\(index)", "\(canonical) provides no \(name) to withdraw")
            }
        }
        try applyProvides(node, objects: objects, environment: values)
    }

    /// Makes `node` provide exactly these, and brings its subtree's environment up to date:
    /// views that now see another object or value are evaluated again; views left
    /// without a required object make the change fail with InUse (rule 8).
    func applyProvides(_ node: ViewNode, objects: [String: Int], environment: [String: JSON]) throws(EngineError) {
        let oldObjects = node.providedObjects
        let oldEnvironment = node.providedEnvironment
        let types = Set(objects.keys).union(oldObjects.keys).filter { objects[$0] != oldObjects[$0] }
        let keys = Set(environment.keys).union(oldEnvironment.keys).filter { environment[$0] != oldEnvironment[$0] }
        guard !types.isEmpty || !keys.isEmpty else { return }
        pending.structural = true
        for type in types { if let id = objects[type] { hold(id) } }
        node.providedObjects = objects
        node.providedEnvironment = environment
        journal.record(.provides(node, objects: oldObjects, environment: oldEnvironment))
        var missing: [(type: String, view: String)] = []
        for view in node.subtree {
            for (name, type) in view.declaration.environmentObjects where types.contains(type) {
                guard let found = environmentObject(type, for: view) else {
                    missing.append((type, view.path))
                    continue
                }
                if view.variables[name]?.object != found {
                    setVariable(view, name, .object(found, .environmentObject))
                    pending.queue.add(view, reason: "_\(name)")
                }
            }
            for key in view.declaration.environment where keys.contains(key) {
                let (provider, value) = environmentValue(key, for: view)
                guard case .environment(let oldProvider, let oldValue)? = view.variables[key],
                    oldProvider != provider || oldValue != value
                else { continue }
                setVariable(view, key, .environment(provider: provider, value: value))
                if view.dependencies.contains(.environment(provider: oldProvider, key: key)) {
                    pending.queue.add(view, reason: "env.\(key)")
                }
            }
        }
        if let first = missing.first {
            throw .inUse(provided: first.type, view: node.path, dependents: missing.filter { $0.type == first.type }.map(\.view))
        }
        for type in types { if let id = oldObjects[type] { release(id, reason: "released") } }
    }
}
