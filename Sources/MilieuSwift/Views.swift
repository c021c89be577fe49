import MilieuJSON
import SwiftSyntax

/// A `View` struct read once: its dynamic properties in the struct's order, its `init`, its
/// `body`, its helper views and methods (SPEC §6.1).
struct ViewShape {
    enum Wrapper: Equatable {
        case state, stateObject, observedObject, environmentObject, binding, bindable, plain
        case environmentKey(String)
        case environmentType(String, optional: Bool)

        /// A dynamic property: what `_printChanges` lists.
        var isDynamic: Bool { self != .plain && self != .bindable }
    }

    struct Property {
        let name: String
        let wrapper: Wrapper
        let type: TypeSyntax?
        let initial: ExprSyntax?
        let node: Syntax
    }

    let name: String
    let unit: SourceUnit
    var properties: [Property] = []
    var body: CodeBlockItemListSyntax?
    var helpers: [String: CodeBlockItemListSyntax] = [:]
    var methods: [String: FunctionDeclSyntax] = [:]
    var initializer: InitializerDeclSyntax?
    /// `static func == (lhs: Self, rhs: Self) -> Bool`, what `.equatable()` compares with.
    var equality: FunctionDeclSyntax?

    /// A shape with nothing declared: a `#Preview`'s content.
    init(name: String, unit: SourceUnit) {
        self.name = name
        self.unit = unit
    }

    init(_ declared: Program.Declared<StructDeclSyntax>, program: Program) {
        name = declared.node.name.text
        unit = declared.unit
        for member in declared.node.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                for binding in variable.bindings {
                    guard let property = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    program.reportObservers(of: binding, "\(name).\(property)", in: unit)
                    if let accessors = binding.accessorBlock, !binding.isStored {
                        let statements: CodeBlockItemListSyntax? =
                            switch accessors.accessors {
                            case .getter(let body): body
                            case .accessors(let list): list.first(where: { $0.accessorSpecifier.text == "get" })?.body?.statements
                            @unknown default: nil
                            }
                        if property == "body" { body = statements } else if let statements { helpers[property] = statements }
                        continue
                    }
                    let wrapper = Self.wrapper(variable.attributes, type: binding.typeAnnotation?.type)
                    for attribute in variable.attributes {
                        guard case .attribute(let named) = attribute else { continue }
                        let wrapperName = named.attributeName.trimmedDescription
                        guard Self.unmodelledWrappers.contains(wrapperName) else { continue }
                        program.report(
                            Place(declared.unit, binding), .warning,
                            "@\(wrapperName) on \(name).\(property) is not modelled: \(property) is read as a plain property, without what @\(wrapperName) keeps or updates"
                        )
                    }
                    properties.append(
                        Property(
                            name: property, wrapper: wrapper, type: binding.typeAnnotation?.type, initial: binding.initializer?.value,
                            node: Syntax(binding)))
                }
            } else if let function = member.decl.as(FunctionDeclSyntax.self) {
                if function.name.text == "==" { equality = function } else { methods[function.name.text] = function }
            } else if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                self.initializer = initializer
            }
        }
    }

    /// SwiftUI's dynamic properties Milieu does not model: a property with one is read as a
    /// plain one, and the translation says so.
    static let unmodelledWrappers: Set<String> = [
        "AppStorage", "SceneStorage", "FocusState", "AccessibilityFocusState", "GestureState", "Namespace", "FetchRequest",
        "SectionedFetchRequest", "Query", "ScaledMetric", "FocusedValue", "FocusedBinding", "FocusedObject",
        "UIApplicationDelegateAdaptor", "NSApplicationDelegateAdaptor",
    ]

    private static func wrapper(_ attributes: AttributeListSyntax, type: TypeSyntax?) -> Wrapper {
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            switch attribute.attributeName.trimmedDescription {
            case "State": return .state
            case "StateObject": return .stateObject
            case "ObservedObject": return .observedObject
            case "EnvironmentObject": return .environmentObject
            case "Binding": return .binding
            case "Bindable": return .bindable
            case "Environment":
                guard case .argumentList(let arguments)? = attribute.arguments, let argument = arguments.first?.expression else {
                    return .plain
                }
                if let keyPath = argument.as(KeyPathExprSyntax.self) {
                    return .environmentKey(keyPath.components.trimmedDescription.trimmingPrefix(".").description)
                }
                let text = argument.trimmedDescription
                if text.hasSuffix(".self") {
                    return .environmentType(String(text.dropLast(5)), optional: type?.is(OptionalTypeSyntax.self) ?? false)
                }
                return .plain
            default: continue
            }
        }
        return .plain
    }

    var variableNames: Set<String> { Set(properties.map(\.name)) }

    /// Plain properties of a function type (`let onTap: () -> Void`): closures a parent passes.
    var closureNames: [String] {
        properties.filter { property in
            guard property.wrapper == .plain, var type = property.type else { return false }
            if let attributed = type.as(AttributedTypeSyntax.self) { type = attributed.baseType }
            return type.is(FunctionTypeSyntax.self)
        }.map(\.name)
    }

    /// What `static func ==` compares (`lhs.n == rhs.n && …`): the properties, in order; nil when
    /// the struct declares no `==` of that form.
    var equalityFields: [String]? {
        guard let equality = equality, let body = equality.body, body.statements.count == 1,
            let expr = body.statements.first?.item.as(ExprSyntax.self)
                ?? body.statements.first?.item.as(ReturnStmtSyntax.self)?.expression
        else { return nil }
        var fields: [String] = []
        func collect(_ expr: ExprSyntax) -> Bool {
            guard let infix = expr.as(InfixOperatorExprSyntax.self), let op = infix.operator.as(BinaryOperatorExprSyntax.self) else {
                return false
            }
            switch op.operator.text {
            case "&&": return collect(infix.leftOperand) && collect(infix.rightOperand)
            case "==":
                guard let left = infix.leftOperand.as(MemberAccessExprSyntax.self),
                    let right = infix.rightOperand.as(MemberAccessExprSyntax.self),
                    left.declName.baseName.text == right.declName.baseName.text
                else { return false }
                fields.append(left.declName.baseName.text)
                return true
            default: return false
            }
        }
        return collect(expr) ? fields : nil
    }
}

