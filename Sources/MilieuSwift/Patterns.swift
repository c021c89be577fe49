import MilieuJSON
import SwiftSyntax

/// What a pattern of a `switch` case or an `if case` comes to: the condition under which the
/// subject matches it, and the locals it binds, each as the expression that reads it from the
/// subject, to be evaluated only once the condition held (a payload is read from an object, and
/// a case without one is a string).
struct PatternMatch {
    /// Whether the subject matches the pattern.
    var condition: JSON
    var bindings: [(name: String, value: JSON)] = []
    /// A `where` clause, which may read the bindings: checked once the pattern matched.
    var clause: JSON?

    /// The pattern's condition and then its `where` clause.
    var whole: JSON { clause.map { ["and": [condition, $0]] } ?? condition }
}

/// `switch` and `if case` (SwiftUI's `_ConditionalContent`): each case is a branch, as `if`/`else
/// if` is, so a switch is written as nested `if`s, in a body (each case its own place) and in an
/// action. Enum cases are matched as SPEC §5.1 writes them: `.cleared` is `"cleared"`,
/// `.added(3)` is `{"added": 3}`, `.removed(prime: 5)` is `{"removed": {"prime": 5}}`.
extension ExpressionTranslator {
    /// A `switch`: each case's pattern as a condition over the subject, with the locals it binds,
    /// and its statements; `default` (or `@unknown default`) has none. Nil, reported, when a case
    /// cannot be modelled.
    func switchCases(_ node: SwitchExprSyntax) -> (subject: JSON, cases: [(match: PatternMatch?, body: CodeBlockItemListSyntax)])? {
        guard let subject = expression(node.subject) else { return nil }
        var cases: [(match: PatternMatch?, body: CodeBlockItemListSyntax)] = []
        for element in node.cases {
            guard case .switchCase(let switchCase) = element else { return notModelled(element, "this part of a switch") }
            switch switchCase.label {
            case .default:
                cases.append((nil, switchCase.statements))
            case .case(let label):
                var matches: [PatternMatch] = []
                for item in label.caseItems {
                    guard var match = self.match(item.pattern, subject) else { return nil }
                    if let clause = item.whereClause {
                        // `where` reads the bound names as what they stand for: it is checked before the case's `let`s.
                        var inner = self
                        for (name, value) in match.bindings {
                            inner.scope.substitutions[name] = value
                            inner.scope.locals.removeAll { $0 == name }
                        }
                        guard let condition = inner.expression(clause.condition) else { return nil }
                        match.clause = condition
                    }
                    matches.append(match)
                }
                guard matches.count == 1 || matches.allSatisfy({ $0.bindings.isEmpty }) else {
                    return notModelled(label, "a case of several patterns that bind names")
                }
                var match = matches[0]
                if matches.count > 1 { match = PatternMatch(condition: ["or": .array(matches.map(\.whole))]) }
                cases.append((match, switchCase.statements))
            @unknown default:
                return notModelled(switchCase, "this case")
            }
        }
        return (subject, cases)
    }

    /// Reports `node` as not modelled (`what`), for a result of any type.
    private func notModelled<T>(_ node: some SyntaxProtocol, _ what: String) -> T? {
        program.unsupported(place(node), what)
        return nil
    }

    /// The `let`s that bind names where a branch begins (a pattern's values, an `if let`), read
    /// from the subject: the branch runs only once its condition held. The names are locals of
    /// this scope from now on, as Swift scopes them: the branch, not what follows it.
    mutating func bindings(_ bound: [(name: String, value: JSON)]) -> [JSON] {
        var lets: [JSON] = []
        for (name, value) in bound {
            lets.append(["let": .string(name), "be": value])
            scope.locals.append(name)
        }
        return lets
    }

    /// An `if`'s conditions as one (`x > 0`, `let name`, `let u = store.user`, `case .added(let n)
    /// = mode`), and the names they bind for the `then` branch; a condition after a binding reads
    /// the bound name as the expression it stands for. Nil, reported, when one is not modelled.
    func conditions(_ list: ConditionElementListSyntax) -> (condition: JSON, bindings: [(name: String, value: JSON)])? {
        var inner = self
        var conditions: [JSON] = []
        var bound: [(name: String, value: JSON)] = []
        func bind(_ name: String, _ value: JSON) {
            bound.append((name, value))
            inner.scope.substitutions[name] = value
            inner.scope.locals.removeAll { $0 == name }
        }
        for element in list {
            switch element.condition {
            case .expression(let condition):
                guard let value = inner.expression(condition) else { return nil }
                conditions.append(value)
            case .optionalBinding(let binding):
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else {
                    return notModelled(binding, "this binding")
                }
                guard let value = binding.initializer.map({ inner.expression($0.value) }) ?? inner.read([name], binding) else {
                    return nil
                }
                conditions.append(["!=": [value, .null]])
                bind(name, value)
            case .matchingPattern(let matching):
                guard let subject = inner.expression(matching.initializer.value), let match = inner.match(matching.pattern, subject)
                else { return nil }
                conditions.append(match.whole)
                for (name, value) in match.bindings { bind(name, value) }
            default:
                return notModelled(element, "this condition")
            }
        }
        return (conditions.count == 1 ? conditions[0] : ["and": .array(conditions)], bound)
    }

