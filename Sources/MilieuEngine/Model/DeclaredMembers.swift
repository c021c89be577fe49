import MilieuJSON

/// The computed properties and actions of a type declared in JSON (SPEC §9.3), compiled from
/// their expressions and steps into the same `ComputedProperty` and `Action` a Swift type has.
struct DeclaredMembers {
    let typeName: String
    let stored: [StoredProperty]
    let limits: ExpressionLimits

    /// `"computed": {"name": {"type": T, "get": expression}}`.
    ///
    /// A getter reads stored properties through `ObjectReader`, so that exactly the properties it
    /// evaluated are tracked (rule 12). It cannot throw: one that fails at run time (a value of the
    /// wrong kind, a division by zero, a limit) reads `null`, as a value that does not fit its type does.
    func computed(_ json: JSON?, at pointer: RequestPointer) throws(EngineError) -> [ComputedProperty] {
        guard let json else { return [] }
        guard case .object(let declarations) = json else {
            throw .invalidParams(pointer: pointer.description, "computed is an object of {\"type\", \"get\"} by name")
        }
        var specs: [(name: String, type: PropertyType, get: JSON)] = []
        for (name, declaration) in declarations {
            let at = pointer.member(name)
            let members = try requireMembers(declaration, ["type", "get"], at: at)
            specs.append((name, try propertyType(members[0], field: "computed.\(name).type"), members[1]))
        }
        let names = specs.map { (name: $0.name, type: $0.type) }
        var properties: [ComputedProperty] = []
        for spec in specs {
            let at = pointer.member(spec.name).member("get")
            var compiler = ExpressionCompiler(role: .computed, stored: stored, computed: names, limits: limits)
            let (getter, known) = try compiler.compile(spec.get, at: at, depth: 1)
            guard !known.kinds.isDisjoint(with: ValueKinds(accepting: spec.type)) else {
                throw .invalidParams(pointer: at.description, "\(spec.name) is \(spec.type), and this gives \(known.kinds)")
            }
            guard !known.secret else {
                throw .invalidParams(pointer: at.description, "\(spec.name) would show a secure property's value (rule 13)")
            }
            let (limits, place, patterns) = (limits, "\(typeName).\(spec.name)", compiler.patterns)
            properties.append(
                ComputedProperty(spec.name, spec.type) { reader in
                    // The getter holds its `matches` patterns: compiled once, for as long as it lives.
                    withExtendedLifetime(patterns) {
                        let scope = ExpressionScope(property: { reader[$0] }, arguments: [], now: nil)
                        var evaluation = ExpressionEvaluation(scope: scope, limits: limits, place: place, budget: reader.budget)
                        return (try? evaluation.evaluate(getter)) ?? .null
                    }
                })
        }
        return properties
    }

    /// `"actions": {"name": {"parameters": [{"name", "type"}], "steps": [step]}}`.
    ///
    /// An action reads through `ActionContext.get` (computed properties too) and writes through
    /// `ActionContext.set`; an error anywhere undoes all of its writes (rule 14).
    func actions(_ json: JSON?, computed: [ComputedProperty], at pointer: RequestPointer) throws(EngineError) -> [Action] {
        guard let json else { return [] }
        guard case .object(let declarations) = json else {
            throw .invalidParams(pointer: pointer.description, "actions is an object of {\"parameters\", \"steps\"} by name")
        }
        var actions: [Action] = []
        for (name, declaration) in declarations {
            let at = pointer.member(name)
            let members = try requireMembers(declaration, ["steps"], optional: ["parameters"], at: at)
            let parameters = try self.parameters(members[1], of: name, at: at.member("parameters"))
            var compiler = ExpressionCompiler(
                role: .action(parameters: parameters), stored: stored, computed: computed.map { ($0.name, $0.type) }, limits: limits)
            let steps = try compiler.compileSteps(members[0], at: at.member("steps"), depth: 1)
            let (limits, place, patterns) = (limits, "\(typeName).\(name)", compiler.patterns)
            let secure = parameters.indices.filter(compiler.secureArguments.contains).map { parameters[$0].name }
            actions.append(
                Action(name, parameters: parameters, secureParameters: secure) { context throws(EngineError) in
                    // The action holds its `matches` patterns: compiled once, for as long as it lives.
                    try withExtendedLifetime(patterns) { () throws(EngineError) -> JSON in
                        let scope = ExpressionScope(
                            property: { name throws(EngineError) in try context.get(name) }, arguments: context.arguments,
                            now: { context.now })
                        var evaluation = ExpressionEvaluation(scope: scope, limits: limits, place: place, budget: context.budget)
                        return try evaluation.run(steps, writingTo: context) ?? .null
                    }
                })
        }
        return actions
    }

    /// `[{"name": "item", "type": "string"}]`: positional parameters with distinct names.
    private func parameters(
        _ json: JSON, of action: String, at pointer: RequestPointer
    ) throws(EngineError) -> [(name: String, type: PropertyType)] {
        guard case .array(let items) = json else {
            throw .invalidParams(pointer: pointer.description, "parameters is an array of {\"name\", \"type\"}")
        }
        var parameters: [(name: String, type: PropertyType)] = []
        for (index, item) in items.enumerated() {
            let at = pointer.element(index)
            let members = try requireMembers(item, ["name", "type"], at: at)
            guard case .string(let name) = members[0], isIdentifier(name) else {
                throw .invalidParams(pointer: at.member("name").description, "a parameter's name is an identifier")
            }
            guard !parameters.contains(where: { $0.name == name }) else {
                throw .invalidParams(pointer: at.member("name").description, "\(action) has two parameters named \(name)")
            }
            parameters.append((name, try propertyType(members[1], field: "actions.\(action).parameters.\(index).type")))
        }
        return parameters
    }

    /// The values of `required`, in order, then of `optional` (`[]` when absent), from the object `json`.
    private func requireMembers(
        _ json: JSON, _ required: [String], optional: [String] = [], at pointer: RequestPointer
    )
        throws(EngineError) -> [JSON]
    {
        guard case .object(let object) = json else {
            throw .invalidParams(pointer: pointer.description, "an object with " + (required + optional).joined(separator: ", "))
        }
        try rejectUnknownMembers(object, allowed: required + optional, at: pointer)
        var values: [JSON] = []
        for key in required {
            guard let value = object[key] else { throw .invalidParams(pointer: pointer.description, "\"\(key)\" is required") }
            values.append(value)
        }
        for key in optional { values.append(object[key] ?? []) }
        return values
    }

    /// A declared type, with the place of a malformed one named in dotted form, as `InvalidDeclaration` does.
    private func propertyType(_ json: JSON, field: String) throws(EngineError) -> PropertyType {
        do {
            return try PropertyType(declaration: json)
        } catch {
            throw .invalidDeclaration(field: field, reason: error.data["reason"]?.stringValue ?? error.message)
        }
    }
}
