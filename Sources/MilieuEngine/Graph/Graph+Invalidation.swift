import MilieuJSON

extension Graph {
    /// After a transaction's operations: finds what really changed (rule 9), brings computed
    /// properties up to date (rule 12), and evaluates each invalidated view once, parents
    /// first (rules 10 and 11). Any error here fails the whole transaction.
    func propagate() throws(EngineError) {
        let next = version.next
        // The last transaction's table, emptied: its array's room is kept, where growing a new one
        // from nothing cost some 200 instructions a write.
        var written = WrittenSlots()
        swap(&written, &writtenSlots)
        defer {
            written.removeAll()
            swap(&written, &writtenSlots)
        }
        // By position: each place's original value is copied once, where a change reports it.
        for position in 0..<pending.touched.count {
            let (location, changed) = pending.touched.place(at: position)
            switch location {
            case .property(let id, let slot):
                // Touched only by a write that changed it or announces every write (rule 9).
                guard objects[id] != nil else { continue }
                written.add(id, slot: slot, changed: changed, original: position)
            case .state(let serial, let index):
                guard changed, let node = viewsBySerial[serial] else { continue }
                let value: JSON
                switch node.variables[at: index].value {
                case .state(let held, _): value = held
                // A @State holding an object that an action replaced (`vm = Model()`): its id.
                case .object(let id, .state): value = objects[id].map { .string($0.name) } ?? .null
                default: continue
                }
                let original = pending.touched.original(at: position)
                pending.propertyChanges.append(.state(view: node.path, variable: node.variables[at: index].name, value: value))
                setVersion(node, next)
                invalidate(.location(location))
                if !projections.isEmpty { invalidateProjections(of: location, from: original, to: value, secure: false) }
                pending.replaced.append(consume original)
            }
        }
        if !pending.announced.isEmpty { for id in pending.announced.sorted() { written.add(id) } }
        if !forwarders.isEmpty { forwardAnnouncements(into: &written) }
        for index in 0..<written.count {
            let id = written.object(at: index)
            guard let record = objects[id] else { continue }
            var announced = !pending.announced.isEmpty && pending.announced.contains(id)
            written.forEachWrite(of: index) { write in
                let announces = record.type.announces(write.slot)
                announced = announced || announces
                reportPropertyChange(
                    record, slot: write.slot, replacing: pending.touched.original(at: write.original),
                    invalidating: write.changed && announces)
            }
            // Most types compute nothing: no set of changed slots to build for them.
            if !record.type.model.computed.isEmpty {
                var changed: Set<Int> = []
                written.forEachWrite(of: index) { write in if write.changed { changed.insert(write.slot) } }
                updateComputed(record, changed: changed)
            }
            setVersion(record, next)
            // `objectWillChange`: every holder of an `ObservableObject` re-renders (rules 10, 19).
            if announced { invalidate(.object(id)) }
        }
        while let (node, reasons) = pending.queue.next() {
            guard node.isMounted else { continue }
            try evaluateBody(node, reasons: reasons)
        }
    }

    /// `inner.objectWillChange.sink { self.objectWillChange.send() }`: every object that forwards
    /// the announcements of one that announces in this transaction announces too, and so on up.
    private func forwardAnnouncements(into written: inout WrittenSlots) {
        var announcing: [ObjectSerial] = []
        for index in 0..<written.count {
            let id = written.object(at: index)
            guard let record = objects[id] else { continue }
            var announces = pending.announced.contains(id)
            written.forEachWrite(of: index) { write in announces = announces || record.type.announces(write.slot) }
            if announces { announcing.append(id) }
        }
        while let id = announcing.popLast() {
            for holder in forwarders[id] ?? [] where objects[holder] != nil && pending.announced.insert(holder).inserted {
                written.add(holder)
                announcing.append(holder)
            }
        }
    }

