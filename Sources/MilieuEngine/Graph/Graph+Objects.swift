import MilieuJSON

extension Graph {
    /// Makes an object of `typeName` with `initial` values over the declared defaults, and the
    /// objects its properties make with it (`makes`), which it owns (`madeObjects`). The caller
    /// holds it (`hold`); each creation is reported with its owner and reason (rule 15).
    func createObject(
        _ typeName: String, initial: JSONObject, owner: (view: ViewNode, variable: String), reason: CreationReason,
        field: String, depth: Int = 0
    )
        throws(EngineError) -> ObjectRecord
    {
        guard let type = registry[typeName] else { throw .unknownType(typeName, known: registry.names) }
        guard objects.count < limits.maxObjects else { throw .limitExceeded(limit: "objects", max: limits.maxObjects) }
        var values = type.model.stored.map(\.defaultValue)
        for (name, value) in initial {
            guard let slot = type.slots[name] else {
                throw .invalidDeclaration(field: "\(field).\(name)", reason: "\(typeName) has no property \(name)")
            }
            guard slot < type.storedCount else {
                throw .readOnly("\(typeName).\(name)", .computed, "\(name) is computed from other properties")
            }
            values[slot] = try checked(value, forSlot: slot, of: type, path: "\(typeName).\(name)")
        }
        let record = ObjectRecord(
            serial: makeSerial(), name: makeObjectName(typeName), type: type, values: values, version: version.next,
            owner: owner)
        objects[record.serial] = record
        objectsByName[record.name] = record
        journal.record(.objectCreated(record))
        pending.events.append(.objectCreated(object: record.name, type: typeName, owner: record.owner, reason: reason))
        // Born with it: the undo of its creation takes these back too.
        for (slot, madeType) in type.madeSlots where initial[type.model.stored[slot].name] == nil {
            guard depth < Self.maxMadeDepth else {
                throw .limitExceeded(limit: "madeObjects", max: Self.maxMadeDepth)
            }
            let name = type.model.stored[slot].name
            let made = try createObject(
                madeType, initial: [:], owner: (owner.view, "\(owner.variable).\(name)"), reason: reason, field: "\(field).\(name)",
                depth: depth + 1)
            hold(made.serial)
            record.values[slot] = .string(made.name)
            record.madeObjects.append(made.serial)
        }
        for slot in type.forwardingSlots { forward(from: record.values[slot], to: record, adding: true) }
        for index in type.model.computed.indices {
            let value = record.evaluateComputed(index, budget: budget)  // reads `values`, so before the append begins
            record.values.append(value)
        }
        return record
    }

    /// How deep objects may make objects (`Outer` makes `Inner`, which makes …): past it a type that
    /// makes itself would never end.
    static let maxMadeDepth = 16

    /// Notes that `holder` forwards the changes of the object `value` names (`adding`), or no longer does.
    private func forward(from value: JSON, to holder: ObjectRecord, adding: Bool) {
        guard case .string(let name) = value, let target = objectsByName[name] else { return }
        let old = forwarders[target.serial]
        var list = old ?? []
        if adding { list.append(holder.serial) } else if let index = list.firstIndex(of: holder.serial) { list.remove(at: index) }
        journal.record(.forwarders(of: target.serial, old: old))
        forwarders[target.serial] = list.isEmpty ? nil : list
    }

    /// A `makes` property of `record` now holds another object: the one it made goes (`replaced`).
    private func releaseMade(_ old: JSON, by record: ObjectRecord) {
        guard case .string(let name) = old, let made = objectsByName[name], let index = record.madeObjects.firstIndex(of: made.serial)
        else { return }
        journal.record(.madeObjects(record, old: record.madeObjects))
        record.madeObjects.remove(at: index)
        release(made.serial, reason: .replaced, byOwner: true)
    }

    /// What a write of `slot` of `record`, from `old` to what it holds now, changes of what the
    /// object makes and forwards.
    func referenceRewritten(_ record: ObjectRecord, slot: Int, old: JSON) {
        let property = record.type.model.stored[slot]
        if property.forwards {
            forward(from: old, to: record, adding: false)
            forward(from: record.values[slot], to: record, adding: true)
        }
        if property.makes != nil { releaseMade(old, by: record) }
    }

