import MilieuJSON
import MilieuProtocol

extension Graph {
    /// Rule 7: the nearest environment modifier above `node` for which `find` finds something,
    /// and the view whose body writes it: its provider. A view sees what its parent's body applied
    /// where it placed it (`modifiers`), then, for each ancestor from the nearest, what that
    /// ancestor's body applies to its content (`provide`) and what was applied where that ancestor
    /// was placed. A view's own `provide` is for its content, never for the view itself.
    func nearestModifier<Found>(
        above node: ViewNode, _ find: (Provided, _ provider: ViewNode) -> Found?
    ) -> (provider: ViewNode, found: Found)? {
        var view = node
        while let parent = view.parent {
            if let found = find(view.placed, parent) { return (parent, found) }
            if let found = find(parent.provided, parent) { return (parent, found) }
            view = parent
        }
        return nil
    }

    /// The nearest provided `ObservableObject` of `type` (`.environmentObject`). When there is
    /// none, the error lists `node.ancestorsAndSelf`: every view whose modifiers were searched.
    func environmentObject(_ type: String, for node: ViewNode) -> ObjectSerial? {
        nearestModifier(above: node) { provided, _ in provided.objects[type] }?.found
    }

    /// Rule 17: the nearest provided `@Observable` object of `type` (`.environment(x)`), a slot of its own.
    func environmentObservable(_ type: String, for node: ViewNode) -> ObjectSerial? {
        nearestModifier(above: node) { provided, _ in provided.observables[type] }?.found
    }

    /// The nearest provided value of `key`, or its default (rule 21) with no provider.
    /// Transforms between the view and that provider apply to it, outermost first; the view whose
    /// body wrote the innermost is then the provider.
    func environmentValue(_ key: String, for node: ViewNode) throws(EngineError) -> (provider: ViewSerial?, value: JSON) {
        var view = node
        var found: (provider: ViewNode, value: JSON)?
        // Innermost first, each with the view whose body wrote it.
        var transforms: [(PlacedTransform, writer: ViewNode)] = []
        while let parent = view.parent {
            if let value = view.placed.environment[key] {
                found = (parent, value)
                break
            }
            for transform in view.placedTransforms.reversed() where transform.key == key { transforms.append((transform, parent)) }
            if let value = parent.provided.environment[key] {
                found = (parent, value)
                break
            }
            view = parent
        }
        var provider = found?.provider.serial
        var value = found?.value ?? environmentKeys[key]?.defaultValue ?? .null
        for (transform, writer) in transforms.reversed() {
            value = try transformed(value, by: transform, writer: writer)
            provider = writer.serial
        }
        return (provider, value)
    }

    /// Gives a new view what its environment modifiers provide, then its `@EnvironmentObject`,
    /// `@Environment(T.self)` and `@Environment(\\.key)` variables from the environment above it
    /// (rules 7, 8, 17, 21).
    func installEnvironment(_ node: ViewNode) throws(EngineError) {
        let declaration = node.declaration
        if !declaration.modifiers.isEmpty { node.placed = try held(declaredModifiers(of: node, .placement)) }
        if !declaration.provides.isEmpty { node.provided = try held(declaredModifiers(of: node, .content)) }
        for (name, type) in declaration.environmentObjects {
            try requireStyle(of: type, for: .environmentObject, field: "environmentObjects.\(name)", view: node.path)
            guard let found = environmentObject(type, for: node) else {
                throw .environmentObjectMissing(
                    type: type, view: node.path, variable: name, searched: node.ancestorsAndSelf.map(\.path),
                    existing: providableObject(type, for: node), providesToContent: node.provided.objects[type] != nil)
            }
            node.variables.append(name, .object(found, .environmentObject))
        }
        for (name, wanted) in declaration.environmentObservables {
            try requireStyle(of: wanted.type, for: .environment, field: "environment.\(name)", view: node.path)
            if let found = environmentObservable(wanted.type, for: node) {
                node.variables.append(name, .object(found, .environment))
            } else if wanted.optional {
                node.variables.append(name, .noObject)
            } else {
                throw .environmentObjectMissing(
                    type: wanted.type, view: node.path, variable: name, searched: node.ancestorsAndSelf.map(\.path),
                    observable: true, existing: providableObject(wanted.type, for: node),
                    providesToContent: node.provided.observables[wanted.type] != nil)
            }
        }
        for (name, key) in declaration.environment {
            _ = try environmentKey(key, field: "environment.\(name)", view: node.path)
            let (provider, value) = try environmentValue(key, for: node)
            node.variables.append(name, .environment(provider: provider, value: value))
        }
    }