/// A use of a view — `ContentView(num: selectedNum)` in a body, or a root — as the view
/// declaration the engine mounts, with its body written out.
struct ViewInstantiator {
    let program: Program

    /// The declaration of view `name` called with `arguments`; `caller` translates them in the
    /// calling body (nil for a root, where they must be literals). `stack` holds the views being
    /// written, so that a view that contains itself is refused rather than written for ever.
    /// `callerLifted`: where a root's body holds objects it makes as arguments (`ContentView(state: AppState())`).
    func declaration(
        _ name: String, arguments: [LabeledExprSyntax], caller: ExpressionTranslator?, at place: Place, stack: [String],
        callerLifted: LiftedObjects? = nil
    ) -> JSON? {
        guard let declared = program.views[name] else { return nil }
        return declaration(
            of: declared, arguments: arguments, caller: caller, at: place, stack: stack, lifted: nil, callerLifted: callerLifted)
    }

    /// The declaration of `declared` (a view, or a `@main` app, whose `lifted` holds the objects
    /// its body makes in modifiers).
    func declaration(
        of declared: Program.Declared<StructDeclSyntax>, arguments: [LabeledExprSyntax], caller: ExpressionTranslator?, at place: Place,
        stack: [String], lifted: LiftedObjects?, callerLifted: LiftedObjects? = nil
    ) -> JSON? {
        let name = declared.node.name.text
        guard !stack.contains(name) else {
            program.report(
                place, .error, "\(name) contains itself (\((stack + [name]).joined(separator: " → "))); it cannot be written out")
            return nil
        }
        program.viewInstances += 1
        guard program.viewInstances <= SwiftTranslator.maxViewInstances else {
            if program.viewInstances == SwiftTranslator.maxViewInstances + 1 {
                program.report(
                    place, .error, "more than \(SwiftTranslator.maxViewInstances) views are written into bodies; the source is too large")
            }
            return nil
        }
        let shape = ViewShape(declared, program: program)
        var declaration = DeclarationBuilder(name: name)
        let given = bind(arguments, to: shape, caller: caller, at: place, lifted: callerLifted)
        let (initialized, initArguments, keptInitial) = initializerEffects(shape, given: given, caller: caller)
        declaration.arguments = initArguments
        var fields: [String] = []
        let mapper = TypeMapper(program: program, unit: shape.unit)
        for property in shape.properties {
            if property.wrapper.isDynamic { fields.append(property.name) }
            let argument = given[property.name]
            let translator = ExpressionTranslator(program: program, unit: shape.unit, scope: NameScope(role: .view, names: []))
            switch property.wrapper {
            case .plain, .bindable:
                if let argument {
                    declaration.inputs.append((property.name, argument))
                } else if let effect = initialized[property.name] {
                    declaration.inputs.append((property.name, effect))
                } else if let initial = property.initial, let constant = translator.constant(initial) {
                    declaration.inputs.append((property.name, Self.literal(constant)))
                } else if property.initial != nil {
                    program.unsupported(
                        Place(shape.unit, property.node), "the initial value of \(property.name) (only constants are read)")
                } else {
                    program.report(place, .error, "\(name)(…) does not pass \(property.name), which \(name) needs")
                }
            case .state:
                if !keptInitial.contains(property.name), let value = argument ?? initialized[property.name] {
                    declaration.state.append((property.name, value))
                    if let type = property.type.flatMap(mapper.knownType), !Self.isReference(type) {
                        declaration.stateTypes.append((property.name, type))
                    }
                } else if let initial = property.initial {
                    if let made = objectConstruction(initial, in: shape) {
                        declaration.state.append((property.name, ["$new": made]))
                    } else if let constant = translator.constant(initial) {
                        declaration.state.append((property.name, Self.literal(constant)))
                        if let type = stateType(property, initial: initial, constant: constant, mapper) {
                            declaration.stateTypes.append((property.name, type))
                        }
                    } else {
                        program.unsupported(Place(shape.unit, property.node), "the initial value of @State \(property.name)")
                    }
                } else {
                    declaration.state.append((property.name, .null))
                }
            case .binding:
                guard let argument else {
                    program.report(place, .error, "\(name)(…) does not pass the @Binding \(property.name)")
                    continue
                }
                declaration.bindings.append((property.name, argument))
            case .stateObject:
                if let effect = initialized[property.name] {
                    declaration.stateObjects.append((property.name, effect))
                } else if let initial = property.initial {
                    if let made = objectConstruction(initial, in: shape) {
                        declaration.stateObjects.append((property.name, made))
                    } else {
                        let what = "@StateObject \(property.name) = \(initial.trimmedDescription) (only a new object is made)"
                        program.unsupported(Place(shape.unit, property.node), what)
                    }
                } else {
                    program.report(Place(shape.unit, property.node), .error, "@StateObject \(property.name) is never made")
                }
            case .observedObject:
                if let argument {
                    declaration.observedObjects.append((property.name, argument))
                } else if let effect = initialized[property.name] {
                    declaration.observedObjects.append((property.name, effect))
                } else if let initial = property.initial {
                    if var made = objectConstruction(initial, in: shape)?.objectValue {
                        made["construct"] = made["type"]
                        made["type"] = nil
                        declaration.observedObjects.append((property.name, .object(made)))
                    } else {
                        let what = "@ObservedObject \(property.name) = \(initial.trimmedDescription) (only a new object is made)"
                        program.unsupported(Place(shape.unit, property.node), what)
                    }
                } else {
                    let type = typeName(property.type)
                    program.report(
                        place, .error,
                        "\(name)(…) does not pass the @ObservedObject \(property.name): write \(name)(\(property.name): \(type)()) where it is used"
                            + (caller == nil ? ", as #Preview { \(name)(\(property.name): \(type)()) }" : ""))
                }
            case .environmentObject:
                declaration.environmentObjects.append((property.name, .string(typeName(property.type))))
            case .environmentKey(let key):
                declaration.environment.append((property.name, ["key": .string(key)]))
            case .environmentType(let type, let optional):
                var entry: JSONObject = ["type": .string(type)]
                if optional { entry["optional"] = true }
                declaration.environment.append((property.name, .object(entry)))
            }
        }
        let body = BodyTranslator(program: program, shape: shape, stack: stack + [name], lifted: lifted)
        var elements = body.elements(shape.body)
        if let lifted {
            declaration.state += lifted.state
        }
        if body.printsChanges(shape.body) { declaration.printChanges = fields }
        if shape.body == nil {
            program.report(Place(shape.unit, declared.node), .error, "\(name) has no body")
            elements = []
        }
        declaration.body = elements
        return declaration.json
    }

