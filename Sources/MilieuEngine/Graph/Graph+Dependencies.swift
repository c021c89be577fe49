import MilieuJSON
import MilieuProtocol

extension Graph {
    /// `view/dependencies`: what `path`'s last body evaluation read, each with the reasons a
    /// change gives — the view's own record (`ViewNode.dependencies`), which `invalidate` goes by:
    /// its own `@State` first, in declaration order (the record keeps those as a set of bits), then
    /// everything else in the order it was read. Places are named, values never (rule 13).
    public func dependencies(of path: String) throws(EngineError) -> (path: String, dependencies: [ViewDependency]) {
        let node = try mountedView(path)
        var dependencies: [ViewDependency] = []
        for index in 0..<min(node.variables.count, DependencySet.ownStateBits) where node.dependencies.readsOwnState(index) {
            let name = node.variables[at: index].name
            dependencies.append(ViewDependency(source: .state(view: node.path, variable: name), reasons: [UpdateReason.variable(name)]))
        }
        dependencies += node.dependencies.entries.compactMap { entry in
            source(of: entry.dependency).map { ViewDependency(source: $0, reasons: Self.ordered(entry.reasons.all)) }
        }
        return (node.path, dependencies)
    }

    /// `graph/readers`: the mounted views that a change of the key path `path` would evaluate
    /// again, parents first, each with the reasons it would give. It asks the reverse index
    /// (`dependents`) what `propagate` would invalidate: the place a write lands (through
    /// bindings and references, rules 1 and 20), the stored properties a computed one's getter
    /// read (rule 12), every holder of an `ObservableObject` whose property announces (rules
    /// 10, 19), and the view whose own `@State` it is, which the index leaves out. An object's
    /// key path is a change of any of its properties.
    public func readers(of path: String) throws(EngineError) -> [ViewReader] {
        var byView: [ViewSerial: Reasons] = [:]
        for dependency in try dependenciesChanged(by: path) {
            var serials = dependents[dependency]?.sorted ?? []
            if case .location(.state(let owner, _)) = dependency { serials.append(owner) }
            for serial in serials {
                guard let node = viewsBySerial[serial], let reasons = node.reasons(for: dependency) else { continue }
                for reason in reasons.all { byView[serial] = byView[serial]?.adding(reason) ?? .one(reason) }
            }
        }
        let readers = byView.compactMap { serial, reasons in viewsBySerial[serial].map { ($0, reasons) } }
        // Each view's depth walked once, not at every comparison.
        return readers.map { (node: $0.0, reasons: $0.1, depth: $0.0.depth) }
            .sorted { ($0.depth, $0.node.serial) < ($1.depth, $1.node.serial) }.map { node, reasons, _ in
                ViewReader(view: node.path, reasons: Self.ordered(reasons.all))
            }
    }

    /// A mounted view by path, or UnknownPath.
    func mountedView(_ path: String) throws(EngineError) -> ViewNode {
        let canonical = try ViewPath.split(path).view
        guard let node = views[canonical] else { throw noView(at: canonical, named: path, "no view is mounted there") }
        return node
    }

    /// What a change of the key path `path` invalidates, as `propagate` would.
    private func dependenciesChanged(by path: String) throws(EngineError) -> [Dependency] {
        let keyPath = try parsedKeyPath(path)
        if case .view(let viewPath) = keyPath.root, keyPath.members.isEmpty {
            guard views[viewPath] != nil else { throw noView(at: viewPath, named: path, "no view is mounted at \(viewPath)") }
            throw .invalidParams(pointer: "/path", "\(path) is a view; give a key path, or ask view/dependencies")
        }
        if case .object(let id) = try resolve(keyPath, display: path), endingReference(keyPath, display: path) == nil,
            let record = objects[id]
        {
            return (0..<record.type.storedCount).flatMap { dependenciesChanged(record, slot: $0) }
        }
        let location: Location
        let members: [String]
        do {
            (location, members) = try writeTarget(keyPath, display: path)
        } catch let error where error.kind == .forbidden {
            // A `.constant(...)` binding: no write reaches it, so no change of it re-renders anyone.
            return []
        }
        switch location {
        case .state: return [.location(location)] + projectionsChanged(of: location, by: members)
        case .property(let id, let slot):
            guard let record = objects[id] else { throw .unknownPath(path, "the object is gone") }
            guard record.type.isComputed(slot) else {
                return dependenciesChanged(record, slot: slot) + projectionsChanged(of: location, by: members)
            }
            return record.computedReads[slot - record.type.storedCount].flatMap { dependenciesChanged(record, slot: $0) }
        }
    }

    /// The parts of `location`'s value read through bindings into it that a write of `members`
    /// inside it changes: those on the way to it and those inside it (`user`'s `name` for a
    /// write of `user`, or of `user.name`; not for one of `user.age`).
    private func projectionsChanged(of location: Location, by members: [String]) -> [Dependency] {
        (projections[location] ?? []).filter { $0.starts(with: members) || members.starts(with: $0) }.map {
            .projection(location, members: $0)
        }
    }

    /// What a change of stored property `slot` invalidates: its readers, and the holders of an
    /// `ObservableObject` it announces to; nothing for a property that does not announce.
    private func dependenciesChanged(_ record: ObjectRecord, slot: Int) -> [Dependency] {
        guard record.type.announces(slot) else { return [] }
        let location = Dependency.location(.property(object: record.serial, slot: slot))
        return record.type.model.style == .observableObject ? [location, .object(record.serial)] : [location]
    }

    /// A dependency as the protocol names it (`view/dependencies`, `graph/explain`); nil for a
    /// place that is gone.
    func source(of dependency: Dependency) -> ViewDependency.Source? {
        switch dependency {
        case .location(.property(let id, let slot)):
            guard let record = objects[id] else { return nil }
            return .property(object: record.name, property: record.type.propertyName(slot))
        case .location(.state(let serial, let index)):
            guard let node = viewsBySerial[serial] else { return nil }
            return .state(view: node.path, variable: node.variables[at: index].name)
        // A part of a place's value read through a binding into it: the place is what is named.
        case .projection(let location, _): return source(of: .location(location))
        case .object(let id):
            guard let record = objects[id] else { return nil }
            return .object(object: record.name, type: record.type.name)
        case .environment(let provider, let key):
            return .environment(key: key, provider: provider.flatMap { viewsBySerial[$0]?.path })
        }
    }
}
