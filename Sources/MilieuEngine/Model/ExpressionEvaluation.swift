import MilieuJSON
import MilieuProtocol

/// What an evaluation reads: its object's properties, an action's arguments and the clock; in
/// a view, the view's key paths and the locals its body or action has bound.
struct ExpressionScope {
    /// A property by name: through `ObjectReader` in a getter (so that the read is tracked), through
    /// `ActionContext` in an action.
    var property: (String) throws(EngineError) -> JSON = { _ throws(EngineError) in .null }
    var arguments: [JSON] = []
    /// The clock; nil in a getter, where the compiler refuses `now`.
    var now: (() -> String)?
    /// A view's key path (`TypeExpression.read`): tracked while its body is evaluated.
    var read: (ReadPath) throws(EngineError) -> JSON = { _ throws(EngineError) in .null }
    /// The locals bound before the expression, outermost first: `let`s and `forEach` elements.
    var locals: [JSON] = []
    /// A member of the object a local names (`todo.title` in `ForEach(todos) { todo in … }`):
    /// given the object's id, the member and the read's reason (`todo.title`), its value, read
    /// through the object; nil when the id names no object. Unset, a local's value is plain JSON.
    var objectMember: ((String, String, () -> String) throws(EngineError) -> JSON?)?
}

/// One evaluation of a getter, or one run of an action: what it reads, the budget it spends and
/// the elements its iterations have bound.
///
/// Every node evaluated, step run and element visited costs one step; a string `matches` or `in`
/// examines costs one per byte. Past `maxSteps`, building a string or array over its limit, or
/// matching a string that could cost more than `WholeMatch.maxWork`, the evaluation stops with
/// `LimitExceeded`. A value of the wrong kind, a division by zero or an int overflow stops it with
/// `TypeMismatch`, whose `path` is `Type.member`. Messages name kinds, never values: an operand
/// may come from a secure property (rule 13).
struct ExpressionEvaluation {
    let scope: ExpressionScope
    let limits: ExpressionLimits
    /// `Type.member`: the getter or action, in errors.
    let place: String
    /// The request's budget, shared by all of its evaluations; nil outside a graph (tests).
    let budget: EvaluationBudget?
    private(set) var steps = 0
    private var variables: [JSON] = []

    init(scope: ExpressionScope, limits: ExpressionLimits, place: String, budget: EvaluationBudget? = nil) {
        self.scope = scope
        self.limits = limits
        self.place = place
        self.budget = budget
        variables = scope.locals
    }

    /// Binds a local (`let`) for the steps after it; `unbind` drops those bound since `depth`.
    mutating func bind(_ value: JSON) { variables.append(value) }
    mutating func unbind(to depth: Int) { variables.removeLast(variables.count - depth) }
    var depth: Int { variables.count }

    /// Spends `cost` steps of this evaluation's budget and of the request's.
    mutating func spend(_ cost: Int = 1) throws(EngineError) {
        steps += cost
        guard steps <= limits.maxSteps else { throw .limitExceeded(limit: "expressionSteps", max: limits.maxSteps) }
        if let budget, !budget.spend(cost) { throw .limitExceeded(limit: "requestSteps", max: budget.perRequest) }
    }

    /// A value of the wrong kind (or a zero divisor, an overflow) met by the node at `pointer`.
    func mismatch(_ name: String, at pointer: String, expected: String, actual: String) -> EngineError {
        EngineError(
            kind: .typeMismatch, message: "\(place): \(name) at \(pointer) expects \(expected), got \(actual)",
            data: ["path": .string(place), "expected": .string(expected), "actual": .string(actual)])
    }