    /// `provided`, with every object it puts in the environment held.
    private func held(_ provided: Provided) -> Provided {
        for id in provided.heldObjects { hold(id) }
        return provided
    }

    /// The declared key `key`, or an error naming how to declare it.
    func environmentKey(_ key: String, field: String, view: String?) throws(EngineError) -> StoredProperty {
        guard let property = environmentKeys[key] else {
            throw .invalidDeclaration(
                field: field,
                reason: "\(key) is not an environment key"
                    + Suggestions.phrase(Suggestions.nearest(to: key, among: environmentKeys.all.map(\.name)))
                    + "; to declare it, give its default, as an EnvironmentKey's defaultValue, "
                    + "in schema/register {\"environmentKeys\": {\"\(key)\": {\"type\": ..., \"default\": ...}}} or in the scene",
                view: view)
        }
        return property
    }

    /// A provided environment value, checked against its key's type and constraints.
    func checkedEnvironmentValue(_ key: String, _ value: JSON, field: String, view: String?) throws(EngineError) -> JSON {
        try checked(value, for: try environmentKey(key, field: field, view: view), path: "env.\(key)")
    }

    /// What `node`'s declared modifiers in `layer` come to now, objects by type and values by key:
    /// its `provide`, whose key paths are relative to the view, or its `modifiers`, relative to its
    /// parent, whose body they are written in.
    func declaredModifiers(of node: ViewNode, _ layer: EnvironmentLayer) throws(EngineError) -> Provided {
        let (modifiers, field, base) =
            layer == .content
            ? (node.declaration.provides, "provide", node) : (node.declaration.modifiers, "modifiers", node.parent ?? node)
        var provided = Provided()
        guard !modifiers.isEmpty else { return provided }
        for path in modifiers.objects {
            let (type, id) = try providedObject(path, relativeTo: base, slot: .environmentObject, field: "\(field).environmentObjects")
            guard provided.objects.updateValue(id, forKey: type) == nil else {
                throw .invalidDeclaration(field: "\(field).environmentObjects", reason: "two objects of type \(type)", view: node.path)
            }
        }
        for path in modifiers.observables {
            let (type, id) = try providedObject(path, relativeTo: base, slot: .environment, field: "\(field).observables")
            guard provided.observables.updateValue(id, forKey: type) == nil else {
                throw .invalidDeclaration(field: "\(field).observables", reason: "two objects of type \(type)", view: node.path)
            }
        }
        for (key, value) in modifiers.environment {
            provided.environment[key] = try checkedEnvironmentValue(key, value, field: "\(field).environment.\(key)", view: node.path)
        }
        return provided
    }

    /// A key path to an object, relative to `node` unless it is absolute or starts at an object
    /// id, checked against the slot it goes in (rule 16): `.environmentObject` takes an
    /// `ObservableObject`, `.environment` an `@Observable` object.
    private func providedObject(
        _ path: String, relativeTo node: ViewNode, slot: ObjectWrapper, field: String
    )
        throws(EngineError) -> (String, ObjectSerial)
    {
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
        try requireStyle(of: record.type.name, for: slot, providing: true, field: field, view: node.path)
        return (record.type.name, id)
    }

