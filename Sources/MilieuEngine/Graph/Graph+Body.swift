import MilieuJSON

/// A control as the body's last evaluation left it (`view/controls`, `view/tap`, `view/input`).
struct ViewControl {
    let declaration: ControlDeclaration
    let label: String
    /// Disabled by a `disabled` of this view's own body; an ancestor's placement is checked when it is used.
    let disabled: Bool
    /// The locals where it is written (a row's element), which its steps see.
    let locals: [JSON]
}

/// What one evaluation of a body gives: its lines, its controls and the views it writes.
struct BodyOutput {
    var lines: [String] = []
    var controls: [ViewControl] = []
    var children: [BodyPlacement] = []
}

/// A child view the body writes, as this evaluation places it.
struct BodyPlacement {
    let child: BodyChild
    let evaluated: EvaluatedDeclaration
    /// The row's id for a view in a `forEach`, else its own `id`.
    let id: JSON?
    /// Why it is there: `mounted` (always written), `condition`, `row` or `presented`.
    let presence: MountReason
    /// The `transformEnvironment` and `disabled` content holding it, outermost first.
    let transforms: [PlacedTransform]

    var path: (String) -> String {
        { parent in ViewPath.child(of: parent, name: self.child.declaration.name, id: self.id) }
    }
}

extension Graph {
    /// Walks `node`'s body (SPEC §6.3): renders its lines, lists its controls and places the views
    /// it writes, reading through `recorder` (nil: a walk that only places views, after a link is tapped).
    func walkBody(_ node: ViewNode, recorder: ReadRecorder?) throws(EngineError) -> BodyOutput {
        var output = BodyOutput()
        output.lines.reserveCapacity(node.declaration.body.count)
        var locals: [JSON] = []
        try walk(node.declaration.body, node, recorder, &locals, Around(), into: &output)
        return output
    }

    /// What encloses the elements being walked: whether a `disabled` that is true does, the
    /// environment transforms (outermost first) and why the views there are there.
    private struct Around {
        var disabled = false
        var transforms: [PlacedTransform] = []
        var presence = MountReason.mounted
    }

    private func walk(
        _ elements: [BodyElement], _ node: ViewNode, _ recorder: ReadRecorder?, _ locals: inout [JSON], _ around: Around,
        into output: inout BodyOutput
    ) throws(EngineError) {
        let depth = locals.count
        defer { locals.removeLast(locals.count - depth) }
        for element in elements {
            switch element {
            case .template(let template):
                output.lines.append(try render(template, in: node, recorder: recorder))
            case .text(let expression):
                let (value, secret) = try evaluate(expression, in: node, recorder, locals)
                output.lines.append(secret ? "<secure>" : Self.text(of: value))
            case .child(let child):
                let evaluated = try evaluate(
                    child.declaration, literals: child.literals, parent: node, recorder: recorder, locals: locals)
                output.children.append(
                    BodyPlacement(
                        child: child, evaluated: evaluated, id: evaluated.id, presence: around.presence, transforms: around.transforms))
            case .branch(let condition, let then, let otherwise, let pointer):
                let taken = try self.condition(condition, in: node, recorder, locals, at: pointer)
                var inside = around
                if inside.presence == .mounted { inside.presence = .condition }
                try walk(taken ? then : otherwise, node, recorder, &locals, inside, into: &output)
            case .rows(let rows):
                try walkRows(rows, node, recorder, &locals, around, into: &output)
            case .local(let expression):
                locals.append(try evaluate(expression, in: node, recorder, locals).value)
            case .control(let control):
                let (label, _) = try evaluate(control.label, in: node, recorder, locals)
                let text = Self.text(of: label)
                output.controls.append(ViewControl(declaration: control, label: text, disabled: around.disabled, locals: locals))
                if case .bind(.path(_, let path)) = control.use { try bindControl(path, in: node, recorder) }
                output.lines.append(Self.line(control.kind, text, disabled: around.disabled))
                if case .navigate(let destination) = control.use, node.activeLinks.contains(control.pointer) {
                    var inside = around
                    inside.presence = .presented
                    try walk(destination, node, recorder, &locals, inside, into: &output)
                }
            case .disabled(let condition, let content, let pointer):
                let off = try self.condition(condition, in: node, recorder, locals, at: pointer)
                var inside = around
                inside.disabled = around.disabled || off
                inside.transforms.append(
                    PlacedTransform(key: PlacedTransform.isEnabled, rule: .disabled(condition), locals: locals, pointer: pointer))
                try walk(content, node, recorder, &locals, inside, into: &output)
            case .transform(let key, let expression, let content, let pointer):
                // Evaluated here too, so that what it reads of this view is this body's dependency
                // and a value that does not fit the key fails the evaluation that placed it.
                let inherited = try transformed(
                    try contentEnvironmentValue(key, of: node).value, key: key, through: around.transforms, writer: node)
                let (value, secret) = try evaluate(expression, in: node, recorder, locals + [inherited])
                if secret {
                    throw .invalidDeclaration(
                        field: "body", reason: "transformEnvironment at \(pointer) reads a secure value, which every view below would see",
                        view: node.path)
                }
                _ = try checkedEnvironmentValue(key, value, field: "body", view: node.path)
                var inside = around
                inside.transforms.append(PlacedTransform(key: key, rule: .transform(expression), locals: locals, pointer: pointer))
                try walk(content, node, recorder, &locals, inside, into: &output)
            case .presentation(let presentation):
                if case .path(_, let path) = presentation.isPresented { markBound(path, in: node) }
                guard try isPresented(presentation.isPresented, in: node, recorder, locals) else { continue }
                var inside = around
                inside.presence = .presented
                try walk(presentation.content, node, recorder, &locals, inside, into: &output)
            }
        }
    }