    mutating func evaluate(_ expression: TypeExpression) throws(EngineError) -> JSON {
        try spend()
        switch expression {
        case .literal(let value): return value
        case .property(let name): return try scope.property(name)
        case .argument(let index): return scope.arguments[index]
        case .variable(let depth): return variables[depth]
        case .read(let path): return try scope.read(path)
        case .local(let depth, let name, let members):
            var value = variables[depth]
            for (index, member) in members.enumerated() {
                try spend()
                if case .string(let id) = value, let objectMember = scope.objectMember,
                    let read = try objectMember(id, member, { ([name] + members[...index]).joined(separator: ".") })
                {
                    value = read
                } else {
                    value = Self.member(member, of: value)
                }
            }
            return value
        case .now: return scope.now.map { .string($0()) } ?? .null
        case .object(let members):
            var built: [JSONObject.Member] = []
            built.reserveCapacity(members.count)
            for member in members { built.append((member.key, try evaluate(member.value))) }
            return .object(JSONObject(uniqueMembers: built))
        case .operation(let op, let arguments, let pointer):
            return try apply(op, arguments, at: pointer)
        case .iteration(let iteration, let over, let depth, let body, let pointer):
            return try iterate(iteration, over: over, depth: depth, body: body, at: pointer)
        }
    }

    /// Evaluates `expression`, which must give a bool.
    mutating func condition(_ expression: TypeExpression, _ name: String, at pointer: String) throws(EngineError) -> Bool {
        let value = try evaluate(expression)
        guard case .bool(let flag) = value else { throw mismatch(name, at: pointer, expected: "bool", actual: value.kindName) }
        return flag
    }

