import MilieuJSON

/// One step of a declared action (SPEC §9.3), or of a view's control (SPEC §6.5). Writes go
/// through `ActionContext.set`, so that types and constraints are checked and the whole action
/// stays one transaction (rule 14). A target is a property's name in a type's action, a key path
/// from one of the view's variables in a control's.
indirect enum ActionStep: Sendable {
    /// `{"set": "name", "to": expression}`
    case set(StepTarget, TypeExpression)
    /// `{"toggle": "name"}`: a bool property becomes its negation (`isOn.toggle()`).
    case toggle(StepTarget, pointer: String)
    /// `{"append": "name", "value": expression}` on an array property.
    case append(StepTarget, TypeExpression)
    /// `{"insert": "name", "value": expression, "at": expression}`: at an index from 0 to the count.
    case insert(StepTarget, TypeExpression, at: TypeExpression, pointer: String)
    /// `{"remove": "name", "value": expression}`: every element equal to the value (as `==` compares).
    case removeEqual(StepTarget, TypeExpression)
    /// `{"remove": "name", "at": expression}`: the element at that index, which must exist.
    case removeAt(StepTarget, TypeExpression, pointer: String)
    /// `{"remove": "name", "where": ["x", body]}`: every element for which `body` is true
    /// (`removeAll(where:)`); `body` sees the element as local `depth`.
    case removeWhere(StepTarget, depth: Int, body: TypeExpression, pointer: String)
    /// `{"call": "vm.login", "args": [expression]}` in a control: an action of an object the view holds.
    case call(StepTarget, [TypeExpression])
    /// `{"set": "vm", "to": {"new": {"type": T, "init": {...}}}}` in a control: a `@State` that
    /// holds an object gets a new one (`vm = Model()`), and the old one goes (rule 18).
    case make(String, type: String, arguments: [(name: String, value: TypeExpression)])
    /// `{"let": "name", "be": expression}`: a local for the steps after it, read with `get`.
    case local(TypeExpression)
    /// `{"if": condition, "then": [steps], "else": [steps]}`; `else` may be left out.
    case branch(TypeExpression, then: [ActionStep], else: [ActionStep], pointer: String)
    /// `{"return": expression}`: the action's result; the steps after it do not run.
    case `return`(TypeExpression)
}

/// What a step writes or calls: a stored property by name in a type's action; in a control's, a
/// key path from one of the view's variables, or from the object a local holds (`todo.done` in
/// a `forEach` row over objects, `todo.done.toggle()`), which is checked to be one when it runs.
struct StepTarget: Sendable {
    /// The key path as written (`item.count`).
    let path: String
    /// The depth of the local the path starts from; nil when it starts from a variable or property.
    let local: Int?

    init(_ path: String, local: Int? = nil) {
        self.path = path
        self.local = local
    }
}

extension ExpressionCompiler {
    /// Compiles an action's `steps` (an array) found at `pointer`.
    mutating func compileSteps(_ json: JSON, at pointer: RequestPointer, depth: Int) throws(EngineError) -> [ActionStep] {
        guard case .array(let items) = json else {
            throw .invalidParams(pointer: pointer.description, "steps is an array of steps")
        }
        var steps: [ActionStep] = []
        let locals = localDepth
        for (index, item) in items.enumerated() { steps.append(try compileStep(item, at: pointer.element(index), depth: depth)) }
        unbind(to: locals)
        return steps
    }