    /// Reports a property's new value, and the one it replaced (`old`, kept with the commit), to
    /// watches; `invalidating` also re-renders the views that read it.
    private func reportPropertyChange(_ record: ObjectRecord, slot: Int, replacing old: consuming JSON, invalidating: Bool = true) {
        let secure = record.type.isSecure(slot)
        pending.propertyChanges.append(
            .property(
                object: record.name, type: record.type.name, property: record.type.propertyName(slot),
                value: secure ? nil : record.values[slot]))
        if invalidating {
            let location = Location.property(object: record.serial, slot: slot)
            invalidate(.location(location))
            if !projections.isEmpty { invalidateProjections(of: location, from: old, to: record.values[slot], secure: secure) }
        }
        // Last, so that `old` is moved into the commit rather than copied.
        if secure { pending.replaced.append(nil) } else { pending.replaced.append(consume old) }
    }

    /// Re-renders the views that read a part of `location`'s value through a binding into it
    /// (`$user.name`) when that part changed: SwiftUI's child holds a `Binding` carrying that part,
    /// and another member of `user` changing leaves it equal. A secure value is never compared
    /// (rule 13): every part counts as changed.
    private func invalidateProjections(of location: Location, from old: JSON, to new: JSON, secure: Bool) {
        guard let parts = projections[location] else { return }
        for members in parts where secure || BindingTarget.value(at: members, in: old) != BindingTarget.value(at: members, in: new) {
            invalidate(.projection(location, members: members))
        }
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
    /// declarations from the values it now passes them: those a client mounted under it, and
    /// those its body writes, which it mounts and unmounts as its conditions and rows say.
    func evaluateBody(_ node: ViewNode, reasons: Reasons) throws(EngineError) {
        recorder.start(for: node)
        for (name, variable) in node.variables {
            switch variable {
            case .object(let id, let wrapper) where wrapper.subscribes:
                if objects[id]?.type.model.style == .observableObject { recorder.note(.object(id), UpdateReason.variable(name)) }
            default: break
            }
        }
        let output = try walkBody(node, recorder: recorder)
        var children: [(ViewNode, EvaluatedDeclaration)] = []
        for child in node.children where !child.declaration.inBody {
            children.append((child, try evaluate(child.declaration, literals: child.literals, parent: node, recorder: recorder)))
        }
        setDependencies(node, recorder.take())
        let lines = BodyLines(output.lines)
        setBody(node, lines)
        setControls(node, output.controls)
        let printed = node.declaration.printChanges.map {
            Self.printChangesLine(node.declaration, reasons: reasons.all, isNew: node.arrival != nil, fields: $0)
        }
        if let arrival = node.arrival {
            pending.events.append(.viewMounted(view: node.path, reason: arrival, body: lines, printed: printed))
            // SPEC §10.2: a view that appeared through an id change is also updated, for @identity.
            if arrival == .identity {
                pending.events.append(.viewUpdated(view: node.path, reasons: [UpdateReason.identity], body: lines, printed: nil))
            }
        } else {
            pending.events.append(.viewUpdated(view: node.path, reasons: Self.ordered(reasons.all), body: lines, printed: printed))
        }
        try placeBodyChildren(node, output.children)
        node.arrival = nil
        if children.contains(where: { child, evaluated in !child.hasExplicitID(evaluated.id) }) { try replaceIdentities(children) }
        for (child, evaluated) in children where child.isMounted {
            try reconcile(child, with: evaluated)
        }
    }

    /// Places the views of `node`'s body again without evaluating it, after a navigation link
    /// was tapped: SwiftUI pushes the destination without re-running the presenter's body.
    func placeAgain(_ node: ViewNode) throws(EngineError) {
        let output = try walkBody(node, recorder: nil)
        setControls(node, output.controls)
        try placeBodyChildren(node, output.children)
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

    func render(_ template: Template, in node: ViewNode, recorder: ReadRecorder?) throws(EngineError) -> String {
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

    /// A child whose parent was evaluated and whose identity stays: each wrapper takes what the
    /// parent passes now (`Wrappers/`). New inputs, binding targets or values, or observed objects
    /// re-evaluate it with `@self` (rules 5, 10); a state object's new initial values are dropped
    /// and reported (rule 4); `$new` initial values are made and thrown away (rule 18).
    func reconcile(_ child: ViewNode, with evaluated: EvaluatedDeclaration) throws(EngineError) {
        let fresh = isBornInThisTransaction(child)
        var changed = false
        // `.equatable()`: when its `==` says equal, SwiftUI keeps the view as it was; what the
        // parent passes now is dropped, and nothing of it re-evaluates the view.
        if fresh || !isEqualByItsEquality(child, evaluated) {
            changed = try updateInputs(child, evaluated, fresh: fresh)
            changed = updateBindings(child, evaluated) || changed
        }
        if !fresh { try updateState(child, evaluated) }
        let objectsChanged = try updateObservedObjects(child, evaluated, fresh: fresh)
        changed = changed || objectsChanged
        if !fresh { try updateStateObjects(child, evaluated) }
        if objectsChanged { try applyModifiers(child, .content, try declaredModifiers(of: child, .content)) }
        // What the parent applies where it places the child reads the parent's variables, as they are now.
        if !child.declaration.modifiers.isEmpty { try applyModifiers(child, .placement, try declaredModifiers(of: child, .placement)) }
        if changed && !fresh, let parent = child.parent { queue(child, reason: UpdateReason.parent, .parent(parent)) }
    }
}

/// The slots a transaction wrote, by object in the order the objects were first written: a
/// `SmallTable`, since a transaction writes few objects (a dictionary here cost about 1.4k
/// instructions of a 25k `graph/set`), and past its scan limit an index keeps each look-up
/// constant, so a transaction's cost stays in proportion to its writes.
///
/// The writes are one list, each object's chained through it in order, not an array per
/// object: those arrays were made and freed in every transaction, about 550 instructions of a
/// 15k ephemeral `graph/set` (callgrind). The list keeps its room for the next transaction.
struct WrittenSlots {
    /// A write: the slot, whether it changed (rule 9), the position of its place among those the
    /// transaction touched (`TouchedPlaces`, which holds the value it had before), and where the
    /// same object's next write is (-1: none). Nothing here to copy or release.
    struct Write {
        let slot: Int
        let changed: Bool
        let original: Int
        fileprivate(set) var next: Int
    }

    /// Each written object with where its first and last writes are in `writes` (-1: none).
    private var table = SmallTable<ObjectSerial, (first: Int, last: Int)>()
    private var writes: [Write] = []

    /// How many objects were written; they are read by index, in the order they were first
    /// written. A sequence of them, mapped lazily from the table with the writes it captured, cost
    /// a write some 150 instructions of retains and releases (callgrind).
    var count: Int { table.entries.count }

    /// The `index`-th object written.
    func object(at index: Int) -> ObjectSerial { table.entries[index].key }

    /// Hands `body` the writes of the `index`-th object, in the order they were made.
    @inline(__always)
    func forEachWrite(of index: Int, _ body: (Write) -> Void) {
        var position = table.entries[index].value.first
        while position >= 0 {
            body(writes[position])
            position = writes[position].next
        }
    }

    /// Records a write of `slot`; without a slot, the object is only announced (`objectWillChange`).
    @inline(__always)
    mutating func add(_ id: ObjectSerial, slot: Int? = nil, changed: Bool = false, original: Int = -1) {
        let added = slot.map { slot in
            writes.append(Write(slot: slot, changed: changed, original: original, next: -1))
            return writes.count - 1
        }
        guard let position = table.position(of: id) else {
            table.append(id, (added ?? -1, added ?? -1))
            return
        }
        guard let added else { return }
        let last = table[position].last
        if last >= 0 { writes[last].next = added } else { table[position].first = added }
        table[position].last = added
    }

    /// Forgets every write, keeping the room of a few for the next transaction; a larger list is
    /// let go whole, as the table's is.
    mutating func removeAll() {
        table.removeAll()
        if writes.count <= SmallTable<ObjectSerial, Int>.scanLimit { writes.removeAllKeepingCapacity() } else { writes = [] }
    }
}
