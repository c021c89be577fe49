import MilieuJSON

extension Graph {
    /// After a transaction's operations: finds what really changed (rule 9), brings computed
    /// properties up to date (rule 12), and evaluates each invalidated view once, parents
    /// first (rules 10 and 11). Any error here fails the whole transaction.
    func propagate() throws(EngineError) {
        let next = version.next
        var written = WrittenSlots()
        for location in pending.touchOrder {
            guard let original = pending.originals[location] else { continue }
            switch location {
            case .property(let id, let slot):
                // Touched only by a write that changed it or announces every write (rule 9).
                guard objects[id] != nil else { continue }
                written.add(id, slot: slot, changed: original.changed, old: original.value)
            case .state(let serial, let index):
                guard original.changed, let node = viewsBySerial[serial], case .state(let value, _) = node.variables[at: index].value
                else { continue }
                pending.propertyChanges.append(.state(view: node.path, variable: node.variables[at: index].name, value: value))
                pending.replaced.append(original.value)
                setVersion(node, next)
                invalidate(.location(location))
            }
        }
        for id in pending.announced.sorted() { written.add(id) }
        for (id, writes) in written.objects {
            guard let record = objects[id] else { continue }
            var announced = !pending.announced.isEmpty && pending.announced.contains(id)
            for (slot, changed, old) in writes {
                let announces = record.type.announces(slot)
                announced = announced || announces
                reportPropertyChange(record, slot: slot, replacing: old, invalidating: changed && announces)
            }
            // Most types compute nothing: no set of changed slots to build for them.
            if !record.type.model.computed.isEmpty { updateComputed(record, changed: Set(writes.lazy.filter(\.changed).map(\.slot))) }
            setVersion(record, next)
            // `objectWillChange`: every holder of an `ObservableObject` re-renders (rules 10, 19).
            if announced { invalidate(.object(id)) }
        }
        while let (node, reasons) = pending.queue.next() {
            guard node.isMounted else { continue }
            try evaluateBody(node, reasons: reasons)
        }
    }

    /// Reports a property's new value, and the one it replaced (`old`), to watches; `invalidating`
    /// also re-renders the views that read it.
    private func reportPropertyChange(_ record: ObjectRecord, slot: Int, replacing old: JSON, invalidating: Bool = true) {
        let secure = record.type.isSecure(slot)
        pending.propertyChanges.append(
            .property(
                object: record.name, type: record.type.name, property: record.type.propertyName(slot),
                value: secure ? nil : record.values[slot]))
        pending.replaced.append(secure ? nil : old)
        if invalidating { invalidate(.location(.property(object: record.serial, slot: slot))) }
    }

    /// Re-evaluates the computed properties that read a changed slot; only a new value is a change.
    private func updateComputed(_ record: ObjectRecord, changed: Set<Int>) {
        let base = record.type.storedCount
        for index in record.type.model.computed.indices where record.computedReads[index].contains(where: changed.contains) {
            let oldReads = record.computedReads[index]
            let old = record.values[base + index]
            let new = record.evaluateComputed(index, budget: budget)
            journal.record(.computed(record, index: index, reads: oldReads, old: old))
            guard new != old else { continue }
            record.values[base + index] = new
            reportPropertyChange(record, slot: base + index, replacing: old)
        }
    }

    /// Evaluates `node`'s body, records what it read, reports it, and re-creates its children's
    /// declarations from the values it now passes them.
    func evaluateBody(_ node: ViewNode, reasons: Reasons) throws(EngineError) {
        recorder.start(for: node)
        for (name, variable) in node.variables {
            switch variable {
            case .object(let id, let wrapper) where wrapper.subscribes:
                if objects[id]?.type.model.style == .observableObject { recorder.note(.object(id), UpdateReason.variable(name)) }
            default: break
            }
        }
        var body: [String] = []
        body.reserveCapacity(node.declaration.body.count)
        for template in node.declaration.body { body.append(try render(template, in: node, recorder: recorder)) }
        var children: [(ViewNode, EvaluatedDeclaration)] = []
        for child in node.children {
            children.append((child, try evaluate(child.declaration, literals: child.literals, parent: node, recorder: recorder)))
        }
        setDependencies(node, recorder.take())
        setBody(node, body)
        if let arrival = node.arrival {
            node.arrival = nil
            pending.events.append(.viewMounted(view: node.path, reason: arrival, body: body))
            // SPEC §10.2: a view that appeared through an id change is also updated, for @identity.
            if arrival == .identity {
                pending.events.append(.viewUpdated(view: node.path, reasons: [UpdateReason.identity], body: body))
            }
        } else {
            pending.events.append(.viewUpdated(view: node.path, reasons: Self.ordered(reasons.all), body: body))
        }
        if children.contains(where: { child, evaluated in !child.hasExplicitID(evaluated.id) }) { try replaceIdentities(children) }
        for (child, evaluated) in children where child.isMounted {
            try reconcile(child, with: evaluated)
        }
    }

