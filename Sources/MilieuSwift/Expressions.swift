import MilieuJSON
import SwiftSyntax

/// What the names in an expression mean where it is written: a model type's properties and an
/// action's parameters (SPEC §9.3.1's `get`, `arg`, `var`), or a view's variables and the locals
/// of its body (§6.3's `get`).
struct NameScope {
    enum Role {
        /// A type's getter or action: `self.count` is `{"get": "count"}`.
        case model
        /// A view's body or control: `vm.email` is `{"get": "vm.email"}`.
        case view
    }

    var role: Role
    /// The type's stored and computed properties, or the view's variables.
    var names: Set<String>
    /// Names that stand for an expression: an action's parameters (`{"arg": p}`), a helper's
    /// arguments while it is written inline, a view's `init` parameters.
    var substitutions: [String: JSON] = [:]
    /// Locals bound by `let`, a `ForEach` element or a closure parameter, innermost last.
    var locals: [String] = []
    /// A local that holds an `NSPredicate(format: "SELF MATCHES %@", pattern)`: its pattern.
    var predicates: [String: JSON] = [:]
    /// Methods of the type or view, for calls written inline.
    var methods: [String: FunctionDeclSyntax] = [:]
    /// The view's closures its parent passes (`let onTap: () -> Void`): a call of one is a `call` step.
    var closures: Set<String> = []
    /// Whether the clock may be read (`Date()`): an action's, not a body's or a getter's.
    var readsClock = false
    /// The class each variable holding an object is of, so that `vm.count` reads the property
    /// `count` rather than counting.
    var objectTypes: [String: String] = [:]
    /// The view's `@State` variables: `vm = Model()` in an action makes an object only for one.
    var states: Set<String> = []

    func isLocal(_ name: String) -> Bool { locals.contains(name) }
}

/// Translates Swift expressions and statements into the expression language and its steps,
/// reporting what it cannot (a warning naming the construct) by returning nil.
struct ExpressionTranslator {
    let program: Program
    let unit: SourceUnit
    var scope: NameScope

    func place(_ node: some SyntaxProtocol) -> Place { Place(unit, node) }

    func unsupported(_ node: some SyntaxProtocol, _ what: String) -> JSON? {
        program.unsupported(place(node), what)
        return nil
    }

    // MARK: - Paths