    func hold(_ id: ObjectSerial) {
        guard let record = objects[id] else { return }
        journal.record(.holders(record, old: record.holders))
        record.holders += 1
    }

    /// Lets go of an object; the last holder destroys it, reported with `reason`. When its owner
    /// lets go (`byOwner`) but others still refer to it, it lives on without an owner (SPEC §12.2);
    /// if they let go within the same transaction, the destruction is the owner's doing and is
    /// reported with the owner and its reason (SPEC §6.5: `replaced`).
    func release(_ id: ObjectSerial, reason: DestructionReason, byOwner: Bool = false) {
        guard let record = objects[id] else { return }
        journal.record(.holders(record, old: record.holders))
        record.holders -= 1
        guard record.holders <= 0 else {
            if byOwner {
                pending.disowned[id] = (record.owner, reason)
                disown(record)
            }
            return
        }
        objects[id] = nil
        objectsByName[record.name] = nil
        journal.record(.objectDestroyed(record))
        let (owner, why) = reason == .released ? pending.disowned[id] ?? (record.owner, reason) : (record.owner, reason)
        pending.events.append(.objectDestroyed(object: record.name, type: record.type.name, owner: owner, reason: why))
        for slot in record.type.forwardingSlots { forward(from: record.values[slot], to: record, adding: false) }
        if let old = forwarders.removeValue(forKey: id) { journal.record(.forwarders(of: id, old: old)) }
        // What it made goes with it, for the reason it went.
        for made in record.madeObjects { release(made, reason: why, byOwner: true) }
    }

    private func disown(_ record: ObjectRecord) {
        journal.record(.ownership(record, owner: record.owner, view: record.ownerView, variable: record.ownerVariable))
        (record.owner, record.ownerView, record.ownerVariable) = (nil, nil, nil)
    }

    /// The current value of a computed property, evaluated afresh (an action may have just written what it reads).
    func currentValue(_ record: ObjectRecord, slot: Int) -> JSON {
        guard record.type.isComputed(slot) else { return record.values[slot] }
        let index = slot - record.type.storedCount
        let previousReads = record.computedReads[index]
        let value = record.evaluateComputed(index, budget: budget)
        record.computedReads[index] = previousReads
        return value
    }

    /// Runs an action of the object at the head of `path` (rule 14).
    func callOperation(_ path: String, _ arguments: [JSON]) throws(EngineError) -> JSON {
        let keyPath = try parsedKeyPath(path)
        guard let last = keyPath.members.last else { throw .unknownPath(path, "name an action, as login.login") }
        let sendsWillChange = keyPath.members.suffix(2) == [ObjectWillChange.member, "send"]
        let action = sendsWillChange ? ObjectWillChange.action : last
        let target = KeyPath(root: keyPath.root, members: Array(keyPath.members.dropLast(sendsWillChange ? 2 : 1)))
        guard case .object(let id) = try resolve(target, display: path) else {
            throw .unknownPath(path, "\(target.description) is not an object")
        }
        guard let record = objects[id] else { throw .unknownPath(path, "the object is gone") }
        if sendsWillChange, record.type.model.style == .observableObject {
            guard arguments.isEmpty else { throw .invalidParams(pointer: "/args", "\(path) takes no arguments") }
            pending.announced.insert(id)
            return .null
        }
        guard let definition = record.type.actions[action] else {
            throw .unknownAction(
                path: path, action: action, type: record.type.name, known: record.type.actionNames,
                note: sendsWillChange
                    ? "\(record.type.name) is @Observable: Observation tracks each property a body reads, so write the property instead"
                    : nil)
        }
        let expected = definition.parameters
        guard arguments.count == expected.count else {
            let signature = expected.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
            throw .invalidParams(
                pointer: "/args", "\(path) takes \(expected.count) argument(s) (\(signature)), not \(arguments.count)")
        }
        var conformed: [JSON] = []
        for (index, (argument, parameter)) in zip(arguments, expected).enumerated() {
            guard let value = parameter.type.conform(argument) else {
                throw .invalidParams(
                    pointer: "/args/\(index)", "\(parameter.name) of \(path) is a \(parameter.type), not \(argument.kindName)")
            }
            conformed.append(value)
        }
        return try definition.perform(ActionContext(graph: self, record: record, arguments: conformed, path: target.description))
    }
}