    /// The type a `@State` that starts from `constant` is given (`stateTypes`): its annotation's, or
    /// the one Swift infers for its initial value (`Point(x: 1, y: 2)`, `[2, 3, 5]`); nil where the
    /// kind of the value says as much (`@State var count = 0`), for a type the source does not
    /// declare, and for an object.
    private func stateType(
        _ property: ViewShape.Property, initial: ExprSyntax, constant: JSON, _ mapper: TypeMapper
    ) -> JSON? {
        guard let type = property.type.map(mapper.knownType) ?? mapper.type(ofConstant: initial), !Self.isReference(type) else {
            return nil
        }
        let inferred: JSON =
            switch constant {
            case .bool: "bool"
            case .int: "int"
            case .double: "double"
            case .string: "string"
            case .array: ["array": "json"]
            case .null, .object: "json"
            }
        return type == inferred ? nil : type
    }

    /// Whether a mapped type holds an object (`"@Model?"`): such a `@State` is made with `$new`.
    private static func isReference(_ type: JSON) -> Bool { type.jsonText.contains("@") }

    /// A constant as a declaration's literal value: as itself, unless it is an object that would
    /// read as an expression or a forgotten `$new` (`Tag(type: "Work")`), then in `$literal`.
    static func literal(_ constant: JSON) -> JSON {
        guard case .object(let object) = constant,
            object.keys.contains(where: { $0.hasPrefix("$") })
                || object["type"] != nil && object.keys.allSatisfy({ ["type", "init"].contains($0) })
        else { return constant }
        return ["$literal": constant]
    }

