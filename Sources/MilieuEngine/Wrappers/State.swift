import MilieuJSON

/// `@State` (rules 3 and 18): owned by the view's identity, made from its initial value when the
/// identity appears and kept across every evaluation of the parent. `@State var vm = Model()`
/// evaluates its initial value at every init of the view struct, so each extra object is made
/// and thrown away, and the first stays.
extension Graph {
    /// Gives a new identity its `@State`s from their initial values; `made` is why the identity's
    /// objects are made (`app`, `identity`), nil for a plain mount.
    func installState(_ node: ViewNode, _ evaluated: EvaluatedDeclaration, made: CreationReason?) throws(EngineError) {
        for (name, initial) in evaluated.state {
            switch initial {
            case .bound(.value(let value)):
                guard let type = node.declaration.stateType(name) else {
                    node.variables.append(name, .state(value, Self.stateType(of: value)))
                    continue
                }
                guard let conformed = type.conform(value) else {
                    throw .typeMismatch(path: "\(node.path).\(name)", expected: type.description, actual: value.kindName)
                }
                node.variables.append(name, .state(conformed, type))
            case .bound(.object) where node.declaration.stateType(name) != nil:
                // A typed @State holds a value; an object is held without a type (`$new`, `$parent`).
                throw .typeMismatch(
                    path: "\(node.path).\(name)", expected: node.declaration.stateType(name)?.description ?? "", actual: "object")
            case .bound(.object(let id)):
                hold(id)
                node.variables.append(name, .object(id, .state))
            case .bound(.secure):
                throw .invalidDeclaration(field: "state.\(name)", reason: "a @State cannot start from a secure value", view: node.path)
            case .closure: preconditionFailure("a @State's initial value is never a $closure: the parser refuses it")
            case .new(let type, let arguments):
                let record = try createObject(
                    type, initial: arguments, owner: (node, name), reason: made ?? .state, field: "state.\(name).$new.init")
                hold(record.serial)
                node.variables.append(name, .object(record.serial, .state))
            }
        }
    }

    /// A parent's evaluation inits the view struct again: every `$new` initial value is made and
    /// discarded (rule 18); the identity keeps its state.
    func updateState(_ child: ViewNode, _ evaluated: EvaluatedDeclaration) throws(EngineError) {
        for (name, initial) in evaluated.state {
            guard case .new(let type, let arguments) = initial else { continue }
            try discardInitialValue(type, arguments, owner: child, variable: name, field: "state.\(name).$new.init")
        }
    }

    /// The shape a @State keeps when its declaration gives it no type (`stateTypes`): the kind of
    /// its initial value (a null or object initial value accepts any JSON).
    static func stateType(of value: JSON) -> PropertyType {
        switch value {
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .array: .array(.json)
        case .null, .object: .json
        }
    }

    /// An initial value made for a view identity that already has one: created and destroyed at
    /// once, both reported with the variable it was made for.
    func discardInitialValue(
        _ type: String, _ arguments: JSONObject, owner: ViewNode, variable: String, field: String
    )
        throws(EngineError)
    {
        let record = try createObject(type, initial: arguments, owner: (owner, variable), reason: .stateInitial, field: field)
        hold(record.serial)
        release(record.serial, reason: .discarded)
    }
}
