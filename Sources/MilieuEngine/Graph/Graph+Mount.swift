import MilieuJSON

/// A declaration's `$parent` and `$input` references, evaluated against its parent as the
/// parent is now: at mount, and again each time the parent's body is evaluated.
struct EvaluatedDeclaration {
    var id: JSON?
    var inputs: [(name: String, value: Initial)] = []
    /// Initial @State values: used only when the identity is created (rule 3), though a `$new`
    /// is made at every evaluation (rule 18).
    var state: [(name: String, value: Initial)] = []
    var bindings: [(name: String, target: BindingTarget)] = []
    var stateObjects: [(name: String, arguments: JSONObject)] = []
    var observed: [(name: String, source: Observed)] = []

    enum Observed {
        case construct(type: String, arguments: JSONObject)
        case object(ObjectSerial)
    }

    /// What an input or a @State starts from: a value or object bound now, an object to make
    /// (`$new`), or a closure the parent passes (an input's `$closure`).
    enum Initial {
        case bound(Bound)
        case new(type: String, arguments: JSONObject)
        case closure(BoundClosure)
    }
}

/// A closure as a parent's evaluation passes it: its steps, the view whose body wrote them, in
/// which they run, and the locals where the child is written (a row's element).
struct BoundClosure {
    let closure: ViewClosure
    let writer: ViewSerial
    let locals: [JSON]
}

extension Graph {
    /// `locals` are those of the parent's body where a view written in it is (`$expr` reads them).
    func evaluate(
        _ declaration: ViewDeclaration, literals: ViewLiterals, parent: ViewNode?, recorder: ReadRecorder?, locals: [JSON] = []
    )
        throws(EngineError) -> EvaluatedDeclaration
    {
        /// The view named in errors, built only when one is thrown.
        func view() -> String { ViewPath.child(of: parent?.path ?? declaration.parent, name: declaration.name, id: nil) }
        var inputs: [String: Bound] = [:]
        var visiting: Set<String> = []

        func input(_ name: String) throws(EngineError) -> Bound {
            if let done = inputs[name] { return done }
            guard
                let expression = declaration.inputs.first(where: { $0.name == name })?.value
                    ?? declaration.arguments.first(where: { $0.name == name })?.value
            else {
                throw .invalidDeclaration(
                    field: "$input", reason: "\"$input\": \"\(name)\" names no input or argument of the view", view: view())
            }
            if case .new = expression {
                throw .invalidDeclaration(
                    field: "inputs.\(name)", reason: "\"$input\": \"\(name)\" names an object made with $new; make it where it is used",
                    view: view())
            }
            if case .closure = expression {
                throw .invalidDeclaration(
                    field: "inputs.\(name)", reason: "\"$input\": \"\(name)\" names a closure, which has no value", view: view())
            }
            guard visiting.insert(name).inserted else {
                throw .invalidDeclaration(
                    field: "inputs.\(name)", reason: "inputs refer to each other in a cycle through \(name)", view: view())
            }
            let value = try evaluate(expression)
            inputs[name] = value
            return value
        }

        func evaluate(_ expression: ValueExpression) throws(EngineError) -> Bound {
            switch expression {
            case .literal(let slot): return .value(literals[slot])
            case .constant(let value): return .value(value)
            case .new, .closure: preconditionFailure("$new and $closure are inputs' and states', evaluated by initial()")
            case .input(let name): return try input(name)
            case .computed(let expression):
                guard let parent else {
                    throw .invalidDeclaration(field: "$expr", reason: "the root view has no parent", view: view())
                }
                let (value, secret) = try self.evaluate(expression, in: parent, recorder, locals)
                if secret {
                    throw .invalidDeclaration(
                        field: "$expr",
                        reason: "the expression reads a secure value, which cannot be copied into a view; bind to it instead",
                        view: view())
                }
                if case .string(let name) = value, let record = objectsByName[name] { return .object(record.serial) }
                return .value(value)
            case .parent(let path):
                let members = path.members
                guard let parent else {
                    throw .invalidDeclaration(field: "$parent", reason: "the root view has no parent", view: view())
                }
                guard parent.variables[members[0]] != nil else {
                    throw .invalidDeclaration(
                        field: "$parent",
                        reason: "\"$parent\": \"\(members.joined(separator: "."))\" names no variable of \(parent.path)",
                        view: view())
                }
                let bound = try read(path, in: parent, recorder: recorder, display: "\(parent.path).\(path.text)")
                if bound == .secure {
                    throw .invalidDeclaration(
                        field: "$parent",
                        reason:
                            "\(parent.path).\(members.joined(separator: ".")) is secure and cannot be copied into a view; bind to it instead",
                        view: view())
                }
                return bound
            }
        }

        func value(_ expression: ValueExpression) throws(EngineError) -> JSON {
            switch try evaluate(expression) {
            case .value(let value): return value
            case .object(let id): return .string(objects[id]?.name ?? "")
            case .secure: return .null
            }
        }

        var result = EvaluatedDeclaration()
        if let id = declaration.id {
            let evaluated = try value(id)
            switch evaluated {
            case .string, .int, .bool: result.id = evaluated
            default:
                throw .invalidDeclaration(
                    field: "id", reason: "an id is a string, an integer or a boolean, not \(evaluated.kindName)", view: view())
            }
        }
        /// A closure the parent writes here, or one of its own closures it passes on.
        func closure(_ expression: ValueExpression) throws(EngineError) -> BoundClosure? {
            switch expression {
            case .closure(let closure):
                guard let parent else { throw .invalidDeclaration(field: "$closure", reason: "the root view has no parent", view: view()) }
                return BoundClosure(closure: closure, writer: parent.serial, locals: locals)
            case .parent(let path) where path.members.count == 1:
                guard case .closure(let passed)? = parent?.variables[path.members[0]] else { return nil }
                return passed
            default: return nil
            }
        }
        func initial(_ expression: ValueExpression) throws(EngineError) -> EvaluatedDeclaration.Initial {
            guard case .new(let initializer) = expression else { return .bound(try evaluate(expression)) }
            return .new(type: initializer.type, arguments: try arguments(initializer, value))
        }
        for (name, expression) in declaration.inputs {
            if let closure = try closure(expression) {
                result.inputs.append((name, .closure(closure)))
                continue
            }
            result.inputs.append((name, try expression.isNew ? initial(expression) : .bound(try input(name))))
        }
        for (name, expression) in declaration.state { result.state.append((name, try initial(expression))) }
        for (name, source) in declaration.bindings {
            switch source {
            case .parent(let members):
                result.bindings.append((name, try bindingTarget(members, parent: parent, view: view(), variable: name)))
            case .constant(let expression): result.bindings.append((name, .constant(try value(expression))))
            }
        }
        for (name, initializer) in declaration.stateObjects {
            result.stateObjects.append((name, try arguments(initializer, value)))
        }
        for (name, source) in declaration.observedObjects {
            switch source {
            case .construct(let initializer):
                result.observed.append((name, .construct(type: initializer.type, arguments: try arguments(initializer, value))))
            case .object(let objectName):
                guard let record = objectsByName[objectName] else {
                    throw .unknownPath(objectName, "no object \(objectName) for observed object \(name) of \(view())")
                }
                result.observed.append((name, .object(record.serial)))
            case .passed(let expression):
                guard case .object(let id) = try evaluate(expression) else {
                    throw .invalidDeclaration(
                        field: "observedObjects.\(name)", reason: "the observed object is not an object", view: view())
                }
                result.observed.append((name, .object(id)))
            }
        }
        return result
    }

