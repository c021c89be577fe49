import MilieuJSON

/// Compiles the JSON form of a computed getter's or an action's expressions into `TypeExpression`s,
/// refusing what can be known wrong before anything runs: `InvalidParams`, with a JSON Pointer to the
/// culprit in the request (SPEC §9.3). A view's body and controls use the same language over the
/// view's variables (SPEC §6.3).
struct ExpressionCompiler {
    /// What the expressions belong to, which decides what they may read.
    enum Role {
        /// A computed getter: stored properties only; no arguments, no clock.
        case computed
        /// An action: any property, its parameters and the clock.
        case action(parameters: [(name: String, type: PropertyType)])
        /// A view's body, or a control's action (`writes`): key paths from the view's variables and
        /// its locals; an action may write and read the clock.
        case view(variables: [(name: String, kind: ViewVariableKind)], writes: Bool)

        var isView: Bool { if case .view = self { true } else { false } }
    }

    /// What a view variable is, as far as the compiler needs: which can be written.
    enum ViewVariableKind: Sendable {
        /// `closure`: an input holding a closure its parent passed, which a step can only call.
        case input, state, binding, object, environment, closure
    }

    let role: Role
    let stored: [StoredProperty]
    let computed: [(name: String, type: PropertyType)]
    let limits: ExpressionLimits
    /// Nodes (expressions and steps) compiled so far in this getter or action.
    private var nodes = 0
    /// The names bound by enclosing iterations, innermost last, with what is known of their elements.
    private var variables: [(name: String, value: StaticValue)] = []
    /// The patterns of the `matches` compiled so far: what is compiled must keep them (`WholeMatch`).
    private(set) var patterns: [DeclaredPattern] = []
    /// The action's parameters (by position) whose argument may meet a secure value: written into
    /// a secure property, or used together with a secret (rule 13). Its secure parameters.
    private(set) var secureArguments: Set<Int> = []

    init(
        role: Role, stored: [StoredProperty] = [], computed: [(name: String, type: PropertyType)] = [], limits: ExpressionLimits
    ) {
        self.role = role
        self.stored = stored
        self.computed = computed
        self.limits = limits
    }

    /// The locals bound, outermost first.
    var localNames: [String] { variables.map(\.name) }

    /// How many locals are bound: what `unbind(to:)` goes back to.
    var localDepth: Int { variables.count }

    /// Binds a local named `name` for what is compiled next (a `let`, a `forEach` element).
    mutating func bind(_ name: String) { variables.append((name, .any)) }

    mutating func unbind(to depth: Int) { variables.removeLast(variables.count - depth) }

    /// Counts one node at `depth` against the limits of its getter or action.
    mutating func enter(_ pointer: RequestPointer, depth: Int) throws(EngineError) {
        nodes += 1
        guard nodes <= limits.maxNodes else {
            throw .invalidParams(
                pointer: pointer.description, "more than \(limits.maxNodes) expression nodes and steps in one getter or action")
        }
        guard depth <= limits.maxDepth else {
            throw .invalidParams(pointer: pointer.description, "nested more than \(limits.maxDepth) levels deep")
        }
    }

    /// Compiles the expression `json` found at `pointer`, `depth` levels into its getter or action.
    mutating func compile(_ json: JSON, at pointer: RequestPointer, depth: Int) throws(EngineError) -> (TypeExpression, StaticValue) {
        try enter(pointer, depth: depth)
        switch json {
        case .null, .bool, .int, .double, .string:
            return (.literal(json), StaticValue(of: json))
        case .array:
            throw .invalidParams(
                pointer: pointer.description,
                "an array is not an expression: write {\"literal\": [...]} for an array value, {\"array\": [...]} to build one")
        case .object(let object):
            guard object.count == 1 else {
                throw .invalidParams(pointer: pointer.description, "an expression is an object with one member, its operator")
            }
            let (name, operand) = object[0]
            return try compileForm(name, operand, at: pointer.member(name), depth: depth)
        }
    }

