import MilieuJSON

/// What a `@Binding` reaches: a place and, for a binding into a value, the members of that
/// place's value it stands for; or a constant.
enum BindingTarget: Equatable {
    /// `$isOn`, `$vm.email`: the place itself (`projection` empty). `$user.name`, `$items[0]`:
    /// the members of its value (`["name"]`, `["0"]`), SwiftUI's `ProjectedLocation` over the
    /// place's storage: a write sets the whole value, and reading it reads the place.
    case place(Location, projection: [String])
    /// `.constant(v)` (SwiftUI's `ConstantLocation`): reads `v`; a write is refused.
    case constant(JSON)

    /// What a body's read through the binding depends on: the place, or the part of its value
    /// the binding projects (then only a change of that part re-renders the reader). Nil for a
    /// constant, which changes only when the parent passes another (`@self`).
    var dependency: Dependency? {
        switch self {
        case .place(let location, let projection):
            projection.isEmpty ? .location(location) : .projection(location, members: projection)
        case .constant: nil
        }
    }

    /// The binding `members` further in: `$user.name` from a binding to `user`.
    func projecting(_ members: some Collection<String>) -> BindingTarget {
        guard !members.isEmpty else { return self }
        switch self {
        case .place(let location, let projection): return .place(location, projection: projection + members)
        case .constant(let value): return .constant(Self.value(at: members, in: value))
        }
    }

    /// The part of `value` at `members` (null where a member is not there), as a body reads it.
    static func value(at members: some Sequence<String>, in value: JSON) -> JSON {
        members.reduce(value) { ExpressionEvaluation.member($1, of: $0) }
    }
}

/// Where a `@Binding` of a declaration comes from (`bindings`, SPEC §6.1).
enum BindingSource: Sendable {
    /// `{"$parent": "user.name"}`: a key path from the parent's `@State`, `@Binding` or object.
    case parent([String])
    /// `{"$constant": expression}`: `.constant(v)`, its value evaluated in the parent as an input's is.
    case constant(ValueExpression)
}

/// `@Binding` (rules 1, 2, 10): a reference to a source of truth its parent holds — a `@State`, a
/// `@Binding`, an object's stored property, or a part of one's value — through which the view
/// reads and writes it. A SwiftUI `Binding` carries its value too: a parent that passes one whose
/// value changed since its last evaluation passes the view a new value (`@self`), read or not.
extension Graph {
    /// Gives a new identity its bindings, with the values they carry; a `@State` bound counts as
    /// read by its own view from now on (`ViewNode.boundStates`).
    func installBindings(_ node: ViewNode, _ evaluated: EvaluatedDeclaration) {
        for (name, target) in evaluated.bindings {
            node.variables.append(name, .binding(target))
            node.passedBindings[name] = boundValue(of: target)
            markBound(target)
        }
    }

    /// Marks a `@State` that a binding now reaches, into its value too, as read by its own view,
    /// for good (SwiftUI's `StoredLocation.wasRead`, which a binding's update sets; a
    /// `ProjectedLocation`'s `wasRead` is its base's).
    func markBound(_ target: BindingTarget) {
        guard case .place(.state(let serial, let index), _) = target, index < 64, let owner = viewsBySerial[serial] else { return }
        let old = owner.boundStates
        guard old & (1 << index) == 0 else { return }
        if !isBornInThisTransaction(owner) { journal.record(.boundStates(owner, old: old)) }
        owner.boundStates = old | (1 << index)
    }

    /// A control or sheet in `node`'s body bound to `path` (`Toggle(isOn: $toggle)`,
    /// `TextField(text: $user.name)`): the `@State` its first member names, or the one a
    /// `@Binding` there reaches, counts as read by its view from now on, as when a child holds a
    /// binding to it.
    func markBound(_ path: ReadPath, in node: ViewNode) {
        guard let index = node.variables.index(of: path.members[0]) else { return }
        switch node.variables[at: index].value {
        case .state, .object(_, .state): markBound(.place(.state(view: node.serial, variable: index), projection: []))
        case .binding(let target): markBound(target)
        default: break
        }
    }

    /// Takes the bindings its parent's evaluation passes now; whether any is another binding or
    /// carries another value (`@self`). A constant that now holds another value was also read,
    /// whether the body read it or not (SwiftUI's `ConstantLocation.wasRead` is always true), so
    /// the view is evaluated with `_<var>` too.
    func updateBindings(_ child: ViewNode, _ evaluated: EvaluatedDeclaration) -> Bool {
        var changed = false
        for (name, target) in evaluated.bindings {
            guard case .binding(let old)? = child.variables[name] else { continue }
            let passed = boundValue(of: target)
            let last = child.passedBindings[name]
            if old != target {
                setVariable(child, name, .binding(target))
                markBound(target)
                changed = true
                if case .constant = target, case .constant = old, !isBornInThisTransaction(child), let parent = child.parent {
                    queue(child, reason: UpdateReason.variable(name), .parent(parent))
                }
            } else if passed == .secure {
                // Rule 13: a secure value is never compared; a written one counts as changed.
                if case .place(let location, _) = target { changed = changed || pending.touched.contains(location) }
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

    /// What a binding reads now: the place's value, the part of it the binding projects, or the constant.
    func boundValue(of target: BindingTarget) -> Bound {
        switch target {
        case .constant(let value): return .value(value)
        case .place(let location, let projection):
            let whole = boundValue(at: location)
            guard !projection.isEmpty, case .value(let value) = whole else { return whole }
            return .value(BindingTarget.value(at: projection, in: value))
        }
    }

    /// A binding's source of truth: a `@State` or `@Binding` of the parent, a stored property of
    /// an object, or members inside the value of one of those (`$user.name`, `$items[0]`).
    func bindingTarget(
        _ members: [String], parent: ViewNode?, view: String, variable: String
    ) throws(EngineError)
        -> BindingTarget
    {
        let field = "bindings.\(variable)"
        guard let parent else { throw .invalidDeclaration(field: field, reason: "the root view has no parent", view: view) }
        let name = members[0]
        guard let index = parent.variables.index(of: name) else {
            throw .invalidDeclaration(field: field, reason: "\"$parent\": \"\(name)\" names no variable of \(parent.path)", view: view)
        }
        switch parent.variables[at: index].value {
        case .state: return .place(.state(view: parent.serial, variable: index), projection: Array(members.dropFirst()))
        case .binding(let target): return target.projecting(members.dropFirst())
        default:
            guard members.count >= 2 else {
                throw .invalidDeclaration(
                    field: field, reason: "\(name) of \(parent.path) is not a @State or @Binding; bind to one, or to object.property",
                    view: view)
            }
            let display = "\(parent.path).\(members.joined(separator: "."))"
            let (location, rest) = try writeTarget(KeyPath(root: .view(parent.path), members: members), display: display)
            if case .property(let id, let slot) = location, let record = objects[id], record.type.isComputed(slot) {
                throw .invalidDeclaration(field: field, reason: "\(display) is computed and cannot be bound", view: view)
            }
            return .place(location, projection: rest)
        }
    }
}

extension EngineError {
    /// A write through a `.constant(...)` binding, by a control (`binding`: `Toggle("x")'s
    /// binding`) or to a `@Binding` made with one. SwiftUI drops it silently (`ConstantLocation.set`
    /// does nothing); Milieu refuses it, a documented departure.
    static func constantBinding(path: String, _ binding: String) -> EngineError {
        .forbidden(path: path, .constant, "\(binding) is .constant(...), which cannot be written")
    }
}