    /// Whether `subject` matches `pattern`, and what it binds; nil, reported, for a pattern that
    /// is not modelled.
    func match(_ pattern: PatternSyntax, _ subject: JSON, binding: Bool = false) -> PatternMatch? {
        if pattern.is(WildcardPatternSyntax.self) { return PatternMatch(condition: true) }
        if let bound = pattern.as(ValueBindingPatternSyntax.self) { return match(bound.pattern, subject, binding: true) }
        if let name = pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            return PatternMatch(condition: true, bindings: [(name, subject)])
        }
        if let expressed = pattern.as(ExpressionPatternSyntax.self) { return match(expressed.expression, subject, binding: binding) }
        return notModelled(pattern, "this pattern")
    }

    /// A pattern written as an expression: a value (`0`, `"a"`), a range (`1...5`), an enum case
    /// with or without associated values, a name bound (`let p`, or `p` inside `case let`).
    private func match(_ expr: ExprSyntax, _ subject: JSON, binding: Bool) -> PatternMatch? {
        if expr.is(DiscardAssignmentExprSyntax.self) { return PatternMatch(condition: true) }
        if let inner = expr.as(PatternExprSyntax.self) { return match(inner.pattern, subject, binding: binding) }
        if binding, let name = expr.as(DeclReferenceExprSyntax.self)?.baseName.text {
            return PatternMatch(condition: true, bindings: [(name, subject)])
        }
        if let range = expr.as(InfixOperatorExprSyntax.self), let op = range.operator.as(BinaryOperatorExprSyntax.self)?.operator.text,
            op == "..." || op == "..<"
        {
            guard let low = expression(range.leftOperand), let high = expression(range.rightOperand) else { return nil }
            return PatternMatch(condition: ["and": [[">=": [subject, low]], [op == "..." ? "<=" : "<": [subject, high]]]])
        }
        if let call = expr.as(FunctionCallExprSyntax.self), let access = call.calledExpression.as(MemberAccessExprSyntax.self) {
            return caseMatch(access, Array(call.arguments), subject, binding: binding)
        }
        guard let value = expression(expr) else { return nil }
        return PatternMatch(condition: ["==": [subject, value]])
    }

    /// `.added(let p)`, `.removed(prime: 5)`: the subject is that case (an object with its name,
    /// never a case without values, which is a string), and each associated value matches its
    /// pattern. The enum must be declared in the source, which says how its values are written.
    private func caseMatch(
        _ access: MemberAccessExprSyntax, _ arguments: [LabeledExprSyntax], _ subject: JSON, binding: Bool
    ) -> PatternMatch? {
        let name = access.declName.baseName.text
        let declared = program.enums.values.lazy.compactMap { declared -> (EnumDeclSyntax, EnumCaseElementSyntax)? in
            let elements = declared.node.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }.flatMap(\.elements)
            return elements.first { $0.name.text == name && $0.parameterClause != nil }.map { (declared.node, $0) }
        }.first
        guard let (enumeration, element) = declared, let parameters = element.parameterClause?.parameters,
            parameters.count == arguments.count
        else {
            return notModelled(access, "the case .\(name)(…) of an enum the source does not declare with these values")
        }
        let plain = enumeration.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }.flatMap(\.elements)
            .filter { $0.parameterClause == nil }.map { JSON.string($0.name.text) }
        let payload: JSON = ["at": [subject, .string(name)]]
        var conditions: [JSON] = []
        if !plain.isEmpty { conditions.append(["not": ["in": [subject, ["literal": .array(plain)]]]]) }
        conditions.append(["!=": [payload, .null]])
        var result = PatternMatch(condition: true)
        let single = parameters.count == 1 && parameters.first?.firstName == nil
        for (index, (parameter, argument)) in zip(parameters, arguments).enumerated() {
            let key = parameter.firstName?.text ?? "_\(index)"
            let value: JSON = single ? payload : ["at": [payload, .string(key)]]
            guard let inner = match(argument.expression, value, binding: binding) else { return nil }
            if inner.condition != true { conditions.append(inner.condition) }
            result.bindings += inner.bindings
        }
        result.condition = ["and": .array(conditions)]
        return result
    }
}