    /// `forEach`: the content once per element, each view in it identified by the element's id.
    private func walkRows(
        _ rows: Rows, _ node: ViewNode, _ recorder: ReadRecorder?, _ locals: inout [JSON], _ around: Around,
        into output: inout BodyOutput
    ) throws(EngineError) {
        let (value, _) = try evaluate(rows.elements, in: node, recorder, locals)
        guard case .array(let elements) = value else {
            throw .typeMismatch(path: "\(node.path) body \(rows.pointer)", expected: "array", actual: value.kindName)
        }
        var seen: Set<JSON> = []
        for element in elements {
            let id = try rowID(of: element, rows, in: node, recorder)
            switch id {
            case .string, .int, .bool: break
            default:
                throw .typeMismatch(
                    path: "\(node.path) body \(rows.pointer)", expected: "an id that is a string, an integer or a boolean",
                    actual: id.kindName)
            }
            guard seen.insert(id).inserted else {
                throw .invalidDeclaration(
                    field: "body", reason: "forEach at \(rows.pointer) has two elements with the id \(id.jsonText)", view: node.path)
            }
            locals.append(element)
            var row = BodyOutput()
            var inside = around
            inside.presence = .row
            try walk(rows.content, node, recorder, &locals, inside, into: &row)
            locals.removeLast()
            output.lines += row.lines
            output.controls += row.controls
            for placed in row.children {
                guard placed.child.declaration.id == nil else {
                    throw .invalidDeclaration(
                        field: "body", reason: "a view in forEach takes its id from the element; it cannot have its own", view: node.path)
                }
                output.children.append(
                    BodyPlacement(
                        child: placed.child, evaluated: placed.evaluated, id: id, presence: placed.presence, transforms: placed.transforms))
            }
        }
    }

    /// A row's id: the element itself (`id: \.self`), or its member. An element that names an
    /// object (`ForEach(todos)` over `Identifiable` objects) has its id read through the object,
    /// tracked as any read of the body is: a new id re-keys the row.
    private func rowID(of element: JSON, _ rows: Rows, in node: ViewNode, _ recorder: ReadRecorder?) throws(EngineError) -> JSON {
        guard let member = rows.idMember else { return element }
        guard case .string(let name) = element, let record = objectsByName[name] else {
            return ExpressionEvaluation.member(member, of: element)
        }
        let place = "\(node.path) body \(rows.pointer)"
        switch try self.member(
            member, of: .object(record.serial), recorder: recorder, reason: "\(rows.element).\(member)", display: place)
        {
        case .value(let value): return value
        case .object(let id): return .string(objects[id]?.name ?? "")
        case .secure:
            throw .invalidDeclaration(
                field: "body", reason: "forEach at \(rows.pointer) keys rows by \(record.type.name).\(member), which is secure",
                view: node.path)
        }
    }

    /// A body expression's value and whether it read a secure value on the way (then a line shows `<secure>`).
    func evaluate(
        _ expression: TypeExpression, in node: ViewNode, _ recorder: ReadRecorder?, _ locals: [JSON]
    ) throws(EngineError) -> (value: JSON, secret: Bool) {
        var secret = false
        var scope = ExpressionScope()
        scope.locals = locals
        scope.read = { [unowned self] path throws(EngineError) in
            let (value, secure) = try self.expressionRead(path, in: node, recorder: recorder)
            if secure { secret = true }
            return value
        }
        if !locals.isEmpty {
            // Only a local reads through an object: without locals, no closure to make.
            scope.objectMember = { [unowned self] id, member, reason throws(EngineError) in
                guard let (value, secure) = try self.localObjectMember(id, member, in: node, recorder: recorder, reason: reason)
                else { return nil }
                if secure { secret = true }
                return value
            }
        }
        var evaluation = ExpressionEvaluation(scope: scope, limits: BodyParser.limits, place: node.path, budget: budget)
        let value = try evaluation.evaluate(expression)
        return (value, secret)
    }

