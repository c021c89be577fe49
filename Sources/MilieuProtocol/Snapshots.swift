import MilieuJSON

/// What `graph/get` reads (SPEC §9.4): a value, an object's snapshot, or a view's.
/// The engine answers with one; the server sends its `wire` form. A client cannot tell the
/// three apart on the wire by shape alone, so `GraphGetRequest` hands it the JSON.
public enum GraphReading: Sendable, Equatable {
    case value(JSON)
    case object(ObjectSnapshot)
    case view(ViewSnapshot)

    public var wire: JSON {
        switch self {
        case .value(let value): value
        case .object(let snapshot): snapshot.wire
        case .view(let node): node.wire
        }
    }
}

/// An object as `graph/get` shows it: secure values left out and named in `redacted`.
public struct ObjectSnapshot: Sendable, Equatable {
    public var object: String
    public var type: String
    public var version: Int
    /// The variable that owns it (`/App.login`), or nil once its owner went.
    public var owner: String?
    public var values: JSONObject
    public var redacted: [String]

    public init(object: String, type: String, version: Int, owner: String?, values: JSONObject, redacted: [String]) {
        self.object = object
        self.type = type
        self.version = version
        self.owner = owner
        self.values = values
        self.redacted = redacted
    }

    public var wire: JSON {
        [
            "object": .string(object), "type": .string(type), "version": .int(version), "owner": owner.map(JSON.string) ?? .null,
            "values": .object(values), "redacted": .array(redacted.map(JSON.string)),
        ]
    }

    public init?(wire: JSON) {
        guard let object = wire["object"]?.stringValue, let type = wire["type"]?.stringValue, let version = wire["version"]?.intValue,
            let values = wire["values"]?.objectValue, let redacted = strings(wire["redacted"])
        else { return nil }
        self.init(object: object, type: type, version: version, owner: wire["owner"]?.stringValue, values: values, redacted: redacted)
    }
}

/// A mounted view as `view/tree` and `graph/get` show it (SPEC §9.11).
public struct ViewSnapshot: Sendable, Equatable {
    public var path: String
    public var name: String
    /// The evaluated `.id(...)`, when the view has one.
    public var id: JSON?
    public var inputs: JSONObject
    public var state: JSONObject
    /// Each binding's source and its value (nil: secure, sent as `redacted`); a nil source is a
    /// `.constant(...)` binding, sent as `constant: true`.
    public var bindings: [(name: String, source: String?, value: JSON?)]
    /// Each object-holding variable's object; nil for an optional one nobody provides.
    public var objects: [(name: String, held: HeldObject?)]
    public var environment: JSONObject
    public var provides: Provides
    public var body: [String]
    public var retained: Bool
    public var version: Int
    /// How many times its body has been evaluated since its identity appeared, its mount included.
    public var evaluations: Int
    /// The version of the commit that last evaluated its body.
    public var lastEvaluated: Int
    /// The subtree, in mount order; nil in a `graph/get` snapshot, in a page of `view/tree`,
    /// and at the depth limit of `view/tree`.
    public var children: [ViewSnapshot]?
    /// How many children the view has, when `view/tree`'s depth limit leaves them out.
    public var childCount: Int?

    public init(
        path: String, name: String, id: JSON?, inputs: JSONObject, state: JSONObject,
        bindings: [(name: String, source: String?, value: JSON?)], objects: [(name: String, held: HeldObject?)],
        environment: JSONObject, provides: Provides, body: [String], retained: Bool, version: Int, evaluations: Int,
        lastEvaluated: Int, children: [ViewSnapshot]?, childCount: Int? = nil
    ) {
        self.path = path
        self.name = name
        self.id = id
        self.inputs = inputs
        self.state = state
        self.bindings = bindings
        self.objects = objects
        self.environment = environment
        self.provides = provides
        self.body = body
        self.retained = retained
        self.version = version
        self.evaluations = evaluations
        self.lastEvaluated = lastEvaluated
        self.children = children
        self.childCount = childCount
    }

    public var wire: JSON {
        var bindings = JSONObject()
        for binding in self.bindings {
            var entry: JSONObject = binding.source.map { ["source": .string($0)] } ?? ["constant": true]
            if let value = binding.value { entry["value"] = value } else { entry["redacted"] = true }
            bindings[binding.name] = .object(entry)
        }
        var held = JSONObject()
        for object in objects { held[object.name] = object.held?.wire ?? .null }
        var node: JSONObject = [
            "path": .string(path), "name": .string(name), "inputs": .object(inputs), "state": .object(state),
            "bindings": .object(bindings), "objects": .object(held), "environment": .object(environment), "provides": provides.wire,
            "body": .array(body.map(JSON.string)), "retained": .bool(retained), "version": .int(version),
            "evaluations": .int(evaluations), "lastEvaluated": .int(lastEvaluated),
        ]
        if let id { node["id"] = id }
        if let children { node["children"] = .array(children.map(\.wire)) }
        if let childCount { node["childCount"] = .int(childCount) }
        return .object(node)
    }

