import MilieuJSON
import SwiftSyntax

/// Statements as steps (SPEC §9.3.3, §6.5): what a method of a type or a button's closure does.
extension ExpressionTranslator {
    /// The steps of a block; a statement that cannot be modelled is reported and left out.
    mutating func steps(_ items: CodeBlockItemListSyntax) -> [JSON] {
        let locals = scope.locals
        defer { scope.locals = locals }
        var steps: [JSON] = []
        for item in items { steps += step(item.item) }
        return steps
    }

    private mutating func step(_ item: CodeBlockItemSyntax.Item) -> [JSON] {
        switch item {
        case .decl(let decl):
            guard let variable = decl.as(VariableDeclSyntax.self), variable.bindings.count == 1, let binding = variable.bindings.first,
                let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, let value = binding.initializer?.value,
                let bound = expression(value)
            else {
                program.unsupported(place(decl), "this declaration in an action")
                return []
            }
            scope.locals.append(name)
            return [["let": .string(name), "be": bound]]
        case .stmt(let stmt):
            if let returned = stmt.as(ReturnStmtSyntax.self) {
                guard let value = returned.expression else { return [] }
                return expression(value).map { [["return": $0]] } ?? []
            }
            if let expressionStatement = stmt.as(ExpressionStmtSyntax.self) { return step(.expr(expressionStatement.expression)) }
            program.unsupported(place(stmt), "this statement")
            return []
        case .expr(let expr):
            return statement(expr)
        @unknown default:
            program.unsupported(place(item), "this statement")
            return []
        }
    }

    private mutating func statement(_ expr: ExprSyntax) -> [JSON] {
        if let infix = expr.as(InfixOperatorExprSyntax.self) { return assignment(infix) }
        if let branch = expr.as(IfExprSyntax.self) { return ifStep(branch) }
        if let choice = expr.as(SwitchExprSyntax.self) { return switchStep(choice) }
        if let call = expr.as(FunctionCallExprSyntax.self) { return callStep(call) }
        program.unsupported(place(expr), "this statement")
        return []
    }

    /// `x = e`, `x += e` and the other compound assignments.
    private mutating func assignment(_ infix: InfixOperatorExprSyntax) -> [JSON] {
        let compound = infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text
        guard infix.operator.is(AssignmentExprSyntax.self) || ["+=", "-=", "*=", "/=", "%="].contains(compound ?? "") else {
            program.unsupported(place(infix), "this statement")
            return []
        }
        if compound == nil, let made = objectMade(infix.rightOperand) {
            guard let target = members(infix.leftOperand), target.count == 1, scope.states.contains(target[0]) else {
                program.unsupported(
                    place(infix), "making a \(made.type) here (an object is made for a @State of the view, as vm = \(made.type)(…))")
                return []
            }
            guard let json = made.json else { return [] }
            return [["set": .string(target[0]), "to": ["new": json]]]
        }
        guard let target = target(infix.leftOperand), var value = expression(infix.rightOperand) else { return [] }
        if let compound, let current = read(targetMembers(infix.leftOperand) ?? [], infix) {
            let op = String(compound.dropLast())
            let isText = { (json: JSON) -> Bool in if case .string = json { true } else { json["cat"] != nil } }
            value = op == "+" && isText(value) ? ["cat": [current, value]] : .object(JSONObject([(op, JSON.array([current, value]))]))
        }
        return [["set": .string(target), "to": value]]
    }

    private func targetMembers(_ expr: ExprSyntax) -> [String]? { members(expr) }

    /// `Model(count: 7)`, a class of the source made: `{"type": "Model", "init": {"count": 7}}`, the
    /// labels as the class's `init` assigns them (`ViewInstantiator.initializerLabels`), the
    /// values expressions of the view (SPEC §6.5's `new`).
    private func objectMade(_ expr: ExprSyntax) -> (type: String, json: JSON?)? {
        guard let call = expr.as(FunctionCallExprSyntax.self),
            let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text, let model = program.models[type]
        else { return nil }
        let labels = ViewInstantiator.initializerLabels(model.node)
        var initial: [JSONObject.Member] = []
        for argument in call.arguments {
            let label = argument.label?.text ?? ""
            guard let value = expression(argument.expression) else { return (type, nil) }
            initial.append((labels[label] ?? label, value))
        }
        var made: JSONObject = ["type": .string(type)]
        if !initial.isEmpty { made["init"] = .object(JSONObject(uniqueMembers: initial)) }
        return (type, .object(made))
    }

    /// What a step writes: a property's name in a type, a key path from the view's variable in a view.
    func target(_ expr: ExprSyntax) -> String? {
        guard let members = members(expr), let head = members.first else {
            program.unsupported(place(expr), "writing to this")
            return nil
        }
        switch scope.role {
        case .model:
            guard members.count == 1, scope.names.contains(head) else {
                program.unsupported(place(expr), "writing inside a property or to a local")
                return nil
            }
            return head
        case .view:
            // A local is written into only where it holds an object: a `ForEach` row's `todo.done`.
            guard scope.names.contains(head) || scope.isLocal(head) && members.count > 1 else {
                program.unsupported(place(expr), "writing to \(head), which is not a variable of the view,")
                return nil
            }
            return members.joined(separator: ".")
        }
    }

    /// `if`, `if let`, `if case`: the names a condition binds are locals of the `then` steps only.
    private mutating func ifStep(_ branch: IfExprSyntax) -> [JSON] {
        guard let (condition, bound) = conditions(branch.conditions) else { return [] }
        let locals = scope.locals
        let lets = bindings(bound)
        var step: JSONObject = ["if": condition, "then": .array(lets + steps(branch.body.statements))]
        scope.locals = locals
        switch branch.elseBody {
        case .codeBlock(let block)?: step["else"] = .array(steps(block.statements))
        case .ifExpr(let nested)?: step["else"] = .array(ifStep(nested))
        case nil: break
        @unknown default: program.unsupported(place(branch), "this else")
        }
        return [.object(step)]
    }