    /// `view/provide`: adds, replaces or withdraws what a mounted view's body provides to its
    /// content, its descendants (rule 7).
    /// A withdrawn name is a type in either object slot or a value key.
    func provideOperation(
        _ path: String, objects objectPaths: [String], observables observablePaths: [String], environment: JSONObject,
        withdraw: [String]
    ) throws(EngineError) {
        let canonical = try ViewPath.split(path).view
        guard let node = views[canonical] else { throw noView(at: canonical, named: path, "no view is mounted there") }
        var provided = node.provided
        var added = Set<String>()
        for (member, paths, slot) in [
            ("environmentObjects", objectPaths, ObjectWrapper.environmentObject), ("observables", observablePaths, .environment),
        ] {
            for (index, objectPath) in paths.enumerated() {
                let (type, id) = try providedObject(objectPath, relativeTo: node, slot: slot, field: member)
                guard added.insert(type).inserted else {
                    throw .invalidParams(pointer: "/\(member)/\(index)", "a second object of type \(type)")
                }
                if slot == .environment { provided.observables[type] = id } else { provided.objects[type] = id }
            }
        }
        for (key, value) in environment {
            provided.environment[key] = try checkedEnvironmentValue(key, value, field: "environment.\(key)", view: canonical)
        }
        for (index, name) in withdraw.enumerated() {
            guard !added.contains(name), environment[name] == nil else {
                throw .invalidParams(pointer: "/withdraw/\(index)", "\(name) is both provided and withdrawn")
            }
            let withdrawn = [
                provided.objects.removeValue(forKey: name) != nil, provided.observables.removeValue(forKey: name) != nil,
                provided.environment.removeValue(forKey: name) != nil,
            ]
            guard withdrawn.contains(true) else {
                throw .invalidParams(pointer: "/withdraw/\(index)", "\(canonical) provides no \(name) to withdraw")
            }
        }
        try applyModifiers(node, .content, provided)
    }

    /// Makes `node`'s modifiers in `layer` provide exactly `new`, and brings the environment of
    /// the views that see them up to date (its descendants, and for `.placement` the view itself):
    /// views that now see another object or value are evaluated again; views left without a
    /// required object make the change fail with InUse (rules 7, 8, 17).
    func applyModifiers(_ node: ViewNode, _ layer: EnvironmentLayer, _ new: Provided) throws(EngineError) {
        let old = node[layer]
        // The view whose body writes these modifiers: the provider the causes name.
        let writer = layer == .content ? node : node.parent ?? node
        func changed<Value: Equatable>(_ new: [String: Value], _ old: [String: Value]) -> Set<String> {
            Set(new.keys).union(old.keys).filter { new[$0] != old[$0] }
        }
        let types = changed(new.objects, old.objects)
        let observableTypes = changed(new.observables, old.observables)
        let keys = changed(new.environment, old.environment)
        guard !types.isEmpty || !observableTypes.isEmpty || !keys.isEmpty else { return }
        pending.structural = true
        for type in types { if let id = new.objects[type] { hold(id) } }
        for type in observableTypes { if let id = new.observables[type] { hold(id) } }
        node[layer] = new
        journal.record(.provides(node, layer, old))
        var missing: [(type: String, view: String)] = []
        for view in node.subtree.dropFirst(layer == .content ? 1 : 0) {
            for (name, type) in view.declaration.environmentObjects where types.contains(type) {
                guard let found = environmentObject(type, for: view) else {
                    missing.append((type, view.path))
                    continue
                }
                if view.variables[name]?.object != found {
                    setVariable(view, name, .object(found, .environmentObject))
                    queue(view, reason: UpdateReason.variable(name), .provider(writer))
                }
            }
            for (name, wanted) in view.declaration.environmentObservables where observableTypes.contains(wanted.type) {
                let found = environmentObservable(wanted.type, for: view)
                if found == nil && !wanted.optional {
                    missing.append((wanted.type, view.path))
                    continue
                }
                if view.variables[name]?.object != found {
                    setVariable(view, name, found.map { .object($0, .environment) } ?? .noObject)
                    queue(view, reason: UpdateReason.variable(name), .provider(writer))
                }
            }
            try refreshEnvironmentValues(of: view, keys: keys, writer: writer)
        }
        if let first = missing.first {
            throw .inUse(provided: first.type, view: node.path, dependents: missing.filter { $0.type == first.type }.map(\.view))
        }
        for type in types { if let id = old.objects[type] { release(id, reason: .released) } }
        for type in observableTypes { if let id = old.observables[type] { release(id, reason: .released) } }
    }