    private func arguments(
        _ initializer: ObjectInitializer, _ value: (ValueExpression) throws(EngineError) -> JSON
    )
        throws(EngineError) -> JSONObject
    {
        var arguments = JSONObject()
        for (name, expression) in initializer.arguments { arguments[name] = try value(expression) }
        return arguments
    }

    /// `view/mount`: the view is created now; its body is evaluated when the transaction propagates.
    func mountOperation(_ json: JSON, owner: ConnectionID?, fromScene: Bool = false) throws(EngineError) -> ViewNode {
        let (declaration, values) = try declarations.declaration(json, templates: templates)
        let literals = ViewLiterals(values)
        guard let parent = try parentView(declaration) else {
            throw noView(at: declaration.parent, named: declaration.parent, "no view is mounted there to be the parent")
        }
        recorder.start(for: parent)
        let evaluated = try evaluate(declaration, literals: literals, parent: parent, recorder: recorder)
        let node = try buildNode(
            declaration, literals: literals, parent: parent, explicitID: evaluated.id, owner: owner, evaluated: evaluated)
        if declaration.retain && !fromScene { node.durableDeclaration = withoutSecureValues(json, declaration) }
        addDependencies(parent, recorder.take())
        return node
    }

    /// The mounted view `declaration` names as its parent. A path as the tree spells it is found
    /// directly; any other spelling is checked and made canonical first.
    private func parentView(_ declaration: ViewDeclaration) throws(EngineError) -> ViewNode? {
        if let parent = views.find(declaration.parent) { return parent }
        return views.find(try ViewPath.split(declaration.parent).view)
    }

