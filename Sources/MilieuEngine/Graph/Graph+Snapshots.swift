import MilieuJSON
import MilieuProtocol

/// What a watch on a key path or view path is about, resolved when the watch is made.
public enum WatchTarget: Sendable, Equatable {
    /// Every property of an object.
    case object(String)
    case property(object: String, property: String)
    case state(view: String, variable: String)
    /// A view and all its descendants.
    case view(String)
}

extension Graph {
    /// `graph/get`: a property value, an object snapshot, a @State, or a view snapshot.
    /// Secure values are refused (rule 13).
    public func get(_ path: String) throws(EngineError) -> GraphReading {
        let keyPath = try parsedKeyPath(path)
        if case .view(let viewPath) = keyPath.root, keyPath.members.isEmpty {
            guard let node = views[viewPath] else { throw .unknownPath(path, "no view is mounted at \(viewPath)") }
            return .view(snapshot(of: node, children: false))
        }
        switch try resolve(keyPath, display: path) {
        case .value(let value): return .value(value)
        case .object(let id):
            if let (holder, slot) = endingReference(keyPath, display: path) { return .value(holder.values[slot]) }
            guard let record = objects[id] else { throw .unknownPath(path, "the object is gone") }
            return .object(snapshot(of: record))
        case .secure: throw .forbidden(path: path, .secure, "a secure value never leaves the daemon")
        }
    }

    /// `view/tree`: the tree from `path` (default `/App`) down.
    public func tree(_ path: String? = nil) throws(EngineError) -> ViewSnapshot {
        let viewPath = try ViewPath.split(path ?? KeyPath.appPath).view
        guard let node = views[viewPath] else { throw .unknownPath(path ?? viewPath, "no view is mounted there") }
        return snapshot(of: node, children: true)
    }

    /// `schema/types`: every registered type with its properties and actions.
    public func typeDescriptions() -> [TypeDescription] {
        registry.names.sorted().compactMap { registry[$0] }.map { registered in
            let model = registered.model
            var properties = model.stored.map { property in
                PropertyDescription(
                    name: property.name, type: property.type.description, computed: false, secure: property.secure,
                    published: model.style == .observableObject ? property.published : nil,
                    defaultValue: property.secure ? nil : property.defaultValue, constraints: property.validation)
            }
            properties += model.computed.map { computed in
                PropertyDescription(
                    name: computed.name, type: computed.type.description, computed: true, secure: false, published: nil,
                    defaultValue: nil, constraints: Constraints())
            }
            var actions = model.actions.map { action in
                ActionDescription(name: action.name, params: action.parameters.map { "\($0.name): \($0.type)" })
            }
            if model.style == .observableObject { actions.append(ActionDescription(name: ObjectWillChange.action, params: [])) }
            return TypeDescription(
                name: model.name, style: model.style.rawValue, builtIn: BuiltinTypes.all.contains { $0.name == model.name },
                properties: properties, actions: actions)
        }
    }

    /// `schema/types`: every environment key, built-in and declared, by name, with its default (rule 21).
    public func environmentKeyDescriptions() -> [EnvironmentKeyDescription] {
        environmentKeys.all.map { key in
            EnvironmentKeyDescription(
                name: key.name, type: key.type.description, defaultValue: key.defaultValue,
                builtIn: EnvironmentKeys.builtIn.contains { $0.name == key.name }, constraints: key.validation)
        }
    }

    /// What `path` watches: a binding watches its source; an object-valued variable its object.
    /// Nil for a path into a JSON value, which is not something a watch can name.
    public func watchTarget(_ path: String) throws(EngineError) -> WatchTarget? {
        let keyPath = try parsedKeyPath(path)
        if case .view(let viewPath) = keyPath.root, keyPath.members.isEmpty {
            guard views[viewPath] != nil else { throw .unknownPath(path, "no view is mounted at \(viewPath)") }
            return .view(viewPath)
        }
        if case .object(let id) = try resolve(keyPath, display: path) {
            if let (holder, slot) = endingReference(keyPath, display: path) {
                return .property(object: holder.name, property: holder.type.propertyName(slot))
            }
            if let record = objects[id] { return .object(record.name) }
        }
        let (location, members) = try writeTarget(keyPath, display: path)
        guard members.isEmpty else { return nil }
        switch location {
        case .property(let id, let slot):
            guard let record = objects[id] else { throw .unknownPath(path, "the object is gone") }
            return .property(object: record.name, property: record.type.propertyName(slot))
        case .state(let serial, let index):
            guard let node = viewsBySerial[serial] else { throw .unknownPath(path, "the view is gone") }
            return .state(view: node.path, variable: node.variables[at: index].name)
        }
    }