    private func typeName(_ type: TypeSyntax?) -> String {
        guard let type else { return "?" }
        return type.trimmedDescription.split(separator: ".").last.map(String.init) ?? type.trimmedDescription
    }

    /// `T(label: value, …)` as `{"type": T, "init": {property: value}}`: the labels are the
    /// properties the class's `init` assigns its parameters to (or the properties themselves).
    /// Values are literals or the view's `init` parameters (`$input`).
    func objectConstruction(_ expr: ExprSyntax, in shape: ViewShape, parameters: Set<String> = []) -> JSON? {
        guard let call = expr.as(FunctionCallExprSyntax.self),
            let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text
        else { return nil }
        guard let model = program.models[type] else {
            if program.structs[type] == nil, program.views[type] == nil, type.first?.isUppercase == true {
                program.report(
                    Place(shape.unit, call), .error,
                    "\(type) is not declared in the source: declare the class (an ObservableObject, or @Observable) or load the file that does"
                )
            }
            return nil
        }
        let labels = Self.initializerLabels(model.node)
        var initial: [JSONObject.Member] = []
        let translator = ExpressionTranslator(program: program, unit: shape.unit, scope: NameScope(role: .view, names: []))
        for argument in call.arguments {
            let label = argument.label?.text ?? ""
            let property = labels[label] ?? label
            if let literal = translator.literal(argument.expression) {
                initial.append((property, literal))
            } else if let name = argument.expression.as(DeclReferenceExprSyntax.self)?.baseName.text, parameters.contains(name) {
                initial.append((property, ["$input": .string(name)]))
            } else {
                program.unsupported(Place(shape.unit, argument), "this argument of \(type)(…)")
            }
        }
        var made: JSONObject = ["type": .string(type)]
        if !initial.isEmpty { made["init"] = .object(JSONObject(uniqueMembers: initial)) }
        return .object(made)
    }

