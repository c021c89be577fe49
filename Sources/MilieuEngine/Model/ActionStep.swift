import MilieuJSON

/// One step of a declared action (SPEC §9.3). Writes go through `ActionContext.set`, so that types
/// and constraints are checked and the whole action stays one transaction (rule 14).
indirect enum ActionStep: Sendable {
    /// `{"set": "name", "to": expression}`
    case set(String, TypeExpression)
    /// `{"append": "name", "value": expression}` on an array property.
    case append(String, TypeExpression)
    /// `{"remove": "name", "value": expression}`: every element equal to the value (as `==` compares).
    case removeEqual(String, TypeExpression)
    /// `{"remove": "name", "at": expression}`: the element at that index, which must exist.
    case removeAt(String, TypeExpression, pointer: String)
    /// `{"if": condition, "then": [steps], "else": [steps]}`; `else` may be left out.
    case branch(TypeExpression, then: [ActionStep], else: [ActionStep], pointer: String)
    /// `{"return": expression}`: the action's result; the steps after it do not run.
    case `return`(TypeExpression)
}

extension ExpressionCompiler {
    /// Compiles an action's `steps` (an array) found at `pointer`.
    mutating func compileSteps(_ json: JSON, at pointer: RequestPointer, depth: Int) throws(EngineError) -> [ActionStep] {
        guard case .array(let items) = json else {
            throw .invalidParams(pointer: pointer.description, "steps is an array of steps")
        }
        var steps: [ActionStep] = []
        for (index, item) in items.enumerated() { steps.append(try compileStep(item, at: pointer.element(index), depth: depth)) }
        return steps
    }

    private mutating func compileStep(_ json: JSON, at pointer: RequestPointer, depth: Int) throws(EngineError) -> ActionStep {
        try enter(pointer, depth: depth)
        let forms = ["set", "append", "remove", "if", "return"]
        guard case .object(let step) = json, let form = forms.first(where: { step[$0] != nil }) else {
            throw .invalidParams(pointer: pointer.description, "a step is an object with one of " + forms.joined(separator: ", "))
        }
        switch form {
        case "set":
            let members = try requireMembers(step, ["set", "to"], at: pointer)
            let property = try target(members[0], at: pointer.member("set"), array: false)
            let (value, known) = try compile(members[1], at: pointer.member("to"), depth: depth + 1)
            try requireFit(known, property.type, into: property, at: pointer.member("to"))
            if property.secure { writeSecure(known) }
            return .set(property.name, value)
        case "append":
            let members = try requireMembers(step, ["append", "value"], at: pointer)
            let property = try target(members[0], at: pointer.member("append"), array: true)
            let (value, known) = try compile(members[1], at: pointer.member("value"), depth: depth + 1)
            if case .array(let element) = property.type { try requireFit(known, element, into: property, at: pointer.member("value")) }
            if property.secure { writeSecure(known) }
            return .append(property.name, value)
        case "remove":
            let by = step["at"] != nil ? "at" : "value"
            let members = try requireMembers(step, ["remove", by], at: pointer)
            let property = try target(members[0], at: pointer.member("remove"), array: true)
            let (value, known) = try compile(members[1], at: pointer.member(by), depth: depth + 1)
            // Removing what equals an argument compares it with the secure elements.
            if property.secure && by == "value" { writeSecure(known) }
            guard by == "at" else { return .removeEqual(property.name, value) }
            try require(known, .int, "remove at", at: pointer.member(by))
            return .removeAt(property.name, value, pointer: pointer.description)
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

    /// The values of `required`, in order; refuses a step that lacks one or has a member outside `required` and `optional`.
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

    /// The stored property a step writes; an array one for `append` and `remove`.
    private func target(_ json: JSON?, at pointer: RequestPointer, array: Bool) throws(EngineError) -> StoredProperty {
        guard case .string(let name)? = json else {
            throw .invalidParams(pointer: pointer.description, "the property to write, by name")
        }
        guard let property = stored.first(where: { $0.name == name }) else {
            let reason = computed.contains { $0.name == name } ? "\(name) is computed and cannot be written" : "no stored property \(name)"
            throw .invalidParams(pointer: pointer.description, reason)
        }
        if array {
            guard case .array = property.type else {
                throw .invalidParams(pointer: pointer.description, "\(name) is \(property.type), not an array ([T])")
            }
        }
        return property
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
        for step in steps {
            try spend()
            switch step {
            case .set(let name, let value):
                try context.set(name, try evaluate(value))
            case .append(let name, let value):
                var items = try context.get(name).arrayValue ?? []
                items.append(try evaluate(value))
                try checkCount(items.count)
                try context.set(name, .array(items))
            case .removeEqual(let name, let value):
                let items = try context.get(name).arrayValue ?? []
                let removed = try evaluate(value)
                try spend(items.count)
                try context.set(name, .array(items.filter { !ExpressionEvaluation.equal($0, removed) }))
            case .removeAt(let name, let index, let pointer):
                var items = try context.get(name).arrayValue ?? []
                let position = try evaluate(index)
                guard case .int(let offset) = position, items.indices.contains(offset) else {
                    throw mismatch(
                        "remove", at: pointer, expected: "an index within the array",
                        actual: position.intValue == nil ? position.kindName : "out of range")
                }
                items.remove(at: offset)
                try context.set(name, .array(items))
            case .branch(let condition, let then, let otherwise, let pointer):
                let taken = try self.condition(condition, "if", at: pointer) ? then : otherwise
                if let result = try run(taken, writingTo: context) { return result }
            case .return(let value):
                return try evaluate(value)
            }
        }
        return nil
    }
}