    /// The object and reference property `keyPath` ends at, if it ends at one: a reference
    /// property is a property, whose value is an object id (SPEC §9.4, §11.1); only a member
    /// after it continues in the object it refers to.
    private func endingReference(_ keyPath: KeyPath, display: String) -> (ObjectRecord, Int)? {
        guard let (location, members) = try? writeTarget(keyPath, display: display), members.isEmpty,
            case .property(let id, let slot) = location, let record = objects[id], record.type.referencedType(slot) != nil
        else { return nil }
        return (record, slot)
    }

    /// The view paths mounted now, for completion and tests.
    public var viewPaths: [String] { views.paths }

    /// How many views are mounted, `/App` included.
    public var viewCount: Int { views.count }

    /// How many objects are alive.
    public var objectCount: Int { objects.count }

    func snapshot(of record: ObjectRecord) -> ObjectSnapshot {
        var values = JSONObject()
        var redacted: [String] = []
        for slot in 0..<record.values.count {
            let name = record.type.propertyName(slot)
            if record.type.isSecure(slot) { redacted.append(name) } else { values[name] = record.values[slot] }
        }
        return ObjectSnapshot(
            object: record.name, type: record.type.name, version: record.version.rawValue, owner: record.owner, values: values,
            redacted: redacted)
    }

    func snapshot(of node: ViewNode, children: Bool) -> ViewSnapshot {
        var inputs = JSONObject()
        var state = JSONObject()
        var bindings: [(name: String, source: String, value: JSON?)] = []
        var held: [(name: String, held: HeldObject?)] = []
        var environment = JSONObject()
        for (name, variable) in node.variables {
            switch variable {
            case .input(let value): inputs[name] = value
            case .inputObject(let id): held.append((name, heldObject(id, wrapper: .input)))
            case .state(let value, _): state[name] = value
            case .binding(let location):
                guard case .value(let value) = boundValue(at: location) else {
                    bindings.append((name, describe(location), nil))
                    continue
                }
                bindings.append((name, describe(location), value))
            case .object(let id, let wrapper): held.append((name, heldObject(id, wrapper: wrapper)))
            case .noObject: held.append((name, nil))
            case .environment(_, let value): environment[name] = value
            }
        }
        let provided = node.provided
        func names(_ byType: [String: ObjectSerial]) -> JSONObject {
            JSONObject(byType.sorted { $0.key < $1.key }.map { (key: $0.key, value: .string(objects[$0.value]?.name ?? "")) })
        }
        let provides = Provides(
            environmentObjects: names(provided.objects), observables: names(provided.observables),
            environment: JSONObject(provided.environment.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }))
        return ViewSnapshot(
            path: node.path, name: node.declaration.name, id: node.explicitID, inputs: inputs, state: state, bindings: bindings,
            objects: held, environment: environment, provides: provides, body: node.body, retained: node.retained,
            version: node.version.rawValue, children: children ? node.children.map { snapshot(of: $0, children: true) } : nil)
    }

    private func heldObject(_ id: ObjectSerial, wrapper: ObjectWrapper) -> HeldObject? {
        guard let record = objects[id] else { return nil }
        return HeldObject(object: record.name, type: record.type.name, wrapper: wrapper.rawValue)
    }

    /// A location as a key path a client can use.
    func describe(_ location: Location) -> String {
        switch location {
        case .property(let id, let slot):
            guard let record = objects[id] else { return "" }
            return "\(record.name).\(record.type.propertyName(slot))"
        case .state(let serial, let index):
            guard let node = viewsBySerial[serial] else { return "" }
            return "\(node.path).\(node.variables[at: index].name)"
        }
    }
}
