import MilieuJSON

/// Controls (SPEC §6.5): what a view's body shows that a user can press or type into. A button
/// runs its steps, a field, toggle, stepper or picker writes through its binding, a navigation
/// link shows its destination; each is one transaction (rule 14), found by view and label.
extension Graph {
    /// A control as `view/controls` lists it: its kind, label, whether it is disabled, and what
    /// a bound one holds now (nil for a secure value, which is never shown).
    public struct ControlSnapshot: Sendable, Equatable {
        public let kind: String
        public let label: String
        public let disabled: Bool
        /// The bound value; absent for a button or link, nil (`redacted`) for a secure one.
        public let value: JSON??
        public let options: [JSON]?
        public let range: [Int]?
    }

    /// The controls of the view at `path`, as its body's last evaluation showed them, and the view's canonical path.
    public func controls(of path: String) throws(EngineError) -> (path: String, controls: [ControlSnapshot]) {
        let node = try mountedView(path)
        let placed = try !isEnabled(node)
        return (
            node.path,
            try node.controls.map { control throws(EngineError) in
                var value: JSON??
                var options: [JSON]?
                if case .bind(let binding) = control.declaration.use {
                    // A SecureField shows dots, whatever it is bound to: its value is never listed.
                    value = .some(
                        control.declaration.kind == .secureField ? nil : try boundControlValue(binding, in: node, control.locals))
                }
                if let expression = control.declaration.options,
                    case .array(let choices) = try evaluate(expression, in: node, nil, control.locals).value
                {
                    options = choices
                }
                return ControlSnapshot(
                    kind: control.declaration.kind.rawValue, label: control.label, disabled: control.disabled || placed, value: value,
                    options: options, range: control.declaration.range.map { [$0.min, $0.max] })
            }
        )
    }

    private func boundControlValue(_ binding: BindingExpression, in node: ViewNode, _ locals: [JSON]) throws(EngineError) -> JSON? {
        switch binding {
        case .constant(let expression):
            let (value, secret) = try evaluate(expression, in: node, nil, locals)
            return secret ? nil : value
        case .path(_, let path):
            let (value, secure) = try expressionRead(path, in: node, recorder: nil)
            return secure ? nil : value
        }
    }

    /// `view/tap`: runs the button labelled `label` (its steps as one action), or shows or hides
    /// a navigation link's destination.
    func tapOperation(_ path: String, label: String) throws(EngineError) {
        let (node, control) = try control(label, in: path)
        switch control.declaration.use {
        case .run(let steps):
            try run(steps, in: node, locals: control.locals, place: "\(node.path) \(control.label)")
        case .navigate:
            var links = node.activeLinks
            if links.remove(control.declaration.pointer) == nil { links.insert(control.declaration.pointer) }
            journal.record(.activeLinks(node, old: node.activeLinks))
            node.activeLinks = links
            pending.structural = true
            try placeAgain(node)
        case .bind:
            throw .invalidParams(
                pointer: "/label",
                "\(Self.line(control.declaration.kind, control.label, disabled: false)) is not a button; write it with view/input")
        }
    }

    /// Runs a control's `steps` in `node` as one action: key paths from its variables, `locals` first.
    private func run(_ steps: [ActionStep], in node: ViewNode, locals: [JSON], place: String) throws(EngineError) {
        var scope = ExpressionScope()
        scope.locals = locals
        scope.now = clock
        scope.read = { [unowned self] path throws(EngineError) in try self.actionRead("\(node.path).\(path.text)") }
        if !locals.isEmpty {
            scope.objectMember = { [unowned self] id, member, reason throws(EngineError) in
                try self.localObjectMember(id, member, in: node, recorder: nil, reason: reason)?.value
            }
        }
        var evaluation = ExpressionEvaluation(scope: scope, limits: BodyParser.limits, place: place, budget: budget)
        _ = try evaluation.run(steps, writingTo: ActionContext(graph: self, view: node))
    }

    /// A closure a parent passed, called by the view holding it (`onTap()`): its steps run in the
    /// view whose body wrote it, over that view's variables as they are now, within the caller's action.
    func run(_ bound: BoundClosure, _ arguments: [JSON], calledBy path: String) throws(EngineError) {
        guard let writer = viewsBySerial[bound.writer] else { throw .unknownPath(path, "the view that passed the closure is gone") }
        let parameters = bound.closure.parameters
        guard arguments.count == parameters.count else {
            throw .invalidParams(
                pointer: "/args",
                "\(path) takes \(parameters.count) argument\(parameters.count == 1 ? "" : "s")"
                    + (parameters.isEmpty ? "" : " (\(parameters.joined(separator: ", ")))") + ", not \(arguments.count)")
        }
        try run(bound.closure.steps, in: writer, locals: bound.locals + arguments, place: "\(path) (a closure of \(writer.path))")
    }