    private mutating func apply(_ op: ExpressionOperator, _ arguments: [TypeExpression], at pointer: String) throws(EngineError) -> JSON {
        let name = op.rawValue
        switch op {
        case .and, .or:
            // Short-circuit: an argument not evaluated is not read, so not tracked (rule 12).
            let decisive = op == .or
            for argument in arguments where try condition(argument, name, at: pointer) == decisive { return .bool(decisive) }
            return .bool(!decisive)
        case .not:
            return .bool(!(try condition(arguments[0], name, at: pointer)))
        case .if:
            var index = 0
            while index < arguments.count - 1 {
                if try condition(arguments[index], name, at: pointer) { return try evaluate(arguments[index + 1]) }
                index += 2
            }
            return try evaluate(arguments[arguments.count - 1])
        case .add, .multiply:
            var total = try evaluate(arguments[0])
            for argument in arguments.dropFirst() { total = try arithmetic(op, total, try evaluate(argument), at: pointer) }
            return total
        case .subtract:
            let first = try evaluate(arguments[0])
            guard arguments.count == 2 else { return try arithmetic(op, .int(0), first, at: pointer) }
            return try arithmetic(op, first, try evaluate(arguments[1]), at: pointer)
        case .divide, .remainder:
            return try arithmetic(op, try evaluate(arguments[0]), try evaluate(arguments[1]), at: pointer)
        case .equal: return .bool(ExpressionEvaluation.equal(try evaluate(arguments[0]), try evaluate(arguments[1])))
        case .notEqual: return .bool(!ExpressionEvaluation.equal(try evaluate(arguments[0]), try evaluate(arguments[1])))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return .bool(try compare(op, try evaluate(arguments[0]), try evaluate(arguments[1]), at: pointer))
        case .cat: return try concatenate(arguments, at: pointer)
        case .matches:
            let subject = try evaluate(arguments[0])
            guard case .string(let text) = subject, case .literal(.string(let pattern)) = arguments[1] else {
                throw mismatch(name, at: pointer, expected: "string", actual: subject.kindName)
            }
            try checkLength(text)
            try spend(text.utf8.count)
            do throws(WholeMatch.WorkExceeded) {
                return .bool(try WholeMatch.matches(text, pattern: pattern))
            } catch {
                // No length: the string may come from a secure property (rule 13).
                throw .patternWork("\(place): matches at \(pointer)", bytes: nil, error)
            }
        case .in:
            let element = try evaluate(arguments[0])
            return .bool(try contains(try evaluate(arguments[1]), element, at: pointer))
        case .count:
            let value = try evaluate(arguments[0])
            switch value {
            case .array(let items): return .int(items.count)
            case .string(let text):
                try spend(text.utf8.count)
                return .int(text.count)
            default: throw mismatch(name, at: pointer, expected: "array or string", actual: value.kindName)
            }
        case .isPrime:
            let value = try evaluate(arguments[0])
            guard case .int(let number) = value else { throw mismatch(name, at: pointer, expected: "int", actual: value.kindName) }
            // Deterministic Miller–Rabin: bounded work for any 64-bit int, so it costs one step.
            return .bool(AppState.isPrime(number))
        case .at:
            let container = try evaluate(arguments[0])
            let key = try evaluate(arguments[1])
            switch (container, key) {
            case (.array(let items), .int(let index)): return items.indices.contains(index) ? items[index] : .null
            case (.object(let members), .string(let key)): return members[key] ?? .null
            default:
                throw mismatch(
                    name, at: pointer, expected: "[array, int] or [object, string]", actual: "[\(container.kindName), \(key.kindName)]")
            }
        case .range:
            // `low..<high` (ForEach(0..<n)): the ints from low up to high, high left out.
            let (low, high) = (try evaluate(arguments[0]), try evaluate(arguments[1]))
            guard case .int(let from) = low, case .int(let to) = high else {
                throw mismatch(name, at: pointer, expected: "two ints", actual: "\(low.kindName) and \(high.kindName)")
            }
            guard from < to else { return .array([]) }
            let (count, overflow) = to.subtractingReportingOverflow(from)
            guard !overflow else { throw .limitExceeded(limit: "expressionArray", max: limits.maxArrayLength) }
            try checkCount(count)
            try spend(count)
            return .array((from..<to).map(JSON.int))
        case .array:
            try checkCount(arguments.count)
            var values: [JSON] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try evaluate(argument)) }
            return .array(values)
        }
    }

    private mutating func iterate(
        _ iteration: ExpressionIteration, over: TypeExpression, depth: Int, body: TypeExpression, at pointer: String
    ) throws(EngineError) -> JSON {
        let name = iteration.rawValue
        let array = try evaluate(over)
        guard case .array(let items) = array else { throw mismatch(name, at: pointer, expected: "array", actual: array.kindName) }
        var built: [JSON] = []
        for item in items {
            try spend()
            variables.append(item)
            defer { variables.removeLast() }
            switch iteration {
            case .map:
                built.append(try evaluate(body))
                try checkCount(built.count)
            case .filter:
                if try condition(body, name, at: pointer) { built.append(item) }
            case .all: if try !condition(body, name, at: pointer) { return false }
            case .some: if try condition(body, name, at: pointer) { return true }
            case .none: if try condition(body, name, at: pointer) { return false }
            }
        }
        switch iteration {
        case .map, .filter: return .array(built)
        case .all, .none: return true
        case .some: return false
        }
    }

    /// `+ - * / %`: ints stay ints, checked for overflow; with a double the result is a double, which must be finite.
    private func arithmetic(_ op: ExpressionOperator, _ a: JSON, _ b: JSON, at pointer: String) throws(EngineError) -> JSON {
        let name = op.rawValue
        if case .int(let x) = a, case .int(let y) = b {
            if y == 0, op == .divide || op == .remainder {
                throw mismatch(name, at: pointer, expected: "a divisor other than 0", actual: "0")
            }
            let (value, overflow): (Int, Bool) =
                switch op {
                case .add: x.addingReportingOverflow(y)
                case .subtract: x.subtractingReportingOverflow(y)
                case .multiply: x.multipliedReportingOverflow(by: y)
                case .divide: x.dividedReportingOverflow(by: y)
                default: x.remainderReportingOverflow(dividingBy: y)
                }
            if overflow { throw mismatch(name, at: pointer, expected: "a result that fits a 64-bit int", actual: "overflow") }
            return .int(value)
        }
        guard let x = a.numberValue, let y = b.numberValue else {
            throw mismatch(name, at: pointer, expected: "number", actual: a.numberValue == nil ? a.kindName : b.kindName)
        }
        if y == 0, op == .divide || op == .remainder { throw mismatch(name, at: pointer, expected: "a divisor other than 0", actual: "0") }
        let value =
            switch op {
            case .add: x + y
            case .subtract: x - y
            case .multiply: x * y
            case .divide: x / y
            default: x.truncatingRemainder(dividingBy: y)
            }
        guard value.isFinite else { throw mismatch(name, at: pointer, expected: "a finite result", actual: "overflow") }
        return .double(value)
    }

    /// `< <= > >=`: two numbers, or two strings.
    private func compare(_ op: ExpressionOperator, _ a: JSON, _ b: JSON, at pointer: String) throws(EngineError) -> Bool {
        func ordered<T: Comparable>(_ x: T, _ y: T) -> Bool {
            switch op {
            case .less: x < y
            case .lessOrEqual: x <= y
            case .greater: x > y
            default: x >= y
            }
        }
        switch (a, b) {
        case (.int(let x), .int(let y)): return ordered(x, y)
        case (.string(let x), .string(let y)): return ordered(x, y)
        default:
            guard let x = a.numberValue, let y = b.numberValue else {
                throw mismatch(op.rawValue, at: pointer, expected: "two numbers or two strings", actual: "\(a.kindName) and \(b.kindName)")
            }
            return ordered(x, y)
        }
    }

    /// `cat`: strings as they are, numbers and bools as JSON writes them.
    private mutating func concatenate(_ arguments: [TypeExpression], at pointer: String) throws(EngineError) -> JSON {
        var text = ""
        for argument in arguments {
            let value = try evaluate(argument)
            switch value {
            case .string(let part): text += part
            case .int, .double, .bool: text += value.jsonText
            default: throw mismatch("cat", at: pointer, expected: "string, number or bool", actual: value.kindName)
            }
            try checkLength(text)
        }
        return .string(text)
    }

    /// `in`: an element of an array (as `==` compares), or a substring of a string.
    private mutating func contains(_ container: JSON, _ element: JSON, at pointer: String) throws(EngineError) -> Bool {
        switch (container, element) {
        case (.array(let items), _):
            for item in items {
                try spend()
                if ExpressionEvaluation.equal(item, element) { return true }
            }
            return false
        case (.string(let text), .string(let part)):
            try spend(text.utf8.count)
            return text.contains(part)
        default:
            throw mismatch(
                "in", at: pointer, expected: "[value, array] or [string, string]", actual: "[\(element.kindName), \(container.kindName)]")
        }
    }

    func checkLength(_ text: String) throws(EngineError) {
        guard text.utf8.count <= limits.maxStringLength else {
            throw .limitExceeded(limit: "expressionString", max: limits.maxStringLength)
        }
    }

    func checkCount(_ count: Int) throws(EngineError) {
        guard count <= limits.maxArrayLength else { throw .limitExceeded(limit: "expressionArray", max: limits.maxArrayLength) }
    }

    /// A member of a JSON value: an object's by name, an array's by index; null when it has none.
    static func member(_ name: String, of value: JSON) -> JSON {
        switch value {
        case .object(let object): return object[name] ?? .null
        case .array(let items):
            guard let index = Int(name), items.indices.contains(index) else { return .null }
            return items[index]
        default: return .null
        }
    }

    /// `==`: numbers by value (`1 == 1.0`), arrays and objects member by member, the rest as JSON compares.
    static func equal(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.int, .double), (.double, .int), (.double, .double): return a.numberValue == b.numberValue
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { member in y[member.key].map { equal(member.value, $0) } ?? false }
        default: return a == b
        }
    }
}