    /// SPEC §6.4: `@self`, `@identity`, then `_var`, `var.prop` and `env.key` reasons, each group
    /// sorted by code point.
    static func ordered(_ reasons: [String]) -> [String] {
        guard reasons.count > 1 else { return reasons }
        return reasons.sorted { a, b in
            let (ga, gb) = (UpdateReason.Group(a), UpdateReason.Group(b))
            return ga != gb ? ga < gb : a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
        }
    }

    private func render(_ template: Template, in node: ViewNode, recorder: ReadRecorder) throws(EngineError) -> String {
        var line = ""
        for part in template.parts {
            switch part {
            case .text(let text): line += text
            case .read(let path):
                switch try read(path, in: node, recorder: recorder, display: "\(node.path).\(path.text)") {
                case .value(.string(let text)): line += text
                case .value(let value): line += value.jsonText
                case .object(let id): line += objects[id]?.name ?? "null"
                case .secure: line += "<secure>"
                }
            }
        }
        return line
    }

    /// A child whose parent was evaluated and whose identity stays: new inputs, binding targets or
    /// observed objects re-evaluate it with `@self` (rules 5, 10), and a state object's new
    /// initial values are dropped and reported (rule 4).
    private func reconcile(_ child: ViewNode, with evaluated: EvaluatedDeclaration) throws(EngineError) {
        let fresh = child.birth == transaction
        var changed = false
        var objectsChanged = false
        for (name, initial) in evaluated.inputs {
            let new: ViewVariable
            switch initial {
            case .bound(.object(let id)): new = .inputObject(id)
            case .bound(.value(let value)): new = .input(value)
            case .bound(.secure): new = .input(.null)
            case .new(let type, let arguments):
                // The parent made a new object for this `let` (rule 18): the child is passed a new value.
                guard !fresh else { continue }
                let record = try createObject(
                    type, initial: arguments, owner: (child, name), reason: .construct, field: "inputs.\(name).$new.init")
                new = .inputObject(record.serial)
            }
            switch (child.variables[name], new) {
            case (.input(let a)?, .input(let b)) where a == b: continue
            case (.inputObject(let a)?, .inputObject(let b)) where a == b: continue
            default: break
            }
            if case .inputObject(let id) = new { hold(id) }
            if case .inputObject(let old)? = child.variables[name] {
                releaseHeld(old, by: child, variable: name, ownerReason: .replaced)
            }
            setVariable(child, name, new)
            changed = true
        }
        if !fresh {
            // `@State var vm = Model()`: the initial value is made at every init of the view struct,
            // and all but the identity's first are thrown away (rule 18).
            for (name, initial) in evaluated.state {
                guard case .new(let type, let arguments) = initial else { continue }
                try discardInitialValue(type, arguments, owner: child, variable: name, field: "state.\(name).$new.init")
            }
        }
        for (name, location) in evaluated.bindings {
            guard case .binding(let old)? = child.variables[name] else { continue }
            let passed = boundValue(at: location)
            let last = child.passedBindings[name]
            if old != location {
                setVariable(child, name, .binding(location))
                changed = true
            } else if passed == .secure {
                // Rule 13: a secure value is never compared; a written one counts as changed.
                changed = changed || pending.originals[location] != nil
            } else if passed != last {
                changed = true
            }
            if passed != last {
                journal.record(.passedBinding(child, name: name, old: last))
                child.passedBindings[name] = passed
            }
        }
        for (name, source) in evaluated.observed {
            guard case .object(let old, _)? = child.variables[name] else { continue }
            switch source {
            case .construct(let type, let arguments):
                guard !fresh else { continue }
                let record = try createObject(
                    type, initial: arguments, owner: (child, name), reason: .construct,
                    field: "observedObjects.\(name).init")
                hold(record.serial)
                setVariable(child, name, .object(record.serial, .observedObject))
                releaseHeld(old, by: child, variable: name, ownerReason: .replaced)
            case .object(let id):
                guard id != old else { continue }
                try requireStyle(
                    of: objects[id]?.type.name ?? "", for: .observedObject, field: "observedObjects.\(name)", view: child.path)
                hold(id)
                setVariable(child, name, .object(id, .observedObject))
                releaseHeld(old, by: child, variable: name, ownerReason: .replaced)
            }
            changed = true
            objectsChanged = true
        }
        if !fresh {
            for (name, arguments) in evaluated.stateObjects {
                // `let vm = T(...); _vm = StateObject(wrappedValue: vm)` builds one that is never used (rule 18).
                if let initializer = child.declaration.stateObjects.first(where: { $0.name == name })?.value, initializer.eager {
                    try discardInitialValue(
                        initializer.type, arguments, owner: child, variable: name, field: "stateObjects.\(name).init")
                }
                if arguments != child.stateObjectArguments[name] {
                    reportIgnoredInitializer(child, variable: name, arguments: arguments)
                }
            }
        }
        if objectsChanged { try applyModifiers(child, .content, try declaredModifiers(of: child, .content)) }
        // What the parent applies where it places the child reads the parent's variables, as they are now.
        if !child.declaration.modifiers.isEmpty { try applyModifiers(child, .placement, try declaredModifiers(of: child, .placement)) }
        if changed && !fresh, let parent = child.parent { queue(child, reason: UpdateReason.parent, .parent(parent)) }
    }