    private mutating func compileStep(_ json: JSON, at pointer: RequestPointer, depth: Int) throws(EngineError) -> ActionStep {
        try enter(pointer, depth: depth)
        let forms = ["set", "toggle", "append", "insert", "remove", "call", "let", "if", "return"]
        guard case .object(let step) = json, let form = forms.first(where: { step[$0] != nil }) else {
            throw .invalidParams(pointer: pointer.description, "a step is an object with one of " + forms.joined(separator: ", "))
        }
        switch form {
        case "set":
            let members = try requireMembers(step, ["set", "to"], at: pointer)
            if case .object(let made) = members[1], made.count == 1, let spec = made["new"] {
                return try compileMake(members[0], spec, at: pointer, depth: depth)
            }
            let target = try self.target(members[0], at: pointer.member("set"), array: false)
            let (value, known) = try compile(members[1], at: pointer.member("to"), depth: depth + 1)
            if let property = target.property {
                try requireFit(known, property.type, into: property, at: pointer.member("to"))
                if property.secure { writeSecure(known) }
            }
            return .set(target.target, value)
        case "toggle":
            _ = try requireMembers(step, ["toggle"], at: pointer)
            let target = try self.target(step["toggle"], at: pointer.member("toggle"), array: false)
            if let property = target.property, property.type != .bool {
                throw .invalidParams(pointer: pointer.member("toggle").description, "\(property.name) is \(property.type), not bool")
            }
            return .toggle(target.target, pointer: pointer.description)
        case "append":
            let members = try requireMembers(step, ["append", "value"], at: pointer)
            let target = try self.target(members[0], at: pointer.member("append"), array: true)
            let (value, known) = try compile(members[1], at: pointer.member("value"), depth: depth + 1)
            if let property = target.property {
                if case .array(let element) = property.type { try requireFit(known, element, into: property, at: pointer.member("value")) }
                if property.secure { writeSecure(known) }
            }
            return .append(target.target, value)
        case "insert":
            let members = try requireMembers(step, ["insert", "value", "at"], at: pointer)
            let target = try self.target(members[0], at: pointer.member("insert"), array: true)
            let (value, known) = try compile(members[1], at: pointer.member("value"), depth: depth + 1)
            let (index, position) = try compile(members[2], at: pointer.member("at"), depth: depth + 1)
            try require(position, .int, "insert at", at: pointer.member("at"))
            if let property = target.property {
                if case .array(let element) = property.type { try requireFit(known, element, into: property, at: pointer.member("value")) }
                if property.secure { writeSecure(known) }
            }
            return .insert(target.target, value, at: index, pointer: pointer.description)
        case "remove":
            let by = step["at"] != nil ? "at" : step["where"] != nil ? "where" : "value"
            let members = try requireMembers(step, ["remove", by], at: pointer)
            let target = try self.target(members[0], at: pointer.member("remove"), array: true)
            if by == "where" { return try compileRemoveWhere(target, members[1], at: pointer, depth: depth) }
            let (value, known) = try compile(members[1], at: pointer.member(by), depth: depth + 1)
            // Removing what equals an argument compares it with the secure elements.
            if target.property?.secure == true && by == "value" { writeSecure(known) }
            guard by == "at" else { return .removeEqual(target.target, value) }
            try require(known, .int, "remove at", at: pointer.member(by))
            return .removeAt(target.target, value, pointer: pointer.description)
        case "call":
            guard role.isView else {
                throw .invalidParams(pointer: pointer.member("call").description, "call is a control's step; write the properties instead")
            }
            let members = try requireMembers(step, ["call"], optional: ["args"], at: pointer)
            guard case .string(let path) = members[0], !path.isEmpty else {
                throw .invalidParams(pointer: pointer.member("call").description, "the action to call, as \"vm.login\"")
            }
            let target = try viewTarget(path, at: pointer.member("call"), needsMember: true)
            var arguments: [TypeExpression] = []
            if let args = step["args"] {
                guard case .array(let items) = args else {
                    throw .invalidParams(pointer: pointer.member("args").description, "args is an array of expressions")
                }
                for (index, item) in items.enumerated() {
                    arguments.append(try compile(item, at: pointer.member("args").element(index), depth: depth + 1).0)
                }
            }
            return .call(target, arguments)
        case "let":
            let members = try requireMembers(step, ["let", "be"], at: pointer)
            guard case .string(let name) = members[0], isIdentifier(name) else {
                throw .invalidParams(pointer: pointer.member("let").description, "a local's name is an identifier")
            }
            let (value, _) = try compile(members[1], at: pointer.member("be"), depth: depth + 1)
            bind(name)
            return .local(value)
        case "if":
            let members = try requireMembers(step, ["if", "then"], optional: ["else"], at: pointer)
            let (condition, known) = try compile(members[0], at: pointer.member("if"), depth: depth + 1)
            try require(known, .bool, "if", at: pointer.member("if"))
            let then = try compileSteps(members[1], at: pointer.member("then"), depth: depth + 1)
            let otherwise = try step["else"].map { json throws(EngineError) in
                try compileSteps(json, at: pointer.member("else"), depth: depth + 1)
            }
            return .branch(condition, then: then, else: otherwise ?? [], pointer: pointer.description)
        default:
            let members = try requireMembers(step, ["return"], at: pointer)
            let (value, known) = try compile(members[0], at: pointer.member("return"), depth: depth + 1)
            guard !known.secret else {
                throw .invalidParams(
                    pointer: pointer.member("return").description, "an action's result may not carry a secure property's value")
            }
            return .return(value)
        }
    }

