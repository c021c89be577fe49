import MilieuJSON
import SwiftSyntax

/// Objects a root's body makes where it applies them (`ContentView().environmentObject(Model())`
/// in a `#Preview`): held by the root in a `@State` instead, as the preview holds them for its
/// life without observing them.
final class LiftedObjects {
    var state: [(String, JSON)] = []

    var isEmpty: Bool { state.isEmpty }

    func name(for type: String) -> String {
        let base = type.prefix(1).lowercased() + type.dropFirst()
        let taken = Set(state.map(\.0))
        var name = base
        var suffix = 2
        while taken.contains(name) {
            name = "\(base)\(suffix)"
            suffix += 1
        }
        return name
    }
}

/// A `body` as body elements (SPEC §6.3): stacks flattened, `Text` and controls as lines and
/// controls, child views written in, `if` and `ForEach` kept, data-flow modifiers applied and
/// layout ignored.
struct BodyTranslator {
    let program: Program
    let shape: ViewShape
    let stack: [String]
    /// Set for a root (`#Preview`, `@main`): objects made in modifiers are held by the root.
    var lifted: LiftedObjects?

    init(program: Program, shape: ViewShape, stack: [String], lifted: LiftedObjects? = nil) {
        self.program = program
        self.shape = shape
        self.stack = stack
        self.lifted = lifted
    }

    /// Modifiers that only lay out or style: they carry no data flow, and are ignored quietly.
    static let layout: Set<String> = [
        "padding", "font", "bold", "italic", "underline", "strikethrough", "fontWeight", "fontDesign", "foregroundColor",
        "foregroundStyle", "background", "frame", "cornerRadius", "clipShape", "clipped", "shadow", "opacity", "border", "overlay",
        "multilineTextAlignment", "lineLimit", "lineSpacing", "navigationTitle", "navigationBarTitle", "navigationBarTitleDisplayMode",
        "navigationBarHidden", "navigationBarBackButtonHidden", "listStyle", "buttonStyle", "textFieldStyle", "toggleStyle",
        "pickerStyle", "tint", "accentColor", "imageScale", "resizable", "scaledToFit", "scaledToFill", "aspectRatio", "offset",
        "position", "zIndex", "animation", "transition", "keyboardType", "textContentType", "autocapitalization",
        "textInputAutocapitalization", "disableAutocorrection", "autocorrectionDisabled", "submitLabel", "labelsHidden",
        "contentShape", "edgesIgnoringSafeArea", "ignoresSafeArea", "scrollContentBackground", "presentationDetents",
        "interactiveDismissDisabled", "help", "accessibilityLabel", "accessibilityHint", "accessibilityIdentifier", "tag",
        "fixedSize", "layoutPriority", "listRowBackground", "listRowInsets", "listRowSeparator", "scrollIndicators",
        "symbolRenderingMode", "controlSize", "badge", "tabItem", "textCase", "kerning", "tracking", "minimumScaleFactor",
        "truncationMode", "allowsTightening", "monospaced", "monospacedDigit", "blur", "brightness", "saturation", "grayscale",
        "rotationEffect", "scaleEffect", "mask", "compositingGroup", "drawingGroup", "stroke", "fill", "redacted",
    ]

    static let containers: Set<String> = [
        "VStack", "HStack", "ZStack", "LazyVStack", "LazyHStack", "LazyVGrid", "LazyHGrid", "ScrollView", "Form", "Section", "Group",
        "NavigationView", "NavigationStack", "GroupBox", "ViewThatFits", "ToolbarItem", "ToolbarItemGroup", "TabView", "WindowGroup",
        "ControlGroup", "DisclosureGroup",
    ]

    /// Views that show nothing a data flow changes: ignored quietly.
    static let quiet: Set<String> = [
        "Spacer", "Divider", "Image", "Color", "EmptyView", "Rectangle", "Circle", "RoundedRectangle", "Capsule", "Ellipse",
        "ProgressView", "ContainerRelativeShape", "LinearGradient", "RadialGradient",
    ]