    private func condition(
        _ expression: TypeExpression, in node: ViewNode, _ recorder: ReadRecorder?, _ locals: [JSON], at pointer: String
    ) throws(EngineError) -> Bool {
        let (value, _) = try evaluate(expression, in: node, recorder, locals)
        guard case .bool(let flag) = value else {
            throw .typeMismatch(path: "\(node.path) body \(pointer)", expected: "bool", actual: value.kindName)
        }
        return flag
    }

    /// Whether a sheet's bound value is true: read as the body reads it.
    private func isPresented(
        _ binding: BindingExpression, in node: ViewNode, _ recorder: ReadRecorder?, _ locals: [JSON]
    ) throws(EngineError) -> Bool {
        switch binding {
        case .constant(let expression): return try evaluate(expression, in: node, recorder, locals).value == true
        case .path(_, let path): return try expressionRead(path, in: node, recorder: recorder).value == true
        }
    }

    /// A key path from a view's variable, as a value: an object as its id, a secure value as
    /// itself with `secure` set, so that an expression may use it and a line never shows it.
    func expressionRead(_ path: ReadPath, in node: ViewNode, recorder: ReadRecorder?) throws(EngineError) -> (value: JSON, secure: Bool) {
        let display = "\(node.path).\(path.text)"
        switch try read(path, in: node, recorder: recorder, display: display) {
        case .value(let value): return (value, false)
        case .object(let id): return (.string(objects[id]?.name ?? ""), false)
        case .secure:
            // Only an object's property is secure: read the owner (already tracked), then the slot.
            let owner = try read(try ReadPath(Array(path.members.dropLast())), in: node, recorder: nil, display: display)
            guard case .object(let id) = owner, let record = objects[id], let slot = record.type.slots[path.members[path.members.count - 1]]
            else { return (.null, true) }
            return (record.values[slot], true)
        }
    }

    /// A member of the object a local holds (`todo.title` in a `forEach` over objects), read
    /// through the object as a key path is (`recorder` notes it, with `reason`); a secure value as
    /// itself with `secure` set. Nil when `id` names no object: the local holds a plain string.
    func localObjectMember(
        _ id: String, _ member: String, in node: ViewNode, recorder: ReadRecorder?, reason: () -> String
    ) throws(EngineError) -> (value: JSON, secure: Bool)? {
        guard let record = objectsByName[id] else { return nil }
        switch try self.member(
            member, of: .object(record.serial), recorder: recorder, reason: reason(), display: "\(node.path) \(reason())")
        {
        case .value(let value): return (value, false)
        case .object(let held): return (.string(objects[held]?.name ?? ""), false)
        case .secure: return (record.type.slots[member].map { record.values[$0] } ?? .null, true)
        }
    }

    /// A control bound to `path` (`$toggle`, `$user.name`): a `@State` of the view counts as read
    /// from now on (`markBound`); a `@Binding` of the view is read, as the control reads it
    /// through the view's binding (SwiftUI's `Binding` box reports a change once its location was
    /// read: `_isOn`), the whole binding for a control bound into its value.
    private func bindControl(_ path: ReadPath, in node: ViewNode, _ recorder: ReadRecorder?) throws(EngineError) {
        markBound(path, in: node)
        guard case .binding? = node.variables[path.members[0]] else { return }
        let head = path.members.count == 1 ? path : try ReadPath([path.members[0]])
        _ = try read(head, in: node, recorder: recorder, display: "\(node.path).\(head.text)")
    }

    /// What a line shows of a value: a string as itself, anything else as JSON.
    static func text(of value: JSON) -> String {
        if case .string(let text) = value { return text }
        return value.jsonText
    }

    /// How a body shows a control: `Button("로그인")`, with `.disabled(true)` when it is.
    static func line(_ kind: ControlDeclaration.Kind, _ label: String, disabled: Bool) -> String {
        var line = kind.swiftName + "(" + JSON.string(label).jsonText + ")"
        if disabled { line += ".disabled(true)" }
        return line
    }