    /// `switch` in an action: nested `if` steps, `default` the last `else`.
    private mutating func switchStep(_ node: SwitchExprSyntax) -> [JSON] {
        guard let (_, cases) = switchCases(node) else { return [] }
        var rest: [JSON] = []
        for (match, body) in cases.reversed() {
            guard let match else {
                rest = steps(body)
                continue
            }
            let locals = scope.locals
            let lets = bindings(match.bindings)
            var step: JSONObject = ["if": match.whole, "then": .array(lets + steps(body))]
            scope.locals = locals
            if !rest.isEmpty { step["else"] = .array(rest) }
            rest = [.object(step)]
        }
        return rest
    }

    /// A call as a step: a mutation of an array or bool, an object's action, a method written
    /// inline, or something left out with a note (`print`).
    private mutating func callStep(_ call: FunctionCallExprSyntax) -> [JSON] {
        let arguments = Array(call.arguments)
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            if name == "print" {
                program.report(place(call), .note, "print(…) prints nothing here; Milieu's notifications say what happened")
                return []
            }
            if name == "withAnimation", let closure = call.trailingClosure { return steps(closure.statements) }
            if let method = scope.methods[name] { return inlineSteps(method, arguments, call) }
            if scope.closures.contains(name) {
                var step: JSONObject = ["call": .string(name)]
                if !arguments.isEmpty {
                    var values: [JSON] = []
                    for argument in arguments {
                        guard let value = expression(argument.expression) else { return [] }
                        values.append(value)
                    }
                    step["args"] = .array(values)
                }
                return [.object(step)]
            }
            program.unsupported(place(call), "the call of \(name), which the source does not declare,")
            return []
        }
        guard let access = call.calledExpression.as(MemberAccessExprSyntax.self), let base = access.base else {
            program.unsupported(place(call), "this call")
            return []
        }
        let name = access.declName.baseName.text
        if base.as(DeclReferenceExprSyntax.self)?.baseName.text == "self", let method = scope.methods[name] {
            return inlineSteps(method, arguments, call)
        }
        func value(_ index: Int) -> JSON? { index < arguments.count ? expression(arguments[index].expression) : nil }
        switch (name, arguments.count) {
        case ("toggle", 0):
            return target(base).map { [["toggle": .string($0)]] } ?? []
        case ("append", 1) where arguments[0].label?.text == "contentsOf":
            // Each element, where an action step appends one value: not modelled.
            program.unsupported(place(call), "append(contentsOf:)")
            return []
        case ("append", 1):
            guard let target = target(base), let element = value(0) else { return [] }
            return [["append": .string(target), "value": element]]
        case ("insert", 2) where arguments[1].label?.text == "at":
            guard let target = target(base), let element = value(0), let index = value(1) else { return [] }
            return [["insert": .string(target), "value": element, "at": index]]
        case ("remove", 1) where arguments[0].label?.text == "at":
            guard let target = target(base), let index = value(0) else { return [] }
            return [["remove": .string(target), "at": index]]
        case ("removeAll", 0):
            return target(base).map { [["set": .string($0), "to": ["literal": []]]] } ?? []
        case ("removeAll", _):
            return removeAll(base, call)
        default:
            break
        }
        // `vm.login()`: an action of an object the view holds.
        guard scope.role == .view, let path = members(base), let head = path.first, scope.names.contains(head) else {
            program.unsupported(place(call), "the call \(name)(…)")
            return []
        }
        var values: [JSON] = []
        for index in arguments.indices {
            guard let argument = value(index) else { return [] }
            values.append(argument)
        }
        var step: JSONObject = ["call": .string((path + [name]).joined(separator: "."))]
        if !values.isEmpty { step["args"] = .array(values) }
        return [.object(step)]
    }

    /// `items.removeAll(where: { $0 == n })`.
    private mutating func removeAll(_ base: ExprSyntax, _ call: FunctionCallExprSyntax) -> [JSON] {
        let closure = call.trailingClosure ?? call.arguments.first?.expression.as(ClosureExprSyntax.self)
        guard let closure, closure.statements.count == 1, case .expr(let condition)? = closure.statements.first?.item,
            let target = target(base)
        else {
            program.unsupported(place(call), "this removeAll")
            return []
        }
        let parameter =
            closure.signature?.parameterClause.flatMap { clause -> String? in
                if case .simpleInput(let names) = clause { return names.first?.name.text }
                return nil
            } ?? "_0"
        var inner = self
        inner.scope.locals.append(parameter)
        inner.scope.substitutions[parameter] = ["var": .string(parameter)]
        guard let body = inner.expression(condition) else { return [] }
        return [["remove": .string(target), "where": [.string(parameter), body]]]
    }

    /// A method of the type or view, its statements written where it is called.
    mutating func inlineSteps(_ method: FunctionDeclSyntax, _ arguments: [LabeledExprSyntax], _ node: some SyntaxProtocol) -> [JSON] {
        let parameters = Array(method.signature.parameterClause.parameters)
        guard parameters.count == arguments.count, let body = method.body else {
            program.unsupported(place(node), "the call of \(method.name.text)")
            return []
        }
        var inner = self
        inner.scope.methods[method.name.text] = nil  // a method that calls itself is not written in again
        for (parameter, argument) in zip(parameters, arguments) {
            guard let value = expression(argument.expression) else { return [] }
            inner.scope.substitutions[(parameter.secondName ?? parameter.firstName).text] = value
        }
        return inner.steps(body.statements)
    }
}