    /// `{"remove": "p", "where": ["x", body]}`: `body` a bool over the element `x`.
    private mutating func compileRemoveWhere(
        _ target: (target: StepTarget, property: StoredProperty?), _ json: JSON, at pointer: RequestPointer, depth: Int
    ) throws(EngineError) -> ActionStep {
        guard case .array(let items) = json, items.count == 2, case .string(let name) = items[0], isIdentifier(name) else {
            throw .invalidParams(
                pointer: pointer.member("where").description, "where takes [\"x\", condition], as [\"p\", {\"==\": [{\"var\": \"p\"}, 3]}]")
        }
        let locals = localDepth
        bind(name)
        let (body, known) = try compile(items[1], at: pointer.member("where").element(1), depth: depth + 1)
        unbind(to: locals)
        try require(known, .bool, "remove where", at: pointer.member("where").element(1))
        return .removeWhere(target.target, depth: locals, body: body, pointer: pointer.description)
    }

    /// `{"set": "vm", "to": {"new": {"type": T, "init": {...}}}}`: a new object for a `@State`.
    private mutating func compileMake(
        _ json: JSON, _ spec: JSON, at pointer: RequestPointer, depth: Int
    ) throws(EngineError)
        -> ActionStep
    {
        guard role.isView else {
            throw .invalidParams(pointer: pointer.member("to").description, "new makes an object for a view's @State; a type holds values")
        }
        guard case .string(let name) = json, case .view(let names, _) = role,
            names.contains(where: { $0.name == name && $0.kind == .state })
        else {
            throw .invalidParams(pointer: pointer.member("set").description, "new is written to a @State variable of the view, by name")
        }
        let at = pointer.member("to").member("new")
        guard case .object(let object) = spec, case .string(let type)? = object["type"] else {
            throw .invalidParams(pointer: at.description, "new takes {\"type\": \"TypeName\", \"init\"?: {property: expression}}")
        }
        for key in object.keys where key != "type" && key != "init" {
            throw .invalidParams(pointer: at.member(key).description, "unknown member \"\(key)\"; new has type and init")
        }
        var arguments: [(name: String, value: TypeExpression)] = []
        if let values = object["init"] {
            guard case .object(let entries) = values else {
                throw .invalidParams(pointer: at.member("init").description, "init is an object of property: expression")
            }
            for (property, value) in entries {
                arguments.append((property, try compile(value, at: at.member("init").member(property), depth: depth + 1).0))
            }
        }
        return .make(name, type: type, arguments: arguments)
    }

    /// The values of `required`, in order; refuses a step that lacks one or has a member outside
    /// `required` and `optional` (which the caller reads from `step`).
    private func requireMembers(
        _ step: JSONObject, _ required: [String], optional: [String] = [], at pointer: RequestPointer
    )
        throws(EngineError) -> [JSON]
    {
        for key in step.keys where !required.contains(key) && !optional.contains(key) {
            throw .invalidParams(
                pointer: pointer.member(key).description,
                "unknown member \"\(key)\"; this step has " + (required + optional).joined(separator: ", "))
        }
        var values: [JSON] = []
        for key in required {
            guard let value = step[key] else { throw .invalidParams(pointer: pointer.description, "this step needs \"\(key)\"") }
            values.append(value)
        }
        return values
    }

