import MilieuJSON

extension Graph {
    /// Puts `node` into the tree after `previous` (first when nil, last when `atEnd`).
    func link(_ node: ViewNode, after previous: ViewNode?, atEnd: Bool) throws(EngineError) {
        guard viewsBySerial.count < limits.maxViews else { throw .limitExceeded(limit: "views", max: limits.maxViews) }
        guard node.depth <= limits.maxDepth else { throw .limitExceeded(limit: "viewDepth", max: limits.maxDepth) }
        guard views.insert(node) == nil else { throw .duplicateView(node.path) }
        viewsBySerial[node.serial] = node
        node.isMounted = true
        if let owner = node.closeOwner { closeRoots[owner, default: []].insert(node.serial) }
        if let parent = node.parent {
            let before = atEnd ? parent.lastChild : previous
            let after = before == nil ? parent.firstChild : before?.nextSibling
            node.previousSibling = before
            node.nextSibling = after
            if let before { before.nextSibling = node } else { parent.firstChild = node }
            if let after { after.previousSibling = node } else { parent.lastChild = node }
        }
        journal.record(.linked(node))
    }

    /// Moves `node` among its siblings to just after `previous` (first when nil): a row whose
    /// element moved keeps its identity and its state.
    func move(_ node: ViewNode, after previous: ViewNode?) {
        guard node.previousSibling !== previous, let parent = node.parent else { return }
        journal.record(.moved(node, previous: node.previousSibling))
        if let before = node.previousSibling { before.nextSibling = node.nextSibling } else { parent.firstChild = node.nextSibling }
        if let after = node.nextSibling { after.previousSibling = node.previousSibling } else { parent.lastChild = node.previousSibling }
        let after = previous == nil ? parent.firstChild : previous?.nextSibling
        node.previousSibling = previous
        node.nextSibling = after
        if let previous { previous.nextSibling = node } else { parent.firstChild = node }
        if let after { after.previousSibling = node } else { parent.lastChild = node }
    }

    /// Takes `node` out of the tree; the journal puts it back in the same place.
    func remove(_ node: ViewNode) {
        let previous = node.previousSibling
        unlink(node)
        journal.record(.removed(node, previous: previous))
    }

    func unlink(_ node: ViewNode) {
        views.remove(node.path)
        viewsBySerial[node.serial] = nil
        node.isMounted = false
        if let owner = node.closeOwner, closeRoots[owner]?.remove(node.serial) != nil, closeRoots[owner]?.isEmpty == true {
            closeRoots[owner] = nil
        }
        guard let parent = node.parent else { return }
        if let previous = node.previousSibling { previous.nextSibling = node.nextSibling } else { parent.firstChild = node.nextSibling }
        if let next = node.nextSibling { next.previousSibling = node.previousSibling } else { parent.lastChild = node.previousSibling }
        node.previousSibling = nil
        node.nextSibling = nil
    }

    /// Whether changes to `node` need undo records: not for a node born in this transaction,
    /// which the journal removes whole.
    private func journaled(_ node: ViewNode) -> Bool { !isBornInThisTransaction(node) }

    func setVariable(_ node: ViewNode, _ name: String, _ variable: ViewVariable) {
        let old = node.variables[name]
        node.variables[name] = variable
        if journaled(node) { journal.record(.variable(node, name: name, old: old)) }
    }

    /// Sets the body an evaluation rendered, counted as an evaluation in the version this
    /// transaction commits (`view/tree`'s `evaluations` and `lastEvaluated`).
    func setBody(_ node: ViewNode, _ body: BodyLines) {
        if journaled(node) {
            journal.record(.body(node, old: node.body, evaluations: node.evaluations, lastEvaluated: node.lastEvaluatedBits))
        }
        node.body = body
        if node.evaluations < .max { node.evaluations += 1 }
        node.lastEvaluatedBits = UInt32(truncatingIfNeeded: version.next.rawValue)
    }

    /// Sets the controls an evaluation of the body showed.
    func setControls(_ node: ViewNode, _ controls: [ViewControl]) {
        guard !(controls.isEmpty && node.controls.isEmpty) else { return }
        if journaled(node) { journal.record(.controls(node, old: node.controls)) }
        node.controls = controls
    }

