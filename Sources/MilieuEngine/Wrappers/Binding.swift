import MilieuJSON

/// `@Binding` (rules 1, 2, 10): a reference to a source of truth its parent holds — a `@State`, a
/// `@Binding`, or an object's stored property — through which the view reads and writes it. A
/// SwiftUI `Binding` carries its value too: a parent that passes one whose value changed since
/// its last evaluation passes the view a new value (`@self`), read or not.
extension Graph {
    /// Gives a new identity its bindings, with the values they carry; a `@State` bound counts as
    /// read by its own view from now on (`ViewNode.boundStates`).
    func installBindings(_ node: ViewNode, _ evaluated: EvaluatedDeclaration) {
        for (name, location) in evaluated.bindings {
            node.variables.append(name, .binding(location))
            node.passedBindings[name] = boundValue(at: location)
            markBound(location)
        }
    }

    /// Marks a `@State` that a binding now reaches as read by its own view, for good (SwiftUI's
    /// `StoredLocation.wasRead`, which a binding's update sets).
    func markBound(_ location: Location) {
        guard case .state(let serial, let index) = location, index < 64, let owner = viewsBySerial[serial] else { return }
        let old = owner.boundStates
        guard old & (1 << index) == 0 else { return }
        if owner.birth != transaction { journal.record(.boundStates(owner, old: old)) }
        owner.boundStates = old | (1 << index)
    }

    /// A control or sheet in `node`'s body bound to `path` (`Toggle(isOn: $toggle)`): a `@State` it
    /// reaches counts as read by its view from now on, as when a child holds a binding to it.
    func markBound(_ path: ReadPath, in node: ViewNode) {
        guard path.members.count == 1, let index = node.variables.index(of: path.members[0]) else { return }
        switch node.variables[at: index].value {
        case .state: markBound(.state(view: node.serial, variable: index))
        case .binding(let location): markBound(location)
        default: break
        }
    }

    /// Takes the bindings its parent's evaluation passes now; whether any is another binding or
    /// carries another value (`@self`).
    func updateBindings(_ child: ViewNode, _ evaluated: EvaluatedDeclaration) -> Bool {
        var changed = false
        for (name, location) in evaluated.bindings {
            guard case .binding(let old)? = child.variables[name] else { continue }
            let passed = boundValue(at: location)
            let last = child.passedBindings[name]
            if old != location {
                setVariable(child, name, .binding(location))
                markBound(location)
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
        return changed
    }

    /// A binding's source of truth: a @State or @Binding of the parent, or a stored property of an object.
    func bindingLocation(
        _ members: [String], parent: ViewNode?, view: String, variable: String
    ) throws(EngineError)
        -> Location
    {
        let field = "bindings.\(variable)"
        guard let parent else { throw .invalidDeclaration(field: field, reason: "the root view has no parent", view: view) }
        let name = members[0]
        guard let index = parent.variables.index(of: name) else {
            throw .invalidDeclaration(field: field, reason: "\"$parent\": \"\(name)\" names no variable of \(parent.path)", view: view)
        }
        switch parent.variables[at: index].value {
        case .state where members.count == 1: return .state(view: parent.serial, variable: index)
        case .binding(let location) where members.count == 1: return location
        default:
            guard members.count >= 2 else {
                throw .invalidDeclaration(
                    field: field, reason: "\(name) of \(parent.path) is not a @State or @Binding; bind to one, or to object.property",
                    view: view)
            }
            let display = "\(parent.path).\(members.joined(separator: "."))"
            let (location, rest) = try writeTarget(KeyPath(root: .view(parent.path), members: members), display: display)
            guard rest.isEmpty, case .property(let id, let slot) = location else {
                throw .invalidDeclaration(field: field, reason: "a binding ends at a property or a @State", view: view)
            }
            if let record = objects[id], record.type.isComputed(slot) {
                throw .invalidDeclaration(field: field, reason: "\(display) is computed and cannot be bound", view: view)
            }
            return location
        }
    }
}