    /// `view/input`: writes `value` through the binding of the field, toggle, stepper or picker labelled `label`.
    func inputOperation(_ path: String, label: String, value: JSON) throws(EngineError) {
        let (node, control) = try control(label, in: path)
        let declaration = control.declaration
        let shown = Self.line(declaration.kind, control.label, disabled: false)
        guard case .bind(let binding) = declaration.use else {
            throw .invalidParams(pointer: "/label", "\(shown) is not a field, toggle, stepper or picker; press it with view/tap")
        }
        switch declaration.kind {
        case .textField, .secureField:
            guard case .string = value else { throw .invalidParams(pointer: "/value", "\(shown) takes a string, not \(value.kindName)") }
        case .toggle:
            guard case .bool = value else { throw .invalidParams(pointer: "/value", "\(shown) takes true or false, not \(value.kindName)") }
        case .stepper:
            guard let number = value.intValue else {
                throw .invalidParams(pointer: "/value", "\(shown) takes an integer, not \(value.kindName)")
            }
            if let (low, high) = declaration.range, !(low...high).contains(number) {
                throw .invalidParams(pointer: "/value", "\(shown) steps within \(low)...\(high)")
            }
        case .picker:
            if let expression = declaration.options,
                case .array(let choices) = try evaluate(expression, in: node, nil, control.locals).value,
                !choices.contains(where: { ExpressionEvaluation.equal($0, value) })
            {
                throw .invalidParams(pointer: "/value", "\(shown) offers " + choices.map(\.jsonText).joined(separator: ", "))
            }
        case .button, .navigationLink: break
        }
        switch binding {
        case .constant:
            throw .constantBinding(path: node.path, "\(shown)'s binding")
        case .path(let text, _):
            try setOperation("\(node.path).\(text)", value, ifVersion: nil)
        }
    }

    /// The control labelled `label` of the view at `path`, enabled; `label#n` picks the n-th of several.
    private func control(_ label: String, in path: String) throws(EngineError) -> (ViewNode, ViewControl) {
        let node = try mountedView(path)
        var wanted = label
        var ordinal = 1
        var matches = node.controls.filter { $0.label == label }
        if matches.isEmpty, let hash = label.lastIndex(of: "#"), let n = Int(label[label.index(after: hash)...]), n >= 1 {
            wanted = String(label[..<hash])
            ordinal = n
            matches = node.controls.filter { $0.label == wanted }
        }
        guard !matches.isEmpty else {
            let known = node.controls.map { JSON.string($0.label).jsonText }.joined(separator: ", ")
            throw .unknownControl(
                view: node.path,
                "\(node.path) has no control labelled \(JSON.string(label).jsonText); it has \(known.isEmpty ? "none" : known)")
        }
        guard matches.count == 1 || matches.count >= ordinal && wanted != label else {
            throw .invalidParams(
                pointer: "/label",
                "\(node.path) has \(matches.count) controls labelled \(JSON.string(wanted).jsonText); name one as \(wanted)#1 to \(wanted)#\(matches.count)"
            )
        }
        guard ordinal <= matches.count else {
            throw .unknownControl(view: node.path, "\(node.path) has \(matches.count) controls labelled \(JSON.string(wanted).jsonText)")
        }
        let control = matches[ordinal - 1]
        let enabled = try isEnabled(node)
        if control.disabled || !enabled {
            let why =
                control.disabled
                ? "(.disabled(true) where it is placed)"
                : "(isEnabled is false in \(node.path)'s environment: a .disabled(true) around it, or .environment(\\.isEnabled, false))"
            throw .forbidden(
                path: node.path, .disabled, "\(Self.line(control.declaration.kind, control.label, disabled: false)) is disabled \(why)")
        }
        return (node, control)
    }

    /// A control's read of a key path (absolute): the value, a secure one too, since an action may
    /// use it; an object as its id.
    func actionRead(_ path: String) throws(EngineError) -> JSON {
        let keyPath = try parsedKeyPath(path)
        switch try resolve(keyPath, display: path) {
        case .value(let value): return value
        case .object(let id): return .string(objects[id]?.name ?? "")
        case .secure:
            let owner = try resolve(KeyPath(root: keyPath.root, members: Array(keyPath.members.dropLast())), display: path)
            guard case .object(let id) = owner, let record = objects[id], let name = keyPath.members.last,
                let slot = record.type.slots[name]
            else { return .null }
            return record.values[slot]
        }
    }

    /// `vm = Model(...)` in a control's action: the `@State` `variable` of `node` holds a new object;
    /// the old one goes (`replaced`), and the view, which read the state, is evaluated again (`_vm`).
    func replaceStateObject(_ node: ViewNode, variable: String, type: String, arguments: JSONObject) throws(EngineError) {
        guard let index = node.variables.index(of: variable) else { throw .unknownPath("\(node.path).\(variable)", "no such variable") }
        let old: ObjectSerial?
        switch node.variables[at: index].value {
        case .object(let id, .state): old = id
        case .state(.null, _): old = nil
        default:
            throw .typeMismatch(path: "\(node.path).\(variable)", expected: "a @State that holds an object", actual: "a value")
        }
        let record = try createObject(type, initial: arguments, owner: (node, variable), reason: .state, field: "\(variable).new.init")
        hold(record.serial)
        let oldName = old.flatMap { objects[$0]?.name }
        if let old { releaseHeld(old, by: node, variable: variable, ownerReason: .replaced) }
        let location = Location.state(view: node.serial, variable: index)
        pending.touch(location, original: oldName.map(JSON.string) ?? .null, changed: true)
        setVariable(node, variable, .object(record.serial, .state))
    }
}