    /// A member chain as key-path members: `self.state.count` is `["state", "count"]`, `items[0]`
    /// is `["items", "0"]`; nil for anything else.
    func members(_ expr: ExprSyntax) -> [String]? {
        if let reference = expr.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            return name == "self" ? [] : [Self.localName(name)]
        }
        if let access = expr.as(MemberAccessExprSyntax.self), let base = access.base {
            guard var members = members(base) else { return nil }
            members.append(access.declName.baseName.text)
            return members
        }
        if let subscripted = expr.as(SubscriptCallExprSyntax.self), subscripted.arguments.count == 1,
            let index = subscripted.arguments.first?.expression.as(IntegerLiteralExprSyntax.self),
            var members = members(subscripted.calledExpression)
        {
            members.append(index.literal.text)
            return members
        }
        if let unwrapped = expr.as(ForceUnwrapExprSyntax.self) { return members(unwrapped.expression) }
        if let chained = expr.as(OptionalChainingExprSyntax.self) { return members(chained.expression) }
        return nil
    }

    /// `$0` and other closure shorthand names as locals the language accepts.
    static func localName(_ name: String) -> String { name.hasPrefix("$") ? "_" + name.dropFirst() : name }

    /// What a key path reads, in this scope; nil (and a warning) when its head names nothing known.
    func read(_ members: [String], _ node: some SyntaxProtocol) -> JSON? {
        guard let head = members.first else { return unsupported(node, "self as a value") }
        let rest = Array(members.dropFirst())
        if let substituted = scope.substitutions[head], !scope.isLocal(head) { return Self.member(rest, of: substituted) }
        switch scope.role {
        case .view:
            guard scope.names.contains(head) || scope.isLocal(head) else {
                return unsupported(node, "\(head), which the view does not declare,")
            }
            return ["get": .string(members.joined(separator: "."))]
        case .model:
            if scope.isLocal(head) { return Self.member(rest, of: ["var": .string(head)]) }
            guard scope.names.contains(head) else { return unsupported(node, "\(head), which the type does not declare,") }
            return Self.member(rest, of: ["get": .string(head)])
        }
    }

    /// Whether the value at `members` is an object of a class the source declares: then a member
    /// after it is a property (`vm.count`), not an array's or a string's (`items.count`).
    func holdsObject(_ members: [String]) -> Bool {
        guard let head = members.first, var type = scope.objectTypes[head] else { return false }
        for member in members.dropFirst() {
            guard let model = program.models[type]?.node, let next = Self.propertyType(member, of: model) else { return false }
            type = next
        }
        return program.models[type] != nil
    }

    /// The class a property of `model` holds, by its annotation (`var manager: Profile?`) or the
    /// object it starts with (`var inner = Inner()`).
    static func propertyType(_ name: String, of model: ClassDeclSyntax) -> String? {
        for member in model.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings where binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name {
                if let annotation = binding.typeAnnotation?.type { return annotation.trimmedDescription.trimmingCharacters(in: "?!") }
                return binding.initializer?.value.as(FunctionCallExprSyntax.self)?.calledExpression.as(DeclReferenceExprSyntax.self)?
                    .baseName.text
            }
        }
        return nil
    }

    /// `value.a.b` as `at` operations: members inside a value.
    static func member(_ members: [String], of value: JSON) -> JSON {
        members.reduce(value) { base, member in
            ["at": [base, Int(member).map(JSON.int) ?? .string(member)]]
        }
    }

    // MARK: - Expressions

    func expression(_ expr: ExprSyntax) -> JSON? {
        if let literal = literal(expr) { return literal }
        if let access = expr.as(MemberAccessExprSyntax.self), access.base != nil, enumBase(access.base) {
            return .string(access.declName.baseName.text)  // `ActivityType.cleared`
        }
        if let string = expr.as(StringLiteralExprSyntax.self) { return interpolation(string) }
        if let members = members(expr) {
            if let last = members.last, members.count >= 2, !holdsObject(Array(members.dropLast())) {
                let base = Array(members.dropLast())
                switch last {
                case "count": return read(base, expr).map { ["count": $0] }
                case "isEmpty": return read(base, expr).map { ["==": [["count": $0], 0]] }
                case "first": return read(base, expr).map { ["at": [$0, 0]] }
                case "description": return read(base, expr).map { ["cat": [$0]] }
                default: break
                }
            }
            return read(members, expr)
        }
        if let paren = expr.as(TupleExprSyntax.self), paren.elements.count == 1, let inner = paren.elements.first {
            return expression(inner.expression)
        }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self) {
            guard let operand = expression(prefix.expression) else { return nil }
            switch prefix.operator.text {
            case "!": return ["not": operand]
            case "-": return ["-": operand]
            default: return unsupported(expr, "the operator \(prefix.operator.text)")
            }
        }
        if let infix = expr.as(InfixOperatorExprSyntax.self) { return self.infix(infix) }
        if let ternary = expr.as(TernaryExprSyntax.self) {
            guard let condition = expression(ternary.condition), let then = expression(ternary.thenExpression),
                let otherwise = expression(ternary.elseExpression)
            else { return nil }
            return ["if": [condition, then, otherwise]]
        }
        if let array = expr.as(ArrayExprSyntax.self) {
            var items: [JSON] = []
            for element in array.elements {
                guard let item = expression(element.expression) else { return nil }
                items.append(item)
            }
            return ["array": .array(items)]
        }
        if let call = expr.as(FunctionCallExprSyntax.self) { return self.call(call) }
        if let access = expr.as(MemberAccessExprSyntax.self), access.base == nil {
            // `.light`: a case of an enum without associated values is its name.
            return .string(access.declName.baseName.text)
        }
        return unsupported(expr, "the expression")
    }

    /// A JSON literal: numbers, strings without interpolation, booleans, nil.
    func literal(_ expr: ExprSyntax) -> JSON? {
        if let integer = expr.as(IntegerLiteralExprSyntax.self) {
            return Int(integer.literal.text.replacing("_", with: "")).map(JSON.int)
        }
        if let float = expr.as(FloatLiteralExprSyntax.self) { return Double(float.literal.text.replacing("_", with: "")).map(JSON.double) }
        if let boolean = expr.as(BooleanLiteralExprSyntax.self) { return .bool(boolean.literal.tokenKind == .keyword(.true)) }
        if expr.is(NilLiteralExprSyntax.self) { return .null }
        if let string = expr.as(StringLiteralExprSyntax.self), let text = Program.literalText(string) { return .string(text) }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-", let number = literal(prefix.expression) {
            switch number {
            case .int(let value): return .int(-value)
            case .double(let value): return .double(-value)
            default: return nil
            }
        }
        return nil
    }

    /// A value written as a constant (SPEC §5.1's forms): a literal, an enum case (`.cleared`,
    /// `.added(3)`, `.removed(prime: 5)`, `ActivityType.cleared`), a struct of the source made
    /// memberwise of constants (`Point(x: 1, y: 2)`) and an array of them; nil, reporting nothing,
    /// for anything else. What an initial value or a property's default is written as.
    func constant(_ expr: ExprSyntax) -> JSON? {
        if let literal = literal(expr) { return literal }
        if let array = expr.as(ArrayExprSyntax.self) {
            var items: [JSON] = []
            for element in array.elements {
                guard let item = constant(element.expression) else { return nil }
                items.append(item)
            }
            return .array(items)
        }
        if let access = expr.as(MemberAccessExprSyntax.self), enumBase(access.base) {
            return .string(access.declName.baseName.text)
        }
        guard let call = expr.as(FunctionCallExprSyntax.self), call.trailingClosure == nil else { return nil }
        var values: [(label: String?, value: JSON)] = []
        for argument in call.arguments {
            guard let value = constant(argument.expression) else { return nil }
            values.append((argument.label?.text, value))
        }
        if let access = call.calledExpression.as(MemberAccessExprSyntax.self), enumBase(access.base) {
            let name = access.declName.baseName.text
            return name == "init" ? nil : Self.enumCase(name, values)
        }
        guard let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text, let declared = program.structs[type]
        else { return nil }
        return memberwise(declared.node, values)
    }

    /// A struct made by its memberwise initializer, as the object of its stored properties in
    /// their declared order: each from its argument, else from its default (`var done = false`).
    /// Nil for a struct with an `init` of its own, whose parameters need not be its properties,
    /// and for a property with neither.
    private func memberwise(_ node: StructDeclSyntax, _ values: [(label: String?, value: JSON)]) -> JSON? {
        guard let properties = Self.memberwiseProperties(node) else { return nil }
        var given = values
        var members: [JSONObject.Member] = []
        for property in properties {
            if property.parameter, let index = given.firstIndex(where: { $0.label == property.name }) {
                members.append((property.name, given.remove(at: index).value))
            } else if let initial = property.initial.flatMap(constant) {
                members.append((property.name, initial))
            } else {
                return nil
            }
        }
        return given.isEmpty ? .object(JSONObject(uniqueMembers: members)) : nil
    }

    /// A struct's stored properties, in order, as its memberwise initializer takes them: whether
    /// each is a parameter (a `let` with a value is not) and its default. Nil when the struct
    /// declares an `init` of its own.
    static func memberwiseProperties(_ node: StructDeclSyntax) -> [(name: String, parameter: Bool, initial: ExprSyntax?)]? {
        guard !node.memberBlock.members.contains(where: { $0.decl.is(InitializerDeclSyntax.self) }) else { return nil }
        var properties: [(name: String, parameter: Bool, initial: ExprSyntax?)] = []
        for member in node.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.modifiers.contains(where: { $0.name.text == "static" })
            else { continue }
            for binding in variable.bindings where binding.isStored {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return nil }
                let parameter = variable.bindingSpecifier.text == "var" || binding.initializer == nil
                properties.append((name, parameter, binding.initializer?.value))
            }
        }
        return properties
    }

    /// Whether `base` is where an enum case is written: nothing (`.cleared`) or a declared enum (`ActivityType.cleared`).
    private func enumBase(_ base: ExprSyntax?) -> Bool {
        guard let base else { return true }
        return base.as(DeclReferenceExprSyntax.self).map { program.enums[$0.baseName.text] != nil } ?? false
    }

    /// An enum case with associated values (SPEC §5.1): one unlabelled value as `{case: value}`,
    /// labelled or several as `{case: {label: value}}`, unlabelled ones named `_0`, `_1`, …
    static func enumCase(_ name: String, _ values: [(label: String?, value: JSON)]) -> JSON {
        if values.count == 1, values[0].label == nil { return .object(JSONObject([(name, values[0].value)])) }
        let record = JSONObject(uniqueMembers: values.enumerated().map { ($0.element.label ?? "_\($0.offset)", $0.element.value) })
        return .object(JSONObject([(name, .object(record))]))
    }

    /// `"num: \(selectedNum)"` as `cat`.
    private func interpolation(_ string: StringLiteralExprSyntax) -> JSON? {
        var parts: [JSON] = []
        for segment in string.segments {
            switch segment {
            case .stringSegment(let piece): parts.append(.string(Program.unescaped(piece.content.text)))
            case .expressionSegment(let interpolated):
                guard interpolated.expressions.count == 1, let inner = interpolated.expressions.first,
                    let value = expression(inner.expression)
                else { return unsupported(interpolated, "this interpolation") }
                parts.append(value)
            @unknown default:
                return unsupported(segment, "this part of a string")
            }
        }
        return ["cat": .array(parts)]
    }

    private func infix(_ infix: InfixOperatorExprSyntax) -> JSON? {
        guard let operatorToken = infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text else {
            return unsupported(infix, "the expression")
        }
        guard let left = expression(infix.leftOperand), let right = expression(infix.rightOperand) else { return nil }
        switch operatorToken {
        case "&&": return ["and": [left, right]]
        case "||": return ["or": [left, right]]
        case "??": return ["if": [["==": [left, .null]], right, left]]
        case "+":
            // `+` of two strings is concatenation; the literals say which it is.
            let isText = { (json: JSON) -> Bool in if case .string = json { true } else { json["cat"] != nil } }
            return isText(left) || isText(right) ? ["cat": [left, right]] : ["+": [left, right]]
        case "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=":
            return [operatorToken: [left, right]]
        default: return unsupported(infix, "the operator \(operatorToken)")
        }
    }

    /// Calls in an expression: the helpers a body or getter may use, a method written inline,
    /// a value type's initializer (a record), an enum case with associated values.
    private func call(_ call: FunctionCallExprSyntax) -> JSON? {
        let arguments = Array(call.arguments)
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            switch name {
            case "Date" where arguments.isEmpty:
                guard scope.readsClock else { return unsupported(call, "Date() outside an action (a body cannot read the clock)") }
                return ["now": []]
            case "String" where arguments.count == 1:
                return expression(arguments[0].expression).map { ["cat": [$0]] }
            case "isPrime" where arguments.count == 1 && program.functions["isPrime"] == nil:
                program.report(
                    place(call), .warning,
                    "isPrime is not declared in the source; Milieu's built-in isPrime (exact for every Int) stands in for it")
                return expression(arguments[0].expression).map { ["isPrime": $0] }
            default: break
            }
            if let method = scope.methods[name] { return inline(method, arguments, call) }
            if let function = program.functions[name] { return inline(function.node, arguments, call) }
            if let declared = program.structs[name] { return structValue(declared.node, arguments, call) }
            if program.models[name] != nil {
                return unsupported(call, "making a \(name) here (an object is made for a @State, as vm = \(name)(…), or by a wrapper)")
            }
            return unsupported(call, "\(name)(…), which the source does not declare,")
        }
        if let access = call.calledExpression.as(MemberAccessExprSyntax.self) {
            let name = access.declName.baseName.text
            guard let base = access.base, !enumBase(base) else {
                // `.init(timestamp:type:)` and `.removedFavoritePrime(prime)`, `.removed(prime: p)`.
                if name == "init" { return record(arguments, call) }
                guard arguments.count == 1, arguments[0].label == nil, let value = expression(arguments[0].expression) else {
                    return record(arguments, call).map { ["object": [name: $0]] }
                }
                return ["object": [name: value]]
            }
            if let local = base.as(DeclReferenceExprSyntax.self)?.baseName.text, let pattern = scope.predicates[local],
                name == "evaluate", arguments.count == 1, let subject = expression(arguments[0].expression)
            {
                return ["matches": [subject, pattern]]
            }
            switch name {
            case "contains" where arguments.count == 1:
                guard let container = expression(base), let element = expression(arguments[0].expression) else { return nil }
                return ["in": [element, container]]
            case "uppercased", "lowercased":
                return unsupported(call, "\(name)()")
            default:
                if base.as(DeclReferenceExprSyntax.self)?.baseName.text == "self", let method = scope.methods[name] {
                    return inline(method, arguments, call)
                }
                return unsupported(call, "the call \(name)(…)")
            }
        }
        return unsupported(call, "the call")
    }

    /// `Item(id: n)` as the record its memberwise initializer makes, the properties it does not
    /// pass at their defaults (`var done = false`), so that it fits the struct's record type;
    /// a struct with an `init` of its own as its arguments (`record`).
    private func structValue(_ node: StructDeclSyntax, _ arguments: [LabeledExprSyntax], _ call: FunctionCallExprSyntax) -> JSON? {
        guard let properties = Self.memberwiseProperties(node) else { return record(arguments, call) }
        var given = arguments
        var members: [JSONObject.Member] = []
        for property in properties {
            if property.parameter, let index = given.firstIndex(where: { $0.label?.text == property.name }) {
                guard let value = expression(given.remove(at: index).expression) else { return nil }
                members.append((property.name, value))
            } else if let initial = property.initial.flatMap(constant) {
                members.append((property.name, initial))
            } else {
                if let initial = property.initial {
                    // `let id = UUID()`: each value would get one of its own, which no step makes.
                    let type = node.name.text
                    let kind = initial.is(FunctionCallExprSyntax.self) ? "a value made anew for each \(type)" : "not a constant"
                    program.unsupported(place(call), "\(type).\(property.name) = \(initial.trimmedDescription), \(kind),")
                }
                return record(arguments, call)
            }
        }
        return given.isEmpty ? ["object": .object(JSONObject(uniqueMembers: members))] : record(arguments, call)
    }

    /// `Activity(timestamp: Date(), type: .added)` as a record: `{"object": {...}}`.
    private func record(_ arguments: [LabeledExprSyntax], _ node: some SyntaxProtocol) -> JSON? {
        var members: [JSONObject.Member] = []
        for (index, argument) in arguments.enumerated() {
            guard let value = expression(argument.expression) else { return nil }
            members.append((argument.label?.text ?? "_\(index)", value))
        }
        return ["object": .object(JSONObject(uniqueMembers: members))]
    }

    /// A helper function or method whose body is an expression (or `let`s then a `return`),
    /// written where it is called with its arguments in place of its parameters.
    func inline(_ function: FunctionDeclSyntax, _ arguments: [LabeledExprSyntax], _ node: some SyntaxProtocol) -> JSON? {
        let parameters = Array(function.signature.parameterClause.parameters)
        guard parameters.count == arguments.count, let body = function.body else {
            return unsupported(node, "the call of \(function.name.text)")
        }
        var inner = self
        for (parameter, argument) in zip(parameters, arguments) {
            guard let value = expression(argument.expression) else { return nil }
            let name = (parameter.secondName ?? parameter.firstName).text
            inner.scope.substitutions[name] = value
            inner.scope.locals.removeAll { $0 == name }
        }
        let statements = Array(body.statements)
        for (index, statement) in statements.enumerated() {
            let isLast = index == statements.count - 1
            if let variable = statement.item.as(VariableDeclSyntax.self), !isLast, let binding = variable.bindings.first,
                let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, let value = binding.initializer?.value
            {
                if let predicate = inner.predicate(value) {
                    inner.scope.predicates[name] = predicate
                } else {
                    guard let bound = inner.expression(value) else { return nil }
                    inner.scope.substitutions[name] = bound
                }
                continue
            }
            guard isLast else { return unsupported(statement, "a statement of \(function.name.text)") }
            if let returned = statement.item.as(ReturnStmtSyntax.self), let value = returned.expression {
                return inner.expression(value)
            }
            if let value = statement.item.as(ExprSyntax.self) { return inner.expression(value) }
            return unsupported(statement, "the result of \(function.name.text)")
        }
        return unsupported(node, "the call of \(function.name.text)")
    }

    /// `NSPredicate(format: "SELF MATCHES %@", pattern)`: the pattern, a string written in the source.
    private func predicate(_ expr: ExprSyntax) -> JSON? {
        guard let call = expr.as(FunctionCallExprSyntax.self), call.calledExpression.trimmedDescription == "NSPredicate",
            call.arguments.count == 2, let format = call.arguments.first?.expression.as(StringLiteralExprSyntax.self),
            Program.literalText(format) == "SELF MATCHES %@", let pattern = expression(call.arguments.last!.expression)
        else { return nil }
        guard case .string = pattern else {
            program.report(place(expr), .warning, "the pattern of NSPredicate is not a string written in the source; it is left out")
            return nil
        }
        return pattern
    }
}