    /// A class's `init` parameters by label, and the property each is assigned to (`self.num = num`).
    static func initializerLabels(_ model: ClassDeclSyntax) -> [String: String] {
        var labels: [String: String] = [:]
        for member in model.memberBlock.members {
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { continue }
            for (property, parameter) in ModelTranslator.parameterAssignments(initializer) { labels[parameter.firstName.text] = property }
        }
        return labels
    }

    /// The arguments of a call by the name they bind: a property of the memberwise init, or a
    /// parameter of the view's own `init`; each as a value the engine evaluates in the caller.
    private func bind(
        _ arguments: [LabeledExprSyntax], to shape: ViewShape, caller: ExpressionTranslator?, at place: Place, lifted: LiftedObjects?
    ) -> [String: JSON] {
        var bound: [String: JSON] = [:]
        let wrappers = Dictionary(shape.properties.map { ($0.name, $0.wrapper) }) { first, _ in first }
        for argument in arguments {
            guard let label = argument.label?.text else {
                program.unsupported(Place(place.unit, argument), "an unlabelled argument of \(shape.name)(…)")
                continue
            }
            // A root that makes an object to pass (`#Preview { ContentView(state: AppState()) }`) holds it.
            if let lifted, let call = argument.expression.as(FunctionCallExprSyntax.self),
                let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text, let model = program.models[type],
                let made = objectConstruction(argument.expression, in: ViewShape(name: shape.name, unit: place.unit))
            {
                let variable = lifted.name(for: type)
                lifted.state.append((variable, ["$new": made]))
                _ = model
                bound[label] = ["$parent": .string(variable)]
                continue
            }
            guard let caller else {
                if let literal = ExpressionTranslator(program: program, unit: place.unit, scope: NameScope(role: .view, names: [])).literal(
                    argument.expression)
                {
                    bound[label] = literal
                } else {
                    program.unsupported(Place(place.unit, argument), "a root view's argument that is not a literal")
                }
                continue
            }
            if let closure = argument.expression.as(ClosureExprSyntax.self) {
                bound[label] = Self.closureValue(closure, caller: caller)
                continue
            }
            // `Row(onTap: increment)`: the caller's method, as a closure that runs it.
            if shape.closureNames.contains(label), let name = argument.expression.as(DeclReferenceExprSyntax.self)?.baseName.text,
                let method = caller.scope.methods[name]
            {
                var actions = caller
                actions.scope.readsClock = true
                bound[label] = ["$closure": ["steps": .array(actions.inlineSteps(method, [], argument.expression))]]
                continue
            }
            if wrappers[label] == .binding {
                if let binding = BodyTranslator.bindingPath(argument.expression) {
                    bound[label] = ["$parent": .string(binding)]
                } else if let value = BodyTranslator.constantBinding(argument.expression, caller) {
                    bound[label] = ["$constant": Self.valueExpression(value, caller: caller)]
                } else {
                    program.unsupported(Place(caller.unit, argument), "this binding (pass $state, $object.property or .constant(v))")
                }
                continue
            }
            guard let value = caller.expression(argument.expression) else { continue }
            bound[label] = Self.valueExpression(value, caller: caller)
        }
        return bound
    }