    /// The version whose commit last evaluated `node`'s body: the latest version up to now whose
    /// low 32 bits the node kept. Exact while a view is evaluated at least once every 2^32
    /// versions; a whole `Version` in every view would cost a list of views 8 bytes each.
    func lastEvaluated(_ node: ViewNode) -> Version {
        let now = version.rawValue
        let candidate = (now & ~Int(UInt32.max)) | Int(node.lastEvaluatedBits)
        return Version(candidate <= now ? candidate : candidate - (Int(UInt32.max) + 1))
    }

    func setVersion(_ node: ViewNode, _ version: Version) {
        if journaled(node) { journal.record(.viewVersion(node, old: node.version)) }
        node.version = version
    }

    func setVersion(_ record: ObjectRecord, _ version: Version) {
        journal.record(.objectVersion(record, old: record.version))
        record.version = version
    }

    /// Replaces what `node` depends on, keeping the reverse index in step.
    func setDependencies(_ node: ViewNode, _ new: DependencySet) {
        guard node.dependencies != new else { return }
        if journaled(node) { journal.record(.dependencies(node, old: node.dependencies)) }
        reindex(node, to: new)
    }

    /// Adds dependencies without dropping any (a new child's expressions read its parent's values).
    func addDependencies(_ node: ViewNode, _ extra: DependencySet) {
        guard !extra.isEmpty else { return }
        var merged = node.dependencies
        merged.merge(extra)
        setDependencies(node, merged)
    }

    /// Sets what `node` depends on and keeps `dependents` in step. A view's reads of its own
    /// @State stay out of the index: `invalidate` finds that reader from the location itself,
    /// and most views read their own state.
    func reindex(_ node: ViewNode, to new: DependencySet) {
        let old = node.dependencies
        for dependency in old.dependencies where !new.contains(dependency) && !dependency.isState(of: node.serial) {
            if dependents[dependency]?.remove(node.serial) == false {
                dependents[dependency] = nil
                if case .projection(let location, let members) = dependency {
                    projections[location]?.removeAll { $0 == members }
                    if projections[location]?.isEmpty == true { projections[location] = nil }
                }
            }
        }
        for dependency in new.dependencies where !old.contains(dependency) && !dependency.isState(of: node.serial) {
            if case .projection(let location, let members) = dependency, dependents[dependency] == nil {
                projections[location, default: []].append(members)
            }
            dependents[dependency, default: .none].insert(node.serial)
        }
        node.dependencies = new
    }

    /// Queues every view that depends on `dependency`, each with the reason it recorded.
    func invalidate(_ dependency: Dependency) {
        if case .location(.state(let serial, _)) = dependency, let owner = viewsBySerial[serial] {
            queue(owner, for: dependency)
        }
        guard let serials = dependents[dependency] else { return }
        for serial in serials.sorted {
            guard let node = viewsBySerial[serial] else { continue }
            queue(node, for: dependency)
        }
    }

    private func queue(_ node: ViewNode, for dependency: Dependency) {
        guard let reasons = node.reasons(for: dependency) else { return }
        switch reasons {
        case .one(let reason): queue(node, reason: reason, .dependency(dependency))
        case .many(let all): for reason in all { queue(node, reason: reason, .dependency(dependency)) }
        }
    }

    /// Queues `node` for evaluation with `reason`, and records what gave it (`graph/explain`).
    func queue(_ node: ViewNode, reason: String, _ source: PendingInvalidation.Source) {
        pending.queue.add(node, reason: reason)
        pending.invalidations.append(PendingInvalidation(view: node, reason: reason, source: source))
    }
}

extension ViewNode {
    /// The connection whose close unmounts this view with its subtree (rule 15): the one that
    /// mounted it without `retain`, unless the same close takes its parent, and this one with it
    /// (a parent that connection mounted without `retain`; one it retained stays).
    /// Fixed for the view's life: its owner, flag and parent never change.
    var closeOwner: ConnectionID? {
        guard let owner, !retained else { return nil }
        if let parent, parent.owner == owner, !parent.retained { return nil }
        return owner
    }
}

extension Dependency {
    /// Whether this is a @State of the view `serial`.
    func isState(of serial: ViewSerial) -> Bool {
        if case .location(.state(let view, _)) = self { view == serial } else { false }
    }
}
