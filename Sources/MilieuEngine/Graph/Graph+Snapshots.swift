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
            guard let node = views[viewPath] else { throw noView(at: viewPath, named: path, "no view is mounted at \(viewPath)") }
            return .view(snapshot(of: node))
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

    /// `view/tree`: the tree from `path` (default `/App`) down, `depth` levels below it at most.
    public func tree(_ path: String? = nil, depth: Int? = nil) throws(EngineError) -> ViewSnapshot {
        snapshot(of: try treeRoot(path), below: depth)
    }

    /// `view/tree` a page at a time: at most `limit` views in pre-order from `path` (default
    /// `/App`), `depth` levels below it at most, or from where `cursor` — the previous page's
    /// `nextCursor` — says. The cursor names the view to resume at by serial, so a page costs
    /// what its views do, wherever it starts.
    public func treePage(_ path: String?, depth: Int?, limit: Int, cursor: String?) throws(EngineError) -> ViewTreePage {
        let walk: TreeWalk
        if let cursor {
            walk = try resumedWalk(cursor)
            if let path, try treeRoot(path) !== walk.root {
                throw .invalidParams(pointer: "/path", "this cursor continues the tree of another path; leave path out")
            }
            if let depth, depth != walk.depth {
                throw .invalidParams(pointer: "/depth", "this cursor continues a walk of another depth; leave depth out")
            }
        } else {
            let root = try treeRoot(path)
            walk = TreeWalk(root: root, depth: depth, next: (root, 0))
        }
        var nodes: [ViewTreePage.Node] = []
        nodes.reserveCapacity(min(limit, 1024))
        var next: (node: ViewNode, level: Int)? = walk.next
        while let (node, level) = next, nodes.count < limit {
            let view = snapshot(of: node, childCount: walk.depth == level ? childCount(node) : nil)
            nodes.append(ViewTreePage.Node(parent: node === walk.root ? nil : node.parent?.path, view: view))
            next = walk.after(node, level: level)
        }
        let nextCursor = next.map { TreeCursor(root: walk.root.serial, next: $0.node.serial, depth: walk.depth).text }
        return ViewTreePage(nodes: nodes, nextCursor: nextCursor)
    }

    private func treeRoot(_ path: String?) throws(EngineError) -> ViewNode {
        let viewPath = try ViewPath.split(path ?? KeyPath.appPath).view
        guard let node = views[viewPath] else { throw noView(at: viewPath, named: path ?? viewPath, "no view is mounted there") }
        return node
    }

    /// The walk a cursor continues; refused when its views are gone or were never one walk's.
    private func resumedWalk(_ text: String) throws(EngineError) -> TreeWalk {
        guard let cursor = TreeCursor(text: text) else {
            throw .invalidParams(pointer: "/cursor", "not a cursor view/tree gave; pass nextCursor as it came")
        }
        guard let root = viewsBySerial[cursor.root], let next = viewsBySerial[cursor.next] else {
            throw .invalidParams(
                pointer: "/cursor",
                "the view this cursor resumes at, or the root of its walk, is no longer mounted; ask again without a cursor")
        }
        let level = next.depth - root.depth
        var ancestor: ViewNode? = next
        for _ in 0..<max(level, 0) { ancestor = ancestor?.parent }
        guard level >= 0, level <= cursor.depth ?? level, ancestor === root else {
            throw .invalidParams(pointer: "/cursor", "not a cursor view/tree gave; pass nextCursor as it came")
        }
        return TreeWalk(root: root, depth: cursor.depth, next: (next, level))
    }

    /// How many children a view has; for a view whose children a depth limit leaves out. Counted
    /// when asked rather than kept: a count on every view would cost every view memory for what
    /// only depth-limited reads use.
    private func childCount(_ node: ViewNode) -> Int {
        var count = 0
        for _ in node.children { count += 1 }
        return count
    }

    /// `schema/types`: every registered type with its properties and actions.
    public func typeDescriptions() -> [TypeDescription] {
        registry.names.sorted().compactMap { registry[$0] }.map { registered in
            let model = registered.model
            var properties = model.stored.map { property in
                PropertyDescription(
                    name: property.name, type: property.type.description, computed: false, secure: property.secure,
                    published: model.style == .observableObject ? property.published : nil,
                    defaultValue: property.secure || property.makes != nil ? nil : property.defaultValue, constraints: property.validation,
                    makes: property.makes, forwards: property.forwards)
            }
            properties += model.computed.map { computed in
                PropertyDescription(
                    name: computed.name, type: computed.type.description, computed: true, secure: false, published: nil,
                    defaultValue: nil, constraints: Constraints())
            }
            var actions = model.actions.map { action in
                ActionDescription(
                    name: action.name, params: action.parameters.map { "\($0.name): \($0.type)" }, secureParams: action.secureParameters)
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
            guard views[viewPath] != nil else { throw noView(at: viewPath, named: path, "no view is mounted at \(viewPath)") }
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

    /// A view target of `watch` (SPEC §11.1): the view path canonical, and whether a view is
    /// mounted there now; nil when `path` is a key path, not a view path. A view target need not
    /// be mounted: it follows the path, so it covers a view mounted there later.
    public func viewWatchTarget(_ path: String) throws(EngineError) -> (path: String, isMounted: Bool)? {
        try KeyPath.checkLimits(bytes: path.utf8.count, members: 0)
        guard let keyPath = try? parsedKeyPath(path), case .view(let viewPath) = keyPath.root, keyPath.members.isEmpty,
            viewPath == root.path || viewPath.hasPrefix(root.path + "/")
        else { return nil }
        return (viewPath, views[viewPath] != nil)
    }

    /// The object and reference property `keyPath` ends at, if it ends at one: a reference
    /// property is a property, whose value is an object id (SPEC §9.4, §11.1); only a member
    /// after it continues in the object it refers to.
    func endingReference(_ keyPath: KeyPath, display: String) -> (ObjectRecord, Int)? {
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

    /// A view and its subtree, `levels` below it at most; a view whose children that leaves out
    /// says how many it has.
    func snapshot(of node: ViewNode, below levels: Int?) -> ViewSnapshot {
        guard levels != 0 else { return snapshot(of: node, childCount: childCount(node)) }
        var view = snapshot(of: node)
        view.children = node.children.map { snapshot(of: $0, below: levels.map { $0 - 1 }) }
        return view
    }

    /// How a snapshot shows a closure input, which has no value: `<closure>`, with its parameters.
    static func closureText(_ closure: ViewClosure) -> String {
        closure.parameters.isEmpty ? "<closure>" : "<closure (\(closure.parameters.joined(separator: ", ")))>"
    }

    /// A view without its children; `childCount` where a depth limit leaves them out.
    func snapshot(of node: ViewNode, childCount: Int? = nil) -> ViewSnapshot {
        var inputs = JSONObject()
        var state = JSONObject()
        var bindings: [(name: String, source: String?, value: JSON?)] = []
        var held: [(name: String, held: HeldObject?)] = []
        var environment = JSONObject()
        for (name, variable) in node.variables {
            switch variable {
            case .input(let value): inputs[name] = value
            case .inputObject(let id): held.append((name, heldObject(id, wrapper: .input)))
            case .state(let value, _): state[name] = value
            case .binding(let target):
                guard case .value(let value) = boundValue(of: target) else {
                    bindings.append((name, describe(target), nil))
                    continue
                }
                bindings.append((name, describe(target), value))
            case .object(let id, let wrapper): held.append((name, heldObject(id, wrapper: wrapper)))
            case .noObject: held.append((name, nil))
            case .environment(_, let value): environment[name] = value
            case .closure(let closure): inputs[name] = .string(Self.closureText(closure.closure))
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
            objects: held, environment: environment, provides: provides, body: Array(node.body), retained: node.retained,
            version: node.version.rawValue, evaluations: Int(node.evaluations), lastEvaluated: lastEvaluated(node).rawValue,
            children: nil, childCount: childCount)
    }

    private func heldObject(_ id: ObjectSerial, wrapper: ObjectWrapper) -> HeldObject? {
        guard let record = objects[id] else { return nil }
        return HeldObject(object: record.name, type: record.type.name, wrapper: wrapper.rawValue)
    }

    /// What a binding reaches, as a key path a client can use (`/App/D.user.name`); nil for a constant.
    func describe(_ target: BindingTarget) -> String? {
        switch target {
        case .place(let location, let projection): ([describe(location)] + projection).joined(separator: ".")
        case .constant: nil
        }
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

/// A pre-order walk of a subtree, `depth` levels below its root at most, and where it stands.
struct TreeWalk {
    let root: ViewNode
    let depth: Int?
    /// The view the walk is at, and its level below `root`.
    let next: (node: ViewNode, level: Int)?

    /// The view after `node` (at `level`) in pre-order within the walk, nil at its end.
    func after(_ node: ViewNode, level: Int) -> (node: ViewNode, level: Int)? {
        if level < depth ?? Int.max, let child = node.firstChild { return (child, level + 1) }
        var current = node
        var currentLevel = level
        while current !== root {
            if let sibling = current.nextSibling { return (sibling, currentLevel) }
            guard let parent = current.parent else { return nil }
            current = parent
            currentLevel -= 1
        }
        return nil
    }
}

/// `view/tree`'s `nextCursor`: the walk's root, the view the next page starts at, and the depth
/// limit — serials, which are never reused, so a cursor can only ever name the views it named.
/// Opaque to clients: `t<root>.<next>.<depth or *>`.
struct TreeCursor {
    let root: ViewSerial
    let next: ViewSerial
    let depth: Int?

    var text: String { "t\(root.rawValue).\(next.rawValue).\(depth.map(String.init) ?? "*")" }

    init(root: ViewSerial, next: ViewSerial, depth: Int?) {
        self.root = root
        self.next = next
        self.depth = depth
    }

    init?(text: String) {
        guard text.first == "t" else { return nil }
        let parts = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let root = Int(parts[0]), let next = Int(parts[1]) else { return nil }
        let depth = parts[2] == "*" ? nil : Int(parts[2])
        guard parts[2] == "*" || (depth ?? -1) >= 0 else { return nil }
        self.init(root: ViewSerial(rawValue: root), next: ViewSerial(rawValue: next), depth: depth)
    }
}