    /// `{ taps += 1 }`, `{ n in picked = n }` passed to a child: `{"$closure": {"params"?, "steps"}}`,
    /// its steps written as the caller's control actions are, its parameters locals.
    static func closureValue(_ closure: ClosureExprSyntax, caller: ExpressionTranslator) -> JSON {
        var parameters: [String] = []
        switch closure.signature?.parameterClause {
        case .simpleInput(let names)?: parameters = names.map { ExpressionTranslator.localName($0.name.text) }
        case .parameterClause(let clause)?:
            parameters = clause.parameters.map { ExpressionTranslator.localName(($0.secondName ?? $0.firstName).text) }
        case nil: break
        @unknown default: break
        }
        var actions = caller
        actions.scope.readsClock = true
        actions.scope.locals += parameters
        var spec: JSONObject = [:]
        if !parameters.isEmpty { spec["params"] = .array(parameters.map(JSON.string)) }
        spec["steps"] = .array(actions.steps(closure.statements))
        return ["$closure": .object(spec)]
    }

    /// A body expression as a declaration's value (SPEC §6.2): a literal as itself, a key path of
    /// the caller's variable as `$parent`, anything else as `$expr`.
    static func valueExpression(_ value: JSON, caller: ExpressionTranslator) -> JSON {
        switch value {
        case .string, .int, .double, .bool, .null: return value
        default: break
        }
        if case .string(let path)? = value["get"], let head = path.split(separator: ".").first.map(String.init),
            caller.scope.names.contains(head), !caller.scope.isLocal(head)
        {
            return ["$parent": .string(path)]
        }
        return ["$expr": value]
    }