    public init?(wire: JSON) {
        guard let path = wire["path"]?.stringValue, let name = wire["name"]?.stringValue, let inputs = wire["inputs"]?.objectValue,
            let state = wire["state"]?.objectValue, let bindingsWire = wire["bindings"]?.objectValue,
            let objectsWire = wire["objects"]?.objectValue, let environment = wire["environment"]?.objectValue,
            let provides = wire["provides"].flatMap(Provides.init(wire:)), let body = strings(wire["body"]),
            let retained = wire["retained"]?.boolValue, let version = wire["version"]?.intValue,
            let evaluations = wire["evaluations"]?.intValue, let lastEvaluated = wire["lastEvaluated"]?.intValue
        else { return nil }
        var bindings: [(name: String, source: String?, value: JSON?)] = []
        for (name, entry) in bindingsWire {
            let source = entry["source"]?.stringValue
            guard source != nil || entry["constant"] == true else { return nil }
            bindings.append((name, source, entry["redacted"] == true ? nil : entry["value"] ?? .null))
        }
        var objects: [(name: String, held: HeldObject?)] = []
        for (name, entry) in objectsWire {
            if entry.isNull {
                objects.append((name, nil))
            } else {
                guard let held = HeldObject(wire: entry) else { return nil }
                objects.append((name, held))
            }
        }
        var children: [ViewSnapshot]?
        if let items = wire["children"]?.arrayValue {
            children = []
            for item in items {
                guard let child = ViewSnapshot(wire: item) else { return nil }
                children?.append(child)
            }
        }
        self.init(
            path: path, name: name, id: wire["id"], inputs: inputs, state: state, bindings: bindings, objects: objects,
            environment: environment, provides: provides, body: body, retained: retained, version: version,
            evaluations: evaluations, lastEvaluated: lastEvaluated, children: children, childCount: wire["childCount"]?.intValue)
    }

    public static func == (a: ViewSnapshot, b: ViewSnapshot) -> Bool { a.wire == b.wire }
}

/// A page of `view/tree` (SPEC §9.11): views in pre-order, each without its children but
/// with its parent's path, and where the next page starts.
public struct ViewTreePage: Sendable, Equatable {
    /// A view of the page and its parent's path: nil for the root of the walk.
    public struct Node: Sendable, Equatable {
        public var parent: String?
        public var view: ViewSnapshot

        public init(parent: String?, view: ViewSnapshot) {
            self.parent = parent
            self.view = view
        }

        public var wire: JSON {
            guard case .object(var node) = view.wire else { return view.wire }
            node["parent"] = parent.map(JSON.string) ?? .null
            return .object(node)
        }

        public init?(wire: JSON) {
            guard let view = ViewSnapshot(wire: wire), let parent = wire["parent"], parent.isNull || parent.stringValue != nil
            else { return nil }
            self.init(parent: parent.stringValue, view: view)
        }
    }

    public var nodes: [Node]
    /// The cursor of the next page; nil on the last.
    public var nextCursor: String?

    public init(nodes: [Node], nextCursor: String?) {
        self.nodes = nodes
        self.nextCursor = nextCursor
    }

    /// The tree the nodes of a walk's pages make, in order: each view under its parent, the
    /// root the one without a parent. Nil when there is no root.
    public static func tree(of nodes: [Node]) -> ViewSnapshot? {
        var children = [[Int]](repeating: [], count: nodes.count)
        var byPath: [String: Int] = [:]
        var root: Int?
        for (index, node) in nodes.enumerated() {
            byPath[node.view.path] = index
            if let parent = node.parent {
                if let parentIndex = byPath[parent] { children[parentIndex].append(index) }
            } else if root == nil {
                root = index
            }
        }
        func assembled(_ index: Int) -> ViewSnapshot {
            var view = nodes[index].view
            if view.childCount == nil { view.children = children[index].map(assembled) }
            return view
        }
        return root.map(assembled)
    }
}

/// An object a view variable holds, and the wrapper it holds it with (`stateObject`, `input`, …).
public struct HeldObject: Sendable, Equatable {
    public var object: String
    public var type: String
    public var wrapper: String

    public init(object: String, type: String, wrapper: String) {
        self.object = object
        self.type = type
        self.wrapper = wrapper
    }

    public var wire: JSON { ["object": .string(object), "type": .string(type), "wrapper": .string(wrapper)] }

    public init?(wire: JSON) {
        guard let object = wire["object"]?.stringValue, let type = wire["type"]?.stringValue,
            let wrapper = wire["wrapper"]?.stringValue
        else { return nil }
        self.init(object: object, type: type, wrapper: wrapper)
    }
}

/// What a view provides to its subtree: objects by type in its two slots, and environment values.
public struct Provides: Sendable, Equatable {
    /// `.environmentObject(_:)`: type → object id, sorted by type.
    public var environmentObjects: JSONObject
    /// `.environment(_:)` of an `@Observable` object: type → object id, sorted by type.
    public var observables: JSONObject
    /// `.environment(\.key, value)`: key → value, sorted by key.
    public var environment: JSONObject

    public init(environmentObjects: JSONObject, observables: JSONObject, environment: JSONObject) {
        self.environmentObjects = environmentObjects
        self.observables = observables
        self.environment = environment
    }

    public var wire: JSON {
        ["environmentObjects": .object(environmentObjects), "observables": .object(observables), "environment": .object(environment)]
    }

    public init?(wire: JSON) {
        guard let objects = wire["environmentObjects"]?.objectValue, let observables = wire["observables"]?.objectValue,
            let environment = wire["environment"]?.objectValue
        else { return nil }
        self.init(environmentObjects: objects, observables: observables, environment: environment)
    }
}