    private mutating func compileForm(
        _ name: String, _ operand: JSON, at pointer: RequestPointer, depth: Int
    )
        throws(EngineError) -> (TypeExpression, StaticValue)
    {
        switch name {
        case "literal": return (.literal(operand), StaticValue(of: operand))
        case "get":
            let name = try self.name(operand, at: pointer)
            if case .view(let names, _) = role { return try viewRead(name, names, at: pointer) }
            return try property(named: name, at: pointer)
        case "arg": return try argument(named: try self.name(operand, at: pointer), at: pointer)
        case "var":
            let variable = try self.name(operand, at: pointer)
            guard let depth = variables.lastIndex(where: { $0.name == variable }) else {
                throw .invalidParams(pointer: pointer.description, "no enclosing filter, map, all, some or none binds \(variable)")
            }
            return (.variable(depth), variables[depth].value)
        case "now":
            guard case .array(let items) = operand, items.isEmpty else {
                throw .invalidParams(pointer: pointer.description, "now takes no arguments: {\"now\": []}")
            }
            switch role {
            case .action, .view(_, writes: true): return (.now, StaticValue(kinds: .string))
            case .view: throw .invalidParams(pointer: pointer.description, "a body cannot read the clock; only an action can")
            case .computed:
                throw .invalidParams(pointer: pointer.description, "a computed property cannot read the clock; only an action can")
            }
        case "object": return try record(operand, at: pointer, depth: depth)
        default:
            if let iteration = ExpressionIteration(rawValue: name) {
                return try compileIteration(iteration, operand, at: pointer, depth: depth)
            }
            guard let op = ExpressionOperator(rawValue: name) else {
                let known =
                    ["literal", "get", "arg", "var", "now", "object"] + ExpressionOperator.allCases.map(\.rawValue)
                    + ExpressionIteration.allCases.map(\.rawValue)
                throw .invalidParams(
                    pointer: pointer.description, "unknown operator \"\(name)\"; expected one of " + known.joined(separator: ", "))
            }
            return try compileOperation(op, operand, at: pointer, depth: depth)
        }
    }

    /// The name operand of `get`, `arg` and `var`: a string.
    private func name(_ operand: JSON, at pointer: RequestPointer) throws(EngineError) -> String {
        guard case .string(let name) = operand else {
            throw .invalidParams(pointer: pointer.description, "the operand is a name, as {\"get\": \"count\"}")
        }
        return name
    }

    private func property(named name: String, at pointer: RequestPointer) throws(EngineError) -> (TypeExpression, StaticValue) {
        if let property = stored.first(where: { $0.name == name }) {
            return (.property(name), StaticValue(holding: property.type, secret: property.secure))
        }
        if let derived = computed.first(where: { $0.name == name }) {
            guard case .action = role else {
                throw .invalidParams(
                    pointer: pointer.description,
                    "\(name) is computed; a computed property reads stored properties only (read what \(name) reads)")
            }
            return (.property(name), StaticValue(holding: derived.type))
        }
        let names = (stored.map(\.name) + computed.map(\.name)).joined(separator: ", ")
        throw .invalidParams(pointer: pointer.description, "no property \(name); the type has \(names.isEmpty ? "none" : names)")
    }

    /// `{"get": "vm.email"}` in a view: a local and the members inside it, or a key path from a
    /// variable of the view, whose reads are tracked like a template's (SPEC §6.3).
    private func viewRead(
        _ text: String, _ names: [(name: String, kind: ViewVariableKind)], at pointer: RequestPointer
    ) throws(EngineError) -> (TypeExpression, StaticValue) {
        let members = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard isIdentifier(members[0]), !members.contains(where: \.isEmpty) else {
            throw .invalidParams(pointer: pointer.description, "\"\(text)\" is not a key path, as \"vm.email\"")
        }
        if let depth = variables.lastIndex(where: { $0.name == members[0] }) {
            return (.local(depth, name: members[0], members: Array(members.dropFirst())), .any)
        }
        guard let kind = names.first(where: { $0.name == members[0] })?.kind else {
            let known = (names.map(\.name) + variables.map(\.name)).joined(separator: ", ")
            throw .invalidParams(
                pointer: pointer.description, "the view has no variable \(members[0]); it has \(known.isEmpty ? "none" : known)")
        }
        guard kind != .closure else {
            throw .invalidParams(
                pointer: pointer.description,
                "\(members[0]) is a closure, which has no value to read; a step calls it: {\"call\": \"\(members[0])\"}")
        }
        do {
            return (.read(try ReadPath(members)), .any)
        } catch {
            throw .invalidParams(pointer: pointer.description, error.message)
        }
    }

    private func argument(named name: String, at pointer: RequestPointer) throws(EngineError) -> (TypeExpression, StaticValue) {
        guard case .action(let parameters) = role else {
            throw .invalidParams(
                pointer: pointer.description,
                role.isView
                    ? "a view has no arguments; read its variables with get" : "a computed property has no arguments; arg is for actions")
        }
        guard let index = parameters.firstIndex(where: { $0.name == name }) else {
            let names = parameters.map(\.name).joined(separator: ", ")
            throw .invalidParams(pointer: pointer.description, "no parameter \(name); the action has \(names.isEmpty ? "none" : names)")
        }
        var value = StaticValue(holding: parameters[index].type)
        value.arguments = [index]
        return (.argument(index), value)
    }