    /// Mounts, keeps and unmounts the views `node`'s body writes, as its evaluation placed them:
    /// a view kept at its place takes what the body passes now; one whose place or id went is
    /// unmounted with why (`condition`, `row`, `dismissed`, or `identity` for a new id); a new one
    /// is mounted in body order.
    func placeBodyChildren(_ node: ViewNode, _ placements: [BodyPlacement]) throws(EngineError) {
        var existing: [String: ViewNode] = [:]
        for child in node.children where child.declaration.inBody { existing[child.path] = child }
        guard !existing.isEmpty || !placements.isEmpty else { return }
        var wanted: [(path: String, placement: BodyPlacement)] = []
        wanted.reserveCapacity(placements.count)
        var paths: Set<String> = []
        for placement in placements {
            let path = placement.path(node.path)
            guard paths.insert(path).inserted else { throw .duplicateView(path) }
            wanted.append((path, placement))
        }
        // Which declarations are still written: one at a place that is gone with another id is an id change.
        let written = Set(placements.map { ObjectIdentifier($0.child.declaration) })
        for (path, child) in existing where !paths.contains(path) {
            let reason: UnmountReason =
                if child.presence == .row {
                    .row
                } else if child.presence == .presented {
                    .dismissed
                } else if written.contains(ObjectIdentifier(child.declaration)) && child.explicitID != nil {
                    .identity
                } else {
                    .condition
                }
            teardown(child, reason: reason)
        }
        var previous: ViewNode?
        for (path, placement) in wanted {
            if let kept = existing[path], kept.isMounted {
                move(kept, after: previous)
                try setPlacedTransforms(kept, placement.transforms)
                try reconcile(kept, with: placement.evaluated)
                previous = kept
                continue
            }
            let changedID =
                placement.presence != .row && placement.id != nil
                && existing.values.contains { $0.declaration === placement.child.declaration && !$0.isMounted }
            let arrival: MountReason = node.arrival == .identity || changedID ? .identity : placement.presence
            let built = try buildNode(
                placement.child.declaration, literals: placement.child.literals, parent: node, explicitID: placement.id,
                owner: node.owner, evaluated: placement.evaluated, after: previous, atEnd: false, arrival: arrival,
                transforms: placement.transforms)
            built.presence = placement.presence
            previous = built
        }
    }
}

extension Graph {
    /// The line `Self._printChanges()` prints for this evaluation (SPEC §6.6), from Milieu's reasons:
    /// `@self` and `@identity`, then each dynamic property that changed as `_name`, in the struct's
    /// order (`fields`), then `@dependencies` for an `@Observable` property read. A new identity
    /// lists `@self`, `@identity` and every dynamic property, as SwiftUI's first update does.
    static func printChangesLine(_ declaration: ViewDeclaration, reasons: [String], isNew: Bool, fields: [String]) -> String {
        var parts: [String] = []
        // A view with no dynamic property has a static body in SwiftUI, whose only meta property
        // is `@self`: it never prints `@identity` (OpenSwiftUI's StaticBody and DynamicBody).
        let hasIdentity = !declaration.dynamicProperties.isEmpty
        if isNew {
            parts = [UpdateReason.parent] + (hasIdentity ? [UpdateReason.identity] : []) + fields.map(UpdateReason.variable)
        } else {
            var changed: Set<String> = []
            var dependencies = false
            for reason in reasons {
                switch UpdateReason.Group(reason) {
                case .parent, .identity: continue
                case .variable: changed.insert(String(reason.dropFirst()))
                case .property: dependencies = true
                case .environment:
                    let key = String(reason.dropFirst(4))
                    changed.insert(declaration.environment.first { $0.key == key }?.name ?? key)
                }
            }
            if reasons.contains(UpdateReason.parent) { parts.append(UpdateReason.parent) }
            if hasIdentity, reasons.contains(UpdateReason.identity) { parts.append(UpdateReason.identity) }
            for field in fields where changed.contains(field) { parts.append(UpdateReason.variable(field)) }
            for name in changed.sorted() where !fields.contains(name) { parts.append(UpdateReason.variable(name)) }
            if dependencies { parts.append("@dependencies") }
        }
        return declaration.typeName + (parts.isEmpty ? ": unchanged." : ": " + parts.joined(separator: ", ") + " changed.")
    }

    /// The `_printChanges` line of the view at `path` for an evaluation with `reasons`, whether or
    /// not its body calls `Self._printChanges()`: with its declared fields, or its dynamic
    /// properties in declaration order. Nil when no view is mounted there. For `watch`'s
    /// `printChanges` (SPEC §10.1), asked right after the commit that evaluated the view.
    public func printChangesLine(of path: String, reasons: [String], isNew: Bool) -> String? {
        guard let declaration = views[path]?.declaration else { return nil }
        return Self.printChangesLine(
            declaration, reasons: reasons, isNew: isNew, fields: declaration.printChanges ?? declaration.dynamicProperties)
    }
}