    /// Creates a view identity: each wrapper installs its variables (`Wrappers/`), then what it
    /// provides and what it reads from the environment (rules 3–8, 16–18).
    func buildNode(
        _ declaration: ViewDeclaration, literals: ViewLiterals, parent: ViewNode?, explicitID: JSON?, owner: ConnectionID?,
        evaluated: EvaluatedDeclaration, after previous: ViewNode? = nil, atEnd: Bool = true,
        arrival: MountReason = .mounted, transforms: [PlacedTransform] = []
    ) throws(EngineError) -> ViewNode {
        let node = ViewNode(
            serial: makeSerial(), declaration: declaration, literals: literals, parent: parent, explicitID: explicitID,
            owner: owner)
        node.version = version.next
        try link(node, after: previous, atEnd: atEnd)
        if let parent, !transforms.isEmpty {
            // Before the environment is read: what the transforms around its place give it.
            node.placedTransforms = transforms
            node.transformResults = try transformResults(transforms, parent: parent)
        }
        let made: CreationReason? = parent == nil ? .app : arrival == .identity ? .identity : nil
        try installInputs(node, evaluated)
        try installState(node, evaluated, made: made)
        installBindings(node, evaluated)
        try installStateObjects(node, evaluated, made: made)
        try installObservedObjects(node, evaluated)
        try installEnvironment(node)
        try checkBodyReads(node)
        node.arrival = arrival
        pending.queue.addArrival(node)
        return node
    }

    /// Refuses a body that reads a property its object's type does not have, before anything is shown.
    private func checkBodyReads(_ node: ViewNode) throws(EngineError) {
        for template in ViewDeclaration.templates(in: node.declaration.body) {
            for (variable, member) in template.memberReads {
                guard let id = node.variables[variable]?.object, let type = objects[id]?.type else { continue }
                guard type.slots[member] != nil else {
                    throw .invalidDeclaration(
                        field: "body", reason: "\"\(template.source)\" reads \(member), which \(type.name) does not have",
                        view: node.path)
                }
            }
        }
    }

    /// `view/unmount`.
    func unmountOperation(_ path: String) throws(EngineError) {
        let canonical = try ViewPath.split(path).view
        guard let node = views[canonical] else { throw noView(at: canonical, named: path, "no view is mounted there") }
        guard node.parent != nil else { throw .forbidden(path: path, .root, "the root view cannot be unmounted") }
        guard !node.declaration.inBody else {
            throw .forbidden(
                path: path, .body,
                "\(node.path) is written in its parent's body, which mounts and unmounts it; change what its place depends on")
        }
        teardown(node, reason: .unmounted)
    }

    /// Removes `node` and its subtree, children first and siblings in mount order, releasing
    /// what they hold (rules 3 and 15): all of it, or the first `limit` views of that order, so
    /// that a large subtree can go over several transactions. Returns how many views went.
    @discardableResult
    func teardown(_ node: ViewNode, reason: UnmountReason, upTo limit: Int = .max) -> Int {
        let objectReason: DestructionReason = reason == .identity ? .identity : .ownerUnmounted
        var removed = 0
        while removed < limit, node.isMounted {
            // The deepest first descendant is the next in children-first order: found from the
            // top each time (at most the tree's depth), so nothing of the subtree is listed first.
            var current = node
            while let child = current.firstChild { current = child }
            for (name, variable) in current.variables {
                switch variable {
                case .object(let id, .stateObject), .object(let id, .observedObject), .object(let id, .state), .inputObject(let id):
                    releaseHeld(id, by: current, variable: name, ownerReason: objectReason)
                default: break
                }
            }
            for id in current.heldByModifiers { release(id, reason: .released) }
            setDependencies(current, DependencySet())
            remove(current)
            removed += 1
            if current.hasEvaluated {
                let viewReason: UnmountReason = current === node ? reason : (reason == .identity ? .identity : .parentUnmounted)
                pending.events.append(.viewUnmounted(view: current.path, reason: viewReason))
            }
        }
        return removed
    }

    /// Lets go of an object a view variable holds: as its owner when the variable made it
    /// (rules 3, 5, 18), reported with `ownerReason`; else as one more holder.
    func releaseHeld(_ id: ObjectSerial, by node: ViewNode, variable: String, ownerReason: DestructionReason) {
        let owns = objects[id].map { $0.ownerView === node && $0.ownerVariable == variable } ?? false
        release(id, reason: owns ? ownerReason : .released, byOwner: owns)
    }
}