    private func translator() -> ExpressionTranslator {
        var scope = NameScope(role: .view, names: shape.variableNames, methods: shape.methods)
        scope.closures = Set(shape.closureNames)
        scope.states = Set(shape.properties.filter { $0.wrapper == .state }.map(\.name))
        for property in shape.properties {
            if let type = property.type?.trimmedDescription.trimmingCharacters(in: "?!"), program.models[type] != nil {
                scope.objectTypes[property.name] = type
            } else if let call = property.initial?.as(FunctionCallExprSyntax.self),
                let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text, program.models[type] != nil
            {
                scope.objectTypes[property.name] = type
            } else if case .environmentType(let type, _) = property.wrapper {
                scope.objectTypes[property.name] = type
            }
        }
        return ExpressionTranslator(program: program, unit: shape.unit, scope: scope)
    }

    func elements(_ body: CodeBlockItemListSyntax?) -> [JSON] {
        guard let body else { return [] }
        var translator = translator()
        return content(body, &translator)
    }

    /// Whether the body calls `Self._printChanges()` (as `let _ = Self._printChanges()`), or
    /// `Self._logChanges()`, which logs the same line (iOS 17).
    func printsChanges(_ body: CodeBlockItemListSyntax?) -> Bool {
        guard let text = body?.description else { return false }
        return text.contains("Self._printChanges()") || text.contains("Self._logChanges()")
    }

    /// `$isOn`, `$vm.email`, `self.$state.favoritePrimes`, `$user.name`, `$items[0]` as the key
    /// path a binding names (`items.0`: an index is a member, SPEC §4.2).
    static func bindingPath(_ expr: ExprSyntax) -> String? {
        var names: [String] = []
        var current: ExprSyntax? = expr
        while let node = current {
            if let access = node.as(MemberAccessExprSyntax.self) {
                names.insert(access.declName.baseName.text, at: 0)
                current = access.base
            } else if let subscripted = node.as(SubscriptCallExprSyntax.self), subscripted.arguments.count == 1,
                let index = subscripted.arguments.first?.expression.as(IntegerLiteralExprSyntax.self)
            {
                names.insert(index.literal.text, at: 0)
                current = subscripted.calledExpression
            } else if let reference = node.as(DeclReferenceExprSyntax.self) {
                if reference.baseName.text != "self" { names.insert(reference.baseName.text, at: 0) }
                current = nil
            } else {
                return nil
            }
        }
        guard let first = names.firstIndex(where: { $0.hasPrefix("$") }) else { return nil }
        names[first].removeFirst()
        return names[first...].joined(separator: ".")
    }

    /// `.constant(v)`, `Binding.constant(v)`: `v` as a body expression.
    static func constantBinding(_ expr: ExprSyntax, _ translator: ExpressionTranslator) -> JSON? {
        guard let call = expr.as(FunctionCallExprSyntax.self), call.calledExpression.trimmedDescription.hasSuffix("constant"),
            call.arguments.count == 1, let argument = call.arguments.first
        else { return nil }
        return translator.expression(argument.expression)
    }

    // MARK: - Content

    private func content(_ items: CodeBlockItemListSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        let locals = translator.scope.locals
        defer { translator.scope.locals = locals }
        var elements: [JSON] = []
        for item in items {
            switch item.item {
            case .decl(let decl):
                guard let variable = decl.as(VariableDeclSyntax.self), let binding = variable.bindings.first else {
                    program.unsupported(Place(shape.unit, decl), "this declaration in a body")
                    continue
                }
                if binding.pattern.is(WildcardPatternSyntax.self) { continue }  // `let _ = Self._printChanges()`
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, let value = binding.initializer?.value,
                    let bound = translator.expression(value)
                else { continue }
                elements.append(["let": .string(name), "be": bound])
                translator.scope.locals.append(name)
            case .expr(let expr): elements += view(expr, &translator)
            case .stmt(let stmt):
                if let expression = stmt.as(ExpressionStmtSyntax.self) {
                    elements += view(expression.expression, &translator)
                } else {
                    program.unsupported(Place(shape.unit, stmt), "this statement in a body")
                }
            @unknown default:
                program.unsupported(Place(shape.unit, item), "this item in a body")
            }
        }
        return elements
    }

    private func closureContent(_ closure: ClosureExprSyntax?, _ translator: inout ExpressionTranslator) -> [JSON] {
        guard let closure else { return [] }
        return content(closure.statements, &translator)
    }