    private mutating func record(
        _ operand: JSON, at pointer: RequestPointer, depth: Int
    ) throws(EngineError) -> (TypeExpression, StaticValue) {
        guard case .object(let members) = operand else {
            throw .invalidParams(pointer: pointer.description, "object takes an object of member expressions, as {\"object\": {\"id\": 1}}")
        }
        var compiled: [(key: String, value: TypeExpression)] = []
        var known: [StaticValue] = []
        for (key, value) in members {
            let (expression, value) = try compile(value, at: pointer.member(key), depth: depth + 1)
            compiled.append((key, expression))
            known.append(value)
        }
        return (.object(compiled), StaticValue(kinds: .object, secret: known.contains { $0.secret }, arguments: meet(known)))
    }

    private mutating func compileIteration(
        _ iteration: ExpressionIteration, _ operand: JSON, at pointer: RequestPointer, depth: Int
    )
        throws(EngineError) -> (TypeExpression, StaticValue)
    {
        guard case .array(let items) = operand, items.count == 3, case .string(let variable) = items[1] else {
            throw .invalidParams(
                pointer: pointer.description,
                "\(iteration.rawValue) takes [array, \"name\", body], as [{\"get\": \"items\"}, \"x\", {\"!=\": [{\"var\": \"x\"}, \"\"]}]")
        }
        guard isIdentifier(variable) else {
            throw .invalidParams(pointer: pointer.element(1).description, "\"\(variable)\" is not a name")
        }
        let (over, array) = try compile(items[0], at: pointer.element(0), depth: depth + 1)
        try require(array, .array, iteration.rawValue, at: pointer.element(0))
        variables.append((variable, StaticValue(kinds: array.elements, secret: array.secret, arguments: array.arguments)))
        let compiledBody = try compile(items[2], at: pointer.element(2), depth: depth + 1)
        variables.removeLast()
        let (body, value) = compiledBody
        let result: StaticValue
        switch iteration {
        case .map:
            result = StaticValue(kinds: .array, elements: value.kinds, secret: value.secret, arguments: meet([array, value]))
        case .filter:
            try require(value, .bool, iteration.rawValue, at: pointer.element(2))
            result = StaticValue(kinds: .array, elements: array.elements, secret: array.secret, arguments: meet([array, value]))
        case .all, .some, .none:
            try require(value, .bool, iteration.rawValue, at: pointer.element(2))
            _ = meet([array, value])
            result = StaticValue(kinds: .bool)
        }
        return (.iteration(iteration, over: over, depth: variables.count, body: body, pointer: pointer.description), result)
    }

    private mutating func compileOperation(
        _ op: ExpressionOperator, _ operand: JSON, at pointer: RequestPointer, depth: Int
    )
        throws(EngineError) -> (TypeExpression, StaticValue)
    {
        // An array operand is the argument list; anything else is the one argument.
        let arguments: [(json: JSON, pointer: RequestPointer)]
        if case .array(let items) = operand {
            arguments = items.enumerated().map { ($1, pointer.element($0)) }
        } else {
            arguments = [(operand, pointer)]
        }
        let (least, most) = op.arity
        guard arguments.count >= least, arguments.count <= most, op != .if || arguments.count % 2 == 1 else {
            throw .invalidParams(pointer: pointer.description, "\(op.rawValue) takes \(op.arityText), not \(arguments.count)")
        }
        var compiled: [TypeExpression] = []
        var known: [StaticValue] = []
        for argument in arguments {
            let (expression, value) = try compile(argument.json, at: argument.pointer, depth: depth + 1)
            compiled.append(expression)
            known.append(value)
        }
        var result = try check(op, known, arguments)
        result.arguments = meet(known)
        if op == .matches, case .string(let pattern) = arguments[1].json {
            switch WholeMatch.declare(pattern) {
            case .success(let declared): patterns.append(declared)
            case .failure(let refusal): throw .invalidParams(pointer: arguments[1].pointer.description, refusal.reason)
            }
        }
        return (.operation(op, compiled, pointer: pointer.description), result)
    }

    /// The parameters whose argument values `known` may carry; where one of them is a secret, those
    /// parameters are secure (an argument compared with a PIN is a guess at it).
    mutating func meet(_ known: [StaticValue]) -> Set<Int> {
        let carried = known.reduce(into: Set<Int>()) { $0.formUnion($1.arguments) }
        if known.contains(where: \.secret) { secureArguments.formUnion(carried) }
        return carried
    }

    /// Notes that a value goes into a secure property: the arguments it may carry are secure.
    mutating func writeSecure(_ value: StaticValue) {
        secureArguments.formUnion(value.arguments)
    }