/// `objectWillChange.send()`, the action every `ObservableObject` has (rule 19): its holders
/// re-render, no value changes.
enum ObjectWillChange {
    static let member = "objectWillChange"
    static let action = "objectWillChange.send"
}

/// What an action sees: its object's properties (secure ones too), its arguments and the clock;
/// or, for a control's action (SPEC §6.5), the view's key paths, which it reads and writes as
/// `graph/get` and `graph/set` do.
public struct ActionContext {
    private unowned let graph: Graph
    private let scope: Scope
    public let arguments: [JSON]
    /// What the request may still spend on evaluations.
    var budget: EvaluationBudget { graph.budget }
    private let path: String

    enum Scope {
        case object(ObjectRecord)
        case view(ViewNode)
    }

    init(graph: Graph, record: ObjectRecord, arguments: [JSON], path: String) {
        self.graph = graph
        self.scope = .object(record)
        self.arguments = arguments
        self.path = path
    }

    /// A control's action in `view`: its key paths are relative to the view.
    init(graph: Graph, view: ViewNode) {
        self.graph = graph
        self.scope = .view(view)
        self.arguments = []
        self.path = view.path
    }

    /// The current time as ISO 8601, from the graph's clock.
    public var now: String { graph.clock() }

    /// A property of the object; in a view, the value at a key path from the view (a secure one too:
    /// an action may use it, never show it).
    public func get(_ name: String) throws(EngineError) -> JSON {
        switch scope {
        case .object(let record):
            guard let slot = record.type.slots[name] else { throw .unknownPath("\(path).\(name)", "no such property") }
            return graph.currentValue(record, slot: slot)
        case .view:
            return try graph.actionRead(absolute(name))
        }
    }

    public func set(_ name: String, _ value: JSON) throws(EngineError) {
        switch scope {
        case .object(let record):
            guard let slot = record.type.slots[name] else { throw .unknownPath("\(path).\(name)", "no such property") }
            try graph.writeProperty(record, slot: slot, value, path: "\(path).\(name)")
        case .view:
            try graph.setOperation(absolute(name), value, ifVersion: nil)
        }
    }

    /// An action of an object the view holds, as `graph/call` runs it, or a closure its parent
    /// passed it, which runs in the parent.
    func call(_ name: String, _ arguments: [JSON]) throws(EngineError) -> JSON {
        if case .view(let node) = scope, case .closure(let closure)? = node.variables[name] {
            try graph.run(closure, arguments, calledBy: "\(path).\(name)")
            return .null
        }
        return try graph.callOperation(absolute(name), arguments)
    }

    /// A control's key path from its view (`vm.email`), or one from an object (`Counter#5.count`,
    /// as `path(_:fromLocal:)` makes it), whose first member holds `#` as a key path's does (SPEC §4.2).
    private func absolute(_ name: String) -> String {
        name.prefix { $0 != "." }.contains("#") ? name : "\(path).\(name)"
    }

    /// `todo.done` in a control's step, where the local `todo` holds `value`: the same path from
    /// the object it holds (`Todo#4.done`). A local holding anything else is its view's constant,
    /// as an input is: `ReadOnly`.
    func path(_ written: String, fromLocal value: JSON) throws(EngineError) -> String {
        let head = written.prefix { $0 != "." }
        guard case .string(let id) = value, graph.objectsByName[id] != nil else {
            throw .readOnly(
                "\(path) \(written)", .input,
                "\(head) is a local holding \(value.kindName), not an object; write the value it comes from")
        }
        return id + written.dropFirst(head.count)
    }

    /// `vm = Model(...)`: the view's `@State` named `name` holds a new object.
    func make(_ name: String, type: String, arguments: JSONObject) throws(EngineError) {
        guard case .view(let node) = scope else { throw .unknownPath("\(path).\(name)", "only a view's @State holds a new object") }
        try graph.replaceStateObject(node, variable: name, type: type, arguments: arguments)
    }
}