    private func view(_ expr: ExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        if let branch = expr.as(IfExprSyntax.self) { return ifElement(branch, &translator) }
        if let choice = expr.as(SwitchExprSyntax.self) { return switchElement(choice, &translator) }
        if let call = expr.as(FunctionCallExprSyntax.self) {
            if let access = call.calledExpression.as(MemberAccessExprSyntax.self), let base = access.base {
                return modifier(access.declName.baseName.text, on: base, call, &translator)
            }
            if let name = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text {
                return builtIn(name, call, &translator)
            }
        }
        if let reference = expr.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            if let helper = shape.helpers[name] { return content(helper, &translator) }
            if Self.quiet.contains(name) { return [] }
        }
        if let access = expr.as(MemberAccessExprSyntax.self) {
            if access.base.map({ Self.quiet.contains($0.trimmedDescription) }) ?? true { return [] }  // `Color.red`, `.red`
            if access.base?.trimmedDescription == "self", let helper = shape.helpers[access.declName.baseName.text] {
                return content(helper, &translator)
            }
        }
        program.unsupported(Place(shape.unit, expr), "this view")
        return []
    }

    /// `if`, `if let`, `if case`: the names a condition binds are locals of the `then` branch only.
    private func ifElement(_ branch: IfExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        guard let (condition, bound) = translator.conditions(branch.conditions) else { return [] }
        let locals = translator.scope.locals
        let lets = translator.bindings(bound)
        var element: JSONObject = ["if": condition, "then": .array(lets + content(branch.body.statements, &translator))]
        translator.scope.locals = locals
        switch branch.elseBody {
        case .codeBlock(let block)?: element["else"] = .array(content(block.statements, &translator))
        case .ifExpr(let nested)?: element["else"] = .array(ifElement(nested, &translator))
        case nil: break
        @unknown default: program.unsupported(Place(shape.unit, branch), "this else")
        }
        return [.object(element)]
    }

    /// `switch`: nested `if`s, each case its own place, as SwiftUI's `_ConditionalContent` makes
    /// it (switching case unmounts the old case's views, reason `condition`); `default` is the
    /// last `else`. A case's bound names are locals of its content.
    private func switchElement(_ node: SwitchExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        guard let (_, cases) = translator.switchCases(node) else { return [] }
        var rest: [JSON] = []
        for (match, body) in cases.reversed() {
            guard let match else {
                rest = content(body, &translator)
                continue
            }
            let locals = translator.scope.locals
            let lets = translator.bindings(match.bindings)
            var element: JSONObject = ["if": match.whole, "then": .array(lets + content(body, &translator))]
            translator.scope.locals = locals
            if !rest.isEmpty { element["else"] = .array(rest) }
            rest = [.object(element)]
        }
        return rest
    }

    // MARK: - Modifiers

    private func modifier(
        _ name: String, on base: ExprSyntax, _ call: FunctionCallExprSyntax, _ translator: inout ExpressionTranslator
    )
        -> [JSON]
    {
        let place = Place(shape.unit, call)
        let arguments = Array(call.arguments)
        if Self.layout.contains(name) { return view(base, &translator) }
        switch name {
        case "disabled":
            guard let condition = arguments.first.flatMap({ translator.expression($0.expression) }) else { return view(base, &translator) }
            return [["disabled": condition, "content": .array(view(base, &translator))]]
        case "equatable":
            return equatable(view(base, &translator), at: place)
        case "transformEnvironment":
            let elements = view(base, &translator)
            guard var transform = environmentTransform(call, &translator) else { return elements }
            transform["content"] = .array(elements)
            return [.object(transform)]
        case "id":
            var elements = view(base, &translator)
            guard elements.count == 1, var child = elements[0]["view"]?.objectValue,
                let id = arguments.first.flatMap({ translator.expression($0.expression) })
            else {
                program.unsupported(place, ".id on something other than one view")
                return elements
            }
            child["id"] = ViewInstantiator.valueExpression(id, caller: translator)
            elements[0] = ["view": .object(child)]
            return elements
        case "environmentObject", "environment":
            return environmentModifier(name, arguments, base: base, place: place, &translator)
        case "sheet", "fullScreenCover", "popover":
            let elements = view(base, &translator)
            guard let isPresented = arguments.first(where: { $0.label?.text == "isPresented" }),
                let path = Self.bindingPath(isPresented.expression)
            else {
                program.unsupported(place, ".\(name) without isPresented: $binding")
                return elements
            }
            let closure = call.trailingClosure ?? arguments.last?.expression.as(ClosureExprSyntax.self)
            let form = name == "fullScreenCover" ? "fullScreenCover" : "sheet"
            return elements + [.object(JSONObject([(form, .string(path)), ("content", .array(closureContent(closure, &translator)))]))]
        case "alert":
            let elements = view(base, &translator)
            guard let isPresented = arguments.first(where: { $0.label?.text == "isPresented" }),
                let path = Self.bindingPath(isPresented.expression)
            else {
                program.unsupported(place, ".alert without isPresented: $binding")
                return elements
            }
            var content: [JSON] = []
            if let title = arguments.first(where: { $0.label == nil }).flatMap({ translator.expression($0.expression) }) {
                content.append(["text": title])  // `.alert("Title", isPresented:) { buttons } message: { Text }`
                content += closureContent(call.trailingClosure, &translator)
            } else if let alert = call.trailingClosure?.statements.first?.item.as(FunctionCallExprSyntax.self) {
                // `.alert(isPresented:) { Alert(title: Text(…), message: Text(…)) }`: its texts.
                for argument in alert.arguments where ["title", "message"].contains(argument.label?.text ?? "") {
                    if let text = argument.expression.as(FunctionCallExprSyntax.self)?.arguments.first,
                        let value = translator.expression(text.expression)
                    {
                        content.append(["text": value])
                    }
                }
            }
            for extra in call.additionalTrailingClosures where extra.label.text == "message" {
                content += closureContent(extra.closure, &translator)
            }
            return elements + [["alert": .string(path), "content": .array(content)]]
        case "refreshable":
            let elements = view(base, &translator)
            let closure = call.trailingClosure ?? arguments.first?.expression.as(ClosureExprSyntax.self)
            var actions = translator
            actions.scope.readsClock = true
            let steps = closure.map { actions.steps($0.statements) } ?? []
            program.report(place, .note, ".refreshable is the button labelled refreshable (tap VIEW refreshable pulls to refresh)")
            return elements + [["button": "refreshable", "action": .array(steps)]]
        case "toolbar":
            return view(base, &translator) + closureContent(call.trailingClosure, &translator)
        default:
            let elements = view(base, &translator)
            if program.viewModifiers[name] != nil {
                program.report(place, .note, "\(name)() is declared in an extension of View; it carries no data flow here and is ignored")
            } else {
                program.unsupported(place, "the modifier .\(name)")
            }
            return elements
        }
    }

    /// `Child(…).equatable()`, `EquatableView(content: Child(…))`: the child's `equatable`, the
    /// properties its `static func ==` compares, or every input and binding when it declares none
    /// (the `==` Swift synthesizes, which a closure property rules out).
    private func equatable(_ elements: [JSON], at place: Place) -> [JSON] {
        guard elements.count == 1, var child = elements[0]["view"]?.objectValue, case .string(let name)? = child["name"],
            let declared = program.views[name]
        else {
            program.unsupported(place, ".equatable() on something other than one view")
            return elements
        }
        let shape = ViewShape(declared, program: program)
        if let fields = shape.equalityFields {
            child["equatable"] = .array(fields.map(JSON.string))
        } else if shape.equality != nil {
            program.unsupported(place, "\(name)'s ==, which is not a conjunction of lhs.x == rhs.x,")
            return elements
        } else if let closure = shape.closureNames.first {
            program.report(
                place, .error,
                "\(name) is not Equatable: its closure \(closure) cannot be compared; declare static func == that leaves it out")
            return elements
        } else {
            let compared = shape.properties.filter { $0.wrapper == .plain || $0.wrapper == .binding || $0.wrapper == .bindable }
            child["equatable"] = .array(compared.map { JSON.string($0.name) })
        }
        return [["view": .object(child)]]
    }

    /// `.transformEnvironment(\.key) { value in value = e }` (or `value *= e`, `$0 = e`): the
    /// element's head, `{"transformEnvironment": key, "as": name, "to": e}`; nil, with a warning,
    /// for a closure that is not one assignment to its parameter.
    private func environmentTransform(_ call: FunctionCallExprSyntax, _ translator: inout ExpressionTranslator) -> JSONObject? {
        let place = Place(shape.unit, call)
        guard let keyPath = call.arguments.first?.expression.as(KeyPathExprSyntax.self),
            let closure = call.trailingClosure ?? call.arguments.dropFirst().first?.expression.as(ClosureExprSyntax.self)
        else {
            program.unsupported(place, ".transformEnvironment without a key path and a closure")
            return nil
        }
        let parameter: String
        switch closure.signature?.parameterClause {
        case .simpleInput(let names)?: parameter = names.first?.name.text ?? "$0"
        case .parameterClause(let clause)?: parameter = clause.parameters.first?.firstName.text ?? "$0"
        case nil: parameter = "$0"
        @unknown default: parameter = "$0"
        }
        let local = ExpressionTranslator.localName(parameter)
        guard closure.statements.count == 1, let assignment = closure.statements.first?.item.as(InfixOperatorExprSyntax.self),
            translator.members(assignment.leftOperand) == [local]
        else {
            program.unsupported(Place(shape.unit, closure), "a .transformEnvironment closure other than one assignment to \(parameter)")
            return nil
        }
        let compound = assignment.operator.as(BinaryOperatorExprSyntax.self)?.operator.text
        guard assignment.operator.is(AssignmentExprSyntax.self) || ["+=", "-=", "*=", "/=", "%="].contains(compound ?? "") else {
            program.unsupported(Place(shape.unit, assignment), "this .transformEnvironment statement")
            return nil
        }
        let locals = translator.scope.locals
        translator.scope.locals.append(local)
        defer { translator.scope.locals = locals }
        guard var value = translator.expression(assignment.rightOperand) else { return nil }
        if let compound {
            value = .object(JSONObject([(String(compound.dropLast()), JSON.array([["get": .string(local)], value]))]))
        }
        let key = keyPath.components.trimmedDescription.trimmingPrefix(".").description
        return ["transformEnvironment": .string(key), "as": .string(local), "to": value]
    }

    /// `.environmentObject(x)`, `.environment(x)`, `.environment(\.key, value)`: what the views in
    /// the content see, applied where each is placed (`modifiers`, key paths relative to this view).
    private func environmentModifier(
        _ name: String, _ arguments: [LabeledExprSyntax], base: ExprSyntax, place: Place, _ translator: inout ExpressionTranslator
    ) -> [JSON] {
        var elements = view(base, &translator)
        var modifiers: JSONObject = [:]
        if name == "environment", arguments.count == 2 {
            guard let keyPath = arguments[0].expression.as(KeyPathExprSyntax.self) else {
                program.unsupported(place, "this .environment key (a key path, \\.key, is read)")
                return elements
            }
            let key = keyPath.components.trimmedDescription.trimmingPrefix(".").description
            // `.dark` and `ColorScheme.dark` are enum cases, written by their names; `settings.scheme`
            // is a value the body reads.
            let enumCase = arguments[1].expression.as(MemberAccessExprSyntax.self).flatMap { access -> JSON? in
                let base = access.base?.as(DeclReferenceExprSyntax.self)?.baseName.text
                let isType = base.map { $0.first?.isUppercase == true && !shape.variableNames.contains($0) } ?? false
                return access.base == nil || isType ? JSON.string(access.declName.baseName.text) : nil
            }
            if let value = translator.literal(arguments[1].expression) ?? enumCase {
                modifiers["environment"] = [key: value]
            } else if let value = translator.expression(arguments[1].expression) {
                // A value the body computes (`dark ? .dark : .light`): what the content inherits,
                // replaced, evaluated with the body as a transform is.
                return [["transformEnvironment": .string(key), "as": "_", "to": value, "content": .array(elements)]]
            } else {
                return elements
            }
        } else if let argument = arguments.first?.expression {
            let slot = name == "environmentObject" ? "environmentObjects" : "observables"
            if let path = translator.members(argument), let head = path.first, shape.variableNames.contains(head) {
                modifiers[slot] = [.string(path.joined(separator: "."))]
            } else if let lifted, let call = argument.as(FunctionCallExprSyntax.self),
                let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text, program.models[type] != nil
            {
                let variable = lifted.name(for: type)
                lifted.state.append((variable, ["$new": ["type": .string(type)]]))
                modifiers[slot] = [.string(variable)]
            } else {
                program.unsupported(place, "this .\(name) (pass a variable of the view)")
                return elements
            }
        }
        var applied = false
        elements = elements.map { Self.apply(modifiers, to: $0, applied: &applied) }
        if !applied { program.report(place, .warning, ".\(name) here reaches no view; it is left out") }
        return elements
    }

    /// Adds `modifiers` to each view written in `element`, inside branches and rows too. They come
    /// from further out than what the view has already (its own modifiers, or a container's
    /// nearer it): an environment value it has already is nearer, and wins (rule 7).
    private static func apply(_ modifiers: JSONObject, to element: JSON, applied: inout Bool) -> JSON {
        guard case .object(var object) = element else { return element }
        if case .object(var child)? = object["view"] {
            var merged = child["modifiers"]?.objectValue ?? [:]
            for (key, value) in modifiers {
                switch (merged[key], value) {
                case (.array(let old)?, .array(let new)): merged[key] = .array(old + new)
                case (.object(var old)?, .object(let new)):
                    for (k, v) in new where old[k] == nil { old[k] = v }
                    merged[key] = .object(old)
                default: merged[key] = value
                }
            }
            child["modifiers"] = .object(merged)
            object["view"] = .object(child)
            applied = true
            return .object(object)
        }
        for key in ["then", "else", "content", "destination"] {
            if case .array(let items)? = object[key] { object[key] = .array(items.map { apply(modifiers, to: $0, applied: &applied) }) }
        }
        return .object(object)
    }

    // MARK: - Views by name

    private func builtIn(_ name: String, _ call: FunctionCallExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        let place = Place(shape.unit, call)
        let arguments = Array(call.arguments)
        func argument(_ label: String) -> ExprSyntax? { arguments.first { $0.label?.text == label }?.expression }
        let unlabelled = arguments.first { $0.label == nil }?.expression
        // The source's names are the source's: a view it declares wins over a built-in of that name.
        if let declared = program.views[name] {
            var arguments = arguments
            if let closure = call.trailingClosure {
                // `Row(title: t) { taps += 1 }`: the last closure the view takes that no label gave.
                let given = Set(arguments.compactMap { $0.label?.text })
                if let property = ViewShape(declared, program: program).closureNames.last(where: { !given.contains($0) }) {
                    arguments.append(LabeledExprSyntax(label: .identifier(property), colon: .colonToken(), expression: ExprSyntax(closure)))
                } else {
                    program.unsupported(place, "a trailing closure passed to \(name), which takes no closure")
                }
            }
            let instantiator = ViewInstantiator(program: program)
            guard
                let declaration = instantiator.declaration(
                    name, arguments: arguments, caller: translator, at: place, stack: stack, callerLifted: lifted)
            else {
                return []
            }
            return [["view": declaration]]
        }
        if Self.containers.contains(name) { return closureContent(call.trailingClosure, &translator) }
        if Self.quiet.contains(name) { return [] }
        switch name {
        case "EquatableView":
            guard let content = argument("content") else { return [] }
            return equatable(view(content, &translator), at: place)
        case "Text", "Label":
            guard let text = unlabelled ?? argument("verbatim") else { return [] }
            return [["text": shown(text, &translator)]]
        case "TextField", "SecureField", "Toggle", "Stepper", "Picker":
            return control(name, call, &translator)
        case "Button":
            return button(call, &translator)
        case "NavigationLink":
            return navigationLink(call, &translator)
        case "ForEach", "List":
            guard let data = unlabelled else {
                return name == "List"
                    ? closureContent(call.trailingClosure, &translator) : (program.unsupported(place, "this ForEach"), []).1
            }
            return rows(data, id: argument("id"), call.trailingClosure, place, &translator)
        default:
            break
        }
        program.unsupported(place, "\(name)(…), which the source does not declare,")
        return []
    }

    private func rows(
        _ data: ExprSyntax, id: ExprSyntax?, _ closure: ClosureExprSyntax?, _ place: Place, _ translator: inout ExpressionTranslator
    ) -> [JSON] {
        let elements: JSON?
        if let range = data.as(InfixOperatorExprSyntax.self), let op = range.operator.as(BinaryOperatorExprSyntax.self)?.operator.text,
            op == "..<" || op == "..."
        {
            guard let low = translator.expression(range.leftOperand), let high = translator.expression(range.rightOperand) else {
                return []
            }
            elements = ["range": [low, op == "..." ? ["+": [high, 1]] : high]]
        } else {
            elements = translator.expression(data)
        }
        guard let elements else { return [] }
        var idMember = "self"
        if let id {
            let text = id.trimmedDescription
            idMember = text == "\\.self" ? "self" : String(text.trimmingPrefix("\\."))
        } else if data.as(InfixOperatorExprSyntax.self) == nil {
            idMember = "id"  // Identifiable
        }
        let parameter =
            closure?.signature?.parameterClause.flatMap { clause -> String? in
                if case .simpleInput(let names) = clause { return names.first?.name.text }
                if case .parameterClause(let list) = clause { return list.parameters.first?.firstName.text }
                return nil
            } ?? "_0"
        var inner = translator
        inner.scope.locals.append(parameter)
        let content = closureContent(closure, &inner)
        return [["forEach": elements, "id": .string(idMember), "as": .string(parameter), "content": .array(content)]]
    }

    /// What a `Text` or a label shows: its expression, or, where that reads what the source does
    /// not declare (the reason is reported), the string as written, interpolations and all.
    private func shown(_ expr: ExprSyntax, _ translator: inout ExpressionTranslator) -> JSON {
        if let value = translator.expression(expr) { return value }
        let written = expr.as(StringLiteralExprSyntax.self).map { $0.segments.description } ?? expr.trimmedDescription
        program.report(Place(shape.unit, expr), .note, "this text is shown as written: \(written)")
        return .string(written)
    }

    /// A control's label: a string argument, or the first `Text` of its label closure.
    private func label(_ call: FunctionCallExprSyntax, closure: ClosureExprSyntax?, _ translator: inout ExpressionTranslator) -> JSON? {
        if let first = call.arguments.first, first.label == nil { return shown(first.expression, &translator) }
        guard let closure else { return nil }
        for item in closure.statements {
            guard case .expr(let expr) = item.item else { continue }
            var current: ExprSyntax = expr
            // `Text("+").font(.title)`: the Text under its modifiers.
            while let call = current.as(FunctionCallExprSyntax.self), let access = call.calledExpression.as(MemberAccessExprSyntax.self),
                let base = access.base
            {
                current = base
            }
            if let text = current.as(FunctionCallExprSyntax.self), case let name = text.calledExpression.trimmedDescription,
                ["Text", "Label"].contains(name), program.views[name] == nil, let argument = text.arguments.first
            {
                return shown(argument.expression, &translator)
            }
        }
        return nil
    }

    private func button(_ call: FunctionCallExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        let place = Place(shape.unit, call)
        let actionArgument = call.arguments.first { $0.label?.text == "action" }?.expression
        let labelClosure =
            call.additionalTrailingClosures.first { $0.label.text == "label" }?.closure
            ?? (actionArgument != nil ? call.trailingClosure : nil)
        let actionClosure = actionArgument?.as(ClosureExprSyntax.self) ?? (actionArgument == nil ? call.trailingClosure : nil)
        guard let label = label(call, closure: labelClosure, &translator) else {
            program.unsupported(place, "a Button without a text label")
            return []
        }
        var actions = translator
        actions.scope.readsClock = true
        var steps: [JSON] = []
        if let actionClosure {
            steps = actions.steps(actionClosure.statements)
        } else if let reference = actionArgument, let name = reference.as(DeclReferenceExprSyntax.self)?.baseName.text,
            actions.scope.closures.contains(name)
        {
            steps = [["call": .string(name)]]  // `Button("+", action: onTap)`: the closure the parent passed
        } else if let reference = actionArgument,
            let name = reference.as(DeclReferenceExprSyntax.self)?.baseName.text
                ?? reference.as(MemberAccessExprSyntax.self)?.declName.baseName.text, let method = shape.methods[name]
        {
            steps = actions.inlineSteps(method, [], reference)
        } else if let reference = actionArgument?.as(MemberAccessExprSyntax.self), let base = reference.base,
            let path = actions.members(base), let head = path.first, actions.scope.names.contains(head)
        {
            // `action: vm.add`: the method of an object the view holds, as `{ vm.add() }`.
            steps = [["call": .string((path + [reference.declName.baseName.text]).joined(separator: "."))]]
        } else if actionArgument != nil {
            program.unsupported(place, "this button action")
        }
        return [["button": label, "action": .array(steps)]]
    }

    private func control(_ name: String, _ call: FunctionCallExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        let place = Place(shape.unit, call)
        let member =
            ["TextField": "text", "SecureField": "text", "Toggle": "isOn", "Stepper": "value", "Picker": "selection"][name] ?? "text"
        guard let bound = call.arguments.first(where: { $0.label?.text == member })?.expression else {
            program.unsupported(place, "a \(name) without \(member): $binding")
            return []
        }
        let binding: JSON
        if let path = Self.bindingPath(bound) {
            binding = .string(path)
        } else if let value = Self.constantBinding(bound, translator) {
            binding = ["constant": value]
        } else {
            program.unsupported(place, "this binding (pass $state or $object.property)")
            return []
        }
        guard let label = label(call, closure: call.trailingClosure, &translator) else {
            program.unsupported(place, "a \(name) without a text label")
            return []
        }
        let form = name.prefix(1).lowercased() + name.dropFirst()
        var element = JSONObject([(form, label), (member, binding)])
        if name == "Stepper",
            let range = call.arguments.first(where: { $0.label?.text == "in" })?.expression.as(InfixOperatorExprSyntax.self),
            let low = translator.literal(range.leftOperand)?.intValue, let high = translator.literal(range.rightOperand)?.intValue
        {
            element["in"] = [.int(low), .int(high)]
        }
        if name == "Stepper",
            let step = call.arguments.first(where: { $0.label?.text == "step" }).flatMap({ translator.literal($0.expression) })
        {
            element["step"] = step
        }
        if name == "Picker", let closure = call.trailingClosure {
            let tags = closure.description.ranges(of: ".tag(").compactMap { range -> JSON? in
                let rest = closure.description[range.upperBound...]
                guard let end = rest.firstIndex(of: ")") else { return nil }
                let text = rest[..<end].trimmingCharacters(in: " ")
                if text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 { return .string(String(text.dropFirst().dropLast())) }
                return Int(text).map(JSON.int)
            }
            if !tags.isEmpty { element["options"] = ["literal": .array(tags)] }
        }
        return [.object(element)]
    }

    private func navigationLink(_ call: FunctionCallExprSyntax, _ translator: inout ExpressionTranslator) -> [JSON] {
        let place = Place(shape.unit, call)
        var destination: [JSON] = []
        if let argument = call.arguments.first(where: { $0.label?.text == "destination" })?.expression {
            if let closure = argument.as(ClosureExprSyntax.self) {
                destination = closureContent(closure, &translator)
            } else {
                destination = view(argument, &translator)
            }
        } else if let closure = call.trailingClosure, call.additionalTrailingClosures.contains(where: { $0.label.text == "label" }) {
            destination = closureContent(closure, &translator)
        } else {
            program.unsupported(place, "this NavigationLink (destination: is read)")
            return []
        }
        let labelClosure = call.additionalTrailingClosures.first { $0.label.text == "label" }?.closure ?? call.trailingClosure
        guard let label = label(call, closure: labelClosure, &translator) else {
            program.unsupported(place, "a NavigationLink without a text label")
            return []
        }
        return [["navigationLink": label, "destination": .array(destination)]]
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}