    /// What a step writes: a type's stored property (an array one for `append`, `insert` and
    /// `remove`), or in a control a key path from a writable variable of the view (checked when it runs).
    private func target(
        _ json: JSON?, at pointer: RequestPointer, array: Bool
    ) throws(EngineError)
        -> (target: StepTarget, property: StoredProperty?)
    {
        guard case .string(let name)? = json else {
            throw .invalidParams(pointer: pointer.description, "the property to write, by name")
        }
        if role.isView { return (try viewTarget(name, at: pointer, needsMember: false), nil) }
        guard let property = stored.first(where: { $0.name == name }) else {
            let reason = computed.contains { $0.name == name } ? "\(name) is computed and cannot be written" : "no stored property \(name)"
            throw .invalidParams(pointer: pointer.description, reason)
        }
        if array {
            guard case .array = property.type else {
                throw .invalidParams(pointer: pointer.description, "\(name) is \(property.type), not an array ([T])")
            }
        }
        return (StepTarget(name), property)
    }

    /// A key path a control writes or calls through: from a `@State`, a `@Binding` or an object
    /// variable of the view (an object's needs a member), or into an input or a local that holds
    /// an object (`let m: Model` and `m.count = 5`; a row's `todo.done`), which is checked to hold
    /// one when it runs; never an input or a local itself, nor an environment value.
    private func viewTarget(_ path: String, at pointer: RequestPointer, needsMember: Bool) throws(EngineError) -> StepTarget {
        guard case .view(let names, true) = role else {
            throw .invalidParams(pointer: pointer.description, "a body reads; only a control's action writes")
        }
        let members = path.split(separator: ".", omittingEmptySubsequences: false)
        guard isIdentifier(members[0]), !members.contains(where: \.isEmpty) else {
            throw .invalidParams(pointer: pointer.description, "\"\(path)\" is not a key path, as \"vm.email\"")
        }
        if let local = localNames.lastIndex(of: String(members[0])) {
            guard members.count > 1 else {
                throw .invalidParams(pointer: pointer.description, "\(members[0]) is a local (let), which cannot be written")
            }
            return StepTarget(path, local: local)
        }
        guard let kind = names.first(where: { $0.name == String(members[0]) })?.kind else {
            throw .invalidParams(pointer: pointer.description, "the view has no variable \(members[0])")
        }
        switch kind {
        case .closure:
            guard needsMember && members.count == 1 else {
                throw .invalidParams(
                    pointer: pointer.description, "\(members[0]) is a closure its parent passed; call it: {\"call\": \"\(members[0])\"}")
            }
            return StepTarget(path)
        case .input where members.count < 2:
            throw .invalidParams(pointer: pointer.description, "\(members[0]) is an input, a constant its parent passes")
        case .environment:
            throw .invalidParams(pointer: pointer.description, "\(members[0]) comes from the environment and cannot be written")
        case .object where members.count < 2:
            throw .invalidParams(pointer: pointer.description, "\(members[0]) is an object; name one of its properties or actions")
        case .state, .binding, .object, .input:
            if needsMember && members.count < 2 {
                throw .invalidParams(pointer: pointer.description, "name an action of an object, as \"vm.login\"")
            }
            return StepTarget(path)
        }
    }

    /// Refuses a value that can never fit `type`, or that would copy a secret into a property that is not secure.
    private func requireFit(
        _ value: StaticValue, _ type: PropertyType, into property: StoredProperty, at pointer: RequestPointer
    )
        throws(EngineError)
    {
        let accepted = ValueKinds(accepting: type)
        guard !value.kinds.isDisjoint(with: accepted) else {
            throw .invalidParams(pointer: pointer.description, "\(property.name) takes \(type), not \(value.kinds)")
        }
        guard !value.secret || property.secure else {
            throw .invalidParams(
                pointer: pointer.description, "\(property.name) is not secure, and this value may carry a secure property's value (rule 13)"
            )
        }
    }
}