    /// What `op` gives for arguments known as `known`, refusing an argument that can never fit.
    private func check(
        _ op: ExpressionOperator, _ known: [StaticValue], _ arguments: [(json: JSON, pointer: RequestPointer)]
    )
        throws(EngineError) -> StaticValue
    {
        let name = op.rawValue
        let pointers = arguments.map(\.pointer)
        let secret = known.contains { $0.secret }
        switch op {
        case .add, .subtract, .multiply, .divide, .remainder:
            for (value, pointer) in zip(known, pointers) { try require(value, .number, name, at: pointer) }
            let allInt = known.allSatisfy { $0.kinds.intersection(.number) == .int }
            let anyDouble = known.contains { $0.kinds.intersection(.number) == .double }
            return StaticValue(kinds: allInt ? .int : anyDouble ? .double : .number, secret: secret)
        case .equal, .notEqual:
            return StaticValue(kinds: .bool)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            for (value, pointer) in zip(known, pointers) { try require(value, [.int, .double, .string], name, at: pointer) }
            let first = known[0].kinds.intersection([.int, .double, .string])
            let second = known[1].kinds.intersection([.int, .double, .string])
            guard !first.isDisjoint(with: .number) && !second.isDisjoint(with: .number) || !first.isDisjoint(with: second) else {
                throw .invalidParams(
                    pointer: pointers[1].description, "\(name) compares two numbers or two strings, not \(first) with \(second)")
            }
            return StaticValue(kinds: .bool)
        case .and, .or, .not:
            for (value, pointer) in zip(known, pointers) { try require(value, .bool, name, at: pointer) }
            return StaticValue(kinds: .bool)
        case .if:
            var result = StaticValue(kinds: [])
            for index in known.indices {
                let isCondition = index % 2 == 0 && index < known.count - 1
                if isCondition {
                    try require(known[index], .bool, name, at: pointers[index])
                } else {
                    result.kinds.formUnion(known[index].kinds)
                    result.secret = result.secret || known[index].secret
                }
            }
            return result
        case .cat:
            for (value, pointer) in zip(known, pointers) { try require(value, [.string, .int, .double, .bool], name, at: pointer) }
            return StaticValue(kinds: .string, secret: secret)
        case .in:
            try require(known[1], [.array, .string], name, at: pointers[1])
            if known[1].kinds.intersection([.array, .string]) == .string { try require(known[0], .string, name, at: pointers[0]) }
            return StaticValue(kinds: .bool)
        case .count:
            try require(known[0], [.array, .string], name, at: pointers[0])
            return StaticValue(kinds: .int)
        case .isPrime:
            try require(known[0], .int, name, at: pointers[0])
            return StaticValue(kinds: .bool)
        case .at:
            try require(known[0], [.array, .object], name, at: pointers[0])
            try require(known[1], [.int, .string], name, at: pointers[1])
            let elements = known[0].kinds.intersection([.array, .object]) == .array ? known[0].elements : .any
            return StaticValue(kinds: elements.union(.null), secret: known[0].secret)
        case .array:
            let elements = known.reduce(into: ValueKinds()) { $0.formUnion($1.kinds) }
            return StaticValue(kinds: .array, elements: elements, secret: secret)
        case .range:
            for (value, pointer) in zip(known, pointers) { try require(value, .int, name, at: pointer) }
            return StaticValue(kinds: .array, elements: .int)
        case .matches:
            // The pattern is written in the declaration, so that it is compiled, and a bad one refused, here.
            try require(known[0], .string, name, at: pointers[0])
            // Declared, or refused, once the operation is compiled (`compileOperation`).
            guard case .string = arguments[1].json else {
                throw .invalidParams(pointer: pointers[1].description, "the pattern of matches is a string written in the declaration")
            }
            return StaticValue(kinds: .bool)
        }
    }

    /// Refuses an argument that can be none of `kinds`.
    func require(_ value: StaticValue, _ kinds: ValueKinds, _ name: String, at pointer: RequestPointer) throws(EngineError) {
        guard !value.kinds.isDisjoint(with: kinds) else {
            throw .invalidParams(pointer: pointer.description, "\(name) takes \(kinds), not \(value.kinds)")
        }
    }
}

extension ExpressionOperator {
    /// "2 arguments", "1 or 2 arguments", "an odd number of arguments, at least 3": for messages.
    var arityText: String {
        let (least, most) = arity
        if self == .if { return "an odd number of arguments, at least 3: [condition, then, …, else]" }
        if least == most { return least == 1 ? "1 argument" : "\(least) arguments" }
        if most == .max { return "at least \(least) argument\(least == 1 ? "" : "s")" }
        return "\(least) or \(most) arguments"
    }
}