    /// An initial value made for a view identity that already has one: created and destroyed at
    /// once, both reported with the variable it was made for.
    private func discardInitialValue(
        _ type: String, _ arguments: JSONObject, owner: ViewNode, variable: String, field: String
    )
        throws(EngineError)
    {
        let record = try createObject(type, initial: arguments, owner: (owner, variable), reason: .stateInitial, field: field)
        hold(record.serial)
        release(record.serial, reason: .discarded)
    }

    private func reportIgnoredInitializer(_ node: ViewNode, variable: String, arguments given: JSONObject) {
        let type = node.declaration.stateObjectType(variable) ?? "object"
        // Rule 13: a secure initial value is named, never shown.
        var arguments = given
        for property in registry[type]?.model.stored ?? [] where property.secure && arguments[property.name] != nil {
            arguments[property.name] = "<secure>"
        }
        let kept = node.variables[variable]?.object.flatMap { objects[$0]?.name } ?? type
        pending.events.append(
            .diagnostic(
                kind: "StateObjectInitIgnored",
                message: "\(node.path): @StateObject \(variable) keeps \(kept); the new initial values "
                    + "\(JSON.object(arguments).jsonText) were ignored, because a state object is created once per view identity",
                view: node.path, variable: variable, ignored: .object(arguments),
                hint: "To make a new \(type) when these values change, give \(node.declaration.name) an id bound to them "
                    + "(\"id\": {\"$parent\": ...}), as .id(value) does in SwiftUI; or pass the object in as an @ObservedObject."))
    }
}

/// The slots a transaction wrote, by object in the order the objects were first written. A
/// transaction writes few objects, and a scan of those costs less than hashing (a dictionary
/// here cost about 1.4k instructions of a 25k `graph/set`); past `scanLimit` objects an index
/// keeps each look-up constant, so a transaction's cost stays in proportion to its writes.
struct WrittenSlots {
    /// Each write: the slot, whether it changed (rule 9), and the value it had before the transaction.
    typealias Write = (slot: Int, changed: Bool, old: JSON)
    private(set) var objects: [(id: ObjectSerial, writes: [Write])] = []
    private var index: [ObjectSerial: Int] = [:]
    static let scanLimit = 8

    /// Records a write of `slot`; without a slot, the object is only announced (`objectWillChange`).
    mutating func add(_ id: ObjectSerial, slot: Int? = nil, changed: Bool = false, old: JSON = .null) {
        if let position = position(of: id) {
            if let slot { objects[position].writes.append((slot, changed, old)) }
            return
        }
        objects.append((id, slot.map { [($0, changed, old)] } ?? []))
        guard objects.count > Self.scanLimit else { return }
        if index.isEmpty {
            for (position, object) in objects.enumerated() { index[object.id] = position }
        } else {
            index[id] = objects.count - 1
        }
    }

    private func position(of id: ObjectSerial) -> Int? {
        objects.count <= Self.scanLimit ? objects.firstIndex { $0.id == id } : index[id]
    }
}