    /// What the view's own `init` does with its parameters: which wrapper each assignment
    /// initializes (`self.vm = VM(num: num)`, `_vm = StateObject(wrappedValue: VM(num: num))`, a
    /// `let` made first — eager), and the parameters as `arguments` (evaluated, never compared).
    private func initializerEffects(
        _ shape: ViewShape, given: [String: JSON], caller: ExpressionTranslator?
    ) -> (
        [String: JSON], [(String, JSON)], keptInitial: Set<String>
    ) {
        guard let initializer = shape.initializer, let body = initializer.body else { return ([:], [], []) }
        let parameters = initializer.signature.parameterClause.parameters.map {
            (label: $0.firstName.text, name: ($0.secondName ?? $0.firstName).text)
        }
        let names = Set(parameters.map(\.name))
        var arguments: [(String, JSON)] = []
        for parameter in parameters {
            if let value = given[parameter.label] { arguments.append((parameter.name, value)) }
        }
        var effects: [String: JSON] = [:]
        // The @State properties init writes through their value, which SwiftUI drops.
        var keptInitial: Set<String> = []
        var made: [String: JSON] = [:]
        let wrappers = Dictionary(shape.properties.map { ($0.name, $0.wrapper) }) { first, _ in first }
        for statement in body.statements {
            if let variable = statement.item.as(VariableDeclSyntax.self), let binding = variable.bindings.first,
                let local = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, let value = binding.initializer?.value,
                let construction = objectConstruction(value, in: shape, parameters: names)
            {
                made[local] = construction
                continue
            }
            if let call = statement.item.as(FunctionCallExprSyntax.self), call.calledExpression.trimmedDescription == "print" {
                program.report(
                    Place(shape.unit, call), .note,
                    "print(…) prints nothing here; view/didMount and object/didCreate say when a view and an object are made")
                continue
            }
            guard let infix = statement.item.as(InfixOperatorExprSyntax.self), infix.operator.is(AssignmentExprSyntax.self) else {
                program.unsupported(Place(shape.unit, statement), "this statement of \(shape.name).init")
                continue
            }
            var target =
                infix.leftOperand.as(MemberAccessExprSyntax.self)?.declName.baseName.text
                ?? infix.leftOperand.as(DeclReferenceExprSyntax.self)?.baseName.text ?? ""
            let storage = target.hasPrefix("_")
            if storage { target.removeFirst() }
            let value = infix.rightOperand
            if storage, let wrapped = value.as(FunctionCallExprSyntax.self), let inner = wrapped.arguments.first?.expression {
                let kind = wrapped.calledExpression.trimmedDescription
                if let local = inner.as(DeclReferenceExprSyntax.self)?.baseName.text, var eager = made[local]?.objectValue {
                    // `let vm = VM(…); _vm = StateObject(wrappedValue: vm)`: made at every init (seed 001 case 2).
                    eager["eager"] = true
                    effects[target] = .object(eager)
                } else if let construction = objectConstruction(inner, in: shape, parameters: names) {
                    effects[target] = construction
                } else if kind == "State", let name = inner.as(DeclReferenceExprSyntax.self)?.baseName.text, names.contains(name) {
                    effects[target] = ["$input": .string(name)]
                } else {
                    program.unsupported(Place(shape.unit, infix), "this initialization of \(target)")
                }
                continue
            }
            if wrappers[target] == .state, shape.properties.contains(where: { $0.name == target && $0.initial != nil }) {
                // The State is made from its initial value before init runs, and a write through its
                // value before the view is installed is dropped: SwiftUI keeps the initial value.
                program.report(
                    Place(shape.unit, infix), .warning,
                    "self.\(target) = … in \(shape.name).init changes nothing: SwiftUI keeps \(target)'s initial value (and warns at run time); write _\(target) = State(initialValue: …)"
                )
                keptInitial.insert(target)
                continue
            }
            if let construction = objectConstruction(value, in: shape, parameters: names) {
                if wrappers[target] == .observedObject, var object = construction.objectValue {
                    object["construct"] = object["type"]
                    object["type"] = nil
                    effects[target] = .object(object)
                } else {
                    effects[target] = construction
                }
            } else if let name = value.as(DeclReferenceExprSyntax.self)?.baseName.text, names.contains(name) {
                effects[target] = ["$input": .string(name)]
            } else {
                program.unsupported(Place(shape.unit, infix), "this initialization of \(target)")
            }
        }
        _ = caller
        return (effects, arguments, keptInitial)
    }
}

/// A view declaration being built, in the members' order.
struct DeclarationBuilder {
    let name: String
    var id: JSON?
    var inputs: [(String, JSON)] = []
    var arguments: [(String, JSON)] = []
    var state: [(String, JSON)] = []
    var stateTypes: [(String, JSON)] = []
    var bindings: [(String, JSON)] = []
    var stateObjects: [(String, JSON)] = []
    var observedObjects: [(String, JSON)] = []
    var environmentObjects: [(String, JSON)] = []
    var environment: [(String, JSON)] = []
    var modifiers: JSONObject = [:]
    var printChanges: [String]?
    var body: [JSON] = []

    var json: JSON {
        var members: [JSONObject.Member] = [("name", .string(name))]
        if let id { members.append(("id", id)) }
        func add(_ key: String, _ entries: [(String, JSON)]) {
            if !entries.isEmpty { members.append((key, .object(JSONObject(entries.map { ($0.0, $0.1) })))) }
        }
        add("inputs", inputs)
        add("arguments", arguments)
        add("state", state)
        add("stateTypes", stateTypes)
        add("bindings", bindings)
        add("stateObjects", stateObjects)
        add("observedObjects", observedObjects)
        add("environmentObjects", environmentObjects)
        add("environment", environment)
        if !modifiers.isEmpty { members.append(("modifiers", .object(modifiers))) }
        if let printChanges { members.append(("printChanges", .array(printChanges.map(JSON.string)))) }
        members.append(("body", .array(body)))
        return .object(JSONObject(members))
    }
}