    /// Brings the environment values `keys` of each of `views` up to date: a view that now sees
    /// another value or provider holds it, and is evaluated again if it read the old one
    /// (`env.<key>`, caused by `writer`, whose modifiers changed).
    func refreshEnvironmentValues(in views: some Sequence<ViewNode>, keys: Set<String>, writer: ViewNode) throws(EngineError) {
        for view in views { try refreshEnvironmentValues(of: view, keys: keys, writer: writer) }
    }

    private func refreshEnvironmentValues(of view: ViewNode, keys: Set<String>, writer: ViewNode) throws(EngineError) {
        for (name, key) in view.declaration.environment where keys.contains(key) {
            let (provider, value) = try environmentValue(key, for: view)
            guard case .environment(let oldProvider, let oldValue)? = view.variables[name],
                oldProvider != provider || oldValue != value
            else { continue }
            setVariable(view, name, .environment(provider: provider, value: value))
            if view.dependencies.contains(.environment(provider: oldProvider, key: key)) {
                queue(view, reason: UpdateReason.environment(key), .provider(writer))
            }
        }
    }

    /// Rule 16: `@StateObject`, `@ObservedObject`, `@EnvironmentObject` and `.environmentObject`
    /// take an `ObservableObject`; `@Environment(T.self)` and `.environment(x)` an `@Observable`
    /// type. The wrong pairing is refused with the wrapper that fits. `providing`: the modifier that
    /// puts it in the environment rather than the wrapper that reads it.
    func requireStyle(
        of typeName: String, for wrapper: ObjectWrapper, providing: Bool = false, field: String, view: String
    )
        throws(EngineError)
    {
        guard let type = registry[typeName] else { throw .unknownType(typeName, known: registry.names) }
        let wanted: ObservationStyle = wrapper == .environment ? .observable : .observableObject
        guard type.model.style != wanted else { return }
        let variable = field.split(separator: ".").last.map(String.init) ?? "x"
        let reason: String
        switch wrapper {
        case .stateObject:
            reason =
                "\(typeName) is @Observable, and @StateObject takes an ObservableObject; own it with @State: "
                + "\"state\": {\"\(variable)\": {\"$new\": {\"type\": \"\(typeName)\"}}}"
        case .observedObject:
            reason =
                "\(typeName) is @Observable, and @ObservedObject takes an ObservableObject; pass it as a plain input "
                + "(\"inputs\": {\"\(variable)\": {\"$parent\": ...}}), as let and @Bindable hold it; a control binds its "
                + "properties (\"\(variable).name\")"
        case .environmentObject where providing:
            reason =
                "\(typeName) is @Observable, and .environmentObject(_:) takes an ObservableObject; "
                + "provide it with .environment(_:): \"observables\": [...]"
        case .environmentObject:
            reason =
                "\(typeName) is @Observable, and @EnvironmentObject takes an ObservableObject; read it with "
                + "@Environment(\(typeName).self): \"environment\": {\"\(variable)\": {\"type\": \"\(typeName)\"}}"
        case .environment where providing:
            reason =
                "\(typeName) is an ObservableObject, and .environment(_:) takes an @Observable object; "
                + "provide it with .environmentObject(_:): \"environmentObjects\": [...]"
        default:
            reason =
                "\(typeName) is an ObservableObject, and @Environment(\(typeName).self) takes an @Observable type; "
                + "read it with @EnvironmentObject: \"environmentObjects\": {\"\(variable)\": \"\(typeName)\"}"
        }
        throw .invalidDeclaration(field: field, reason: reason, view: view)
    }
}