/// The roots: what a `#Preview` shows, a `@main` app, or `ContentView` alone.
struct RootTranslator {
    let program: Program

    /// `#Preview { ContainerView() }` mounts `ContainerView` itself; a preview that makes objects
    /// (`ContentView().environmentObject(Model())`) or shows several views mounts a `Preview` that
    /// holds them.
    func preview(_ closure: Program.Declared<ClosureExprSyntax>) -> JSON? {
        let shape = ViewShape(name: "Preview", unit: closure.unit)
        let lifted = LiftedObjects()
        let body = BodyTranslator(program: program, shape: shape, stack: [], lifted: lifted).elements(closure.node.statements)
        if lifted.isEmpty, body.count == 1, let child = body[0]["view"] { return child }
        var declaration = DeclarationBuilder(name: "Preview")
        declaration.state = lifted.state
        declaration.body = body
        return declaration.json
    }

    /// `@main struct MyApp: App`: a view named for it, holding its `@StateObject`s, showing its `WindowGroup`.
    func app(_ declared: Program.Declared<StructDeclSyntax>) -> JSON? {
        ViewInstantiator(program: program).declaration(
            of: declared, arguments: [], caller: nil, at: declared.place, stack: [], lifted: LiftedObjects())
    }

    func plain(_ name: String, _ declared: Program.Declared<StructDeclSyntax>) -> JSON? {
        ViewInstantiator(program: program).declaration(name, arguments: [], caller: nil, at: declared.place, stack: [])
    }
}