extension ExpressionEvaluation {
    /// Runs `steps` in order, writing through `context`: the value of the `return` reached, or nil.
    mutating func run(_ steps: [ActionStep], writingTo context: ActionContext) throws(EngineError) -> JSON? {
        let locals = depth
        defer { unbind(to: locals) }
        for step in steps {
            try spend()
            switch step {
            case .set(let target, let value):
                try context.set(try place(target, context), try evaluate(value))
            case .toggle(let target, let pointer):
                let name = try place(target, context)
                let value = try context.get(name)
                guard case .bool(let flag) = value else { throw mismatch("toggle", at: pointer, expected: "bool", actual: value.kindName) }
                try context.set(name, .bool(!flag))
            case .append(let target, let value):
                let name = try place(target, context)
                var items = try context.get(name).arrayValue ?? []
                items.append(try evaluate(value))
                try checkCount(items.count)
                try context.set(name, .array(items))
            case .insert(let target, let value, let index, let pointer):
                let name = try place(target, context)
                var items = try context.get(name).arrayValue ?? []
                let element = try evaluate(value)
                let position = try evaluate(index)
                guard case .int(let offset) = position, (0...items.count).contains(offset) else {
                    throw mismatch(
                        "insert", at: pointer, expected: "an index from 0 to the count",
                        actual: position.intValue == nil ? position.kindName : "out of range")
                }
                items.insert(element, at: offset)
                try checkCount(items.count)
                try context.set(name, .array(items))
            case .removeEqual(let target, let value):
                let name = try place(target, context)
                let items = try context.get(name).arrayValue ?? []
                let removed = try evaluate(value)
                try spend(items.count)
                try context.set(name, .array(items.filter { !ExpressionEvaluation.equal($0, removed) }))
            case .removeAt(let target, let index, let pointer):
                let name = try place(target, context)
                var items = try context.get(name).arrayValue ?? []
                let position = try evaluate(index)
                guard case .int(let offset) = position, items.indices.contains(offset) else {
                    throw mismatch(
                        "remove", at: pointer, expected: "an index within the array",
                        actual: position.intValue == nil ? position.kindName : "out of range")
                }
                items.remove(at: offset)
                try context.set(name, .array(items))
            case .removeWhere(let target, let depth, let body, let pointer):
                let name = try place(target, context)
                let items = try context.get(name).arrayValue ?? []
                var kept: [JSON] = []
                for item in items {
                    unbind(to: depth)
                    bind(item)
                    if try !condition(body, "remove where", at: pointer) { kept.append(item) }
                }
                unbind(to: depth)
                try context.set(name, .array(kept))
            case .call(let target, let arguments):
                let path = try place(target, context)
                var values: [JSON] = []
                for argument in arguments { values.append(try evaluate(argument)) }
                _ = try context.call(path, values)
            case .make(let name, let type, let arguments):
                var values = JSONObject()
                for (property, value) in arguments { values[property] = try evaluate(value) }
                try context.make(name, type: type, arguments: values)
            case .local(let value):
                bind(try evaluate(value))
            case .branch(let condition, let then, let otherwise, let pointer):
                let taken = try self.condition(condition, "if", at: pointer) ? then : otherwise
                if let result = try run(taken, writingTo: context) { return result }
            case .return(let value):
                return try evaluate(value)
            }
        }
        return nil
    }

    /// The key path `target` names as the step runs: as written, or, from a local, from the
    /// object the local holds now.
    private mutating func place(_ target: StepTarget, _ context: ActionContext) throws(EngineError) -> String {
        guard let local = target.local else { return target.path }
        let name = String(target.path.prefix { $0 != "." })
        return try context.path(target.path, fromLocal: try evaluate(.local(local, name: name, members: [])))
    }
}
