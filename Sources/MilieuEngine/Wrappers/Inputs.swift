import MilieuJSON

/// Plain `let` properties a parent passes (rules 2, 10): constants to the view, compared at every
/// evaluation of the parent; a new value re-evaluates the view with `@self`.
extension Graph {
    /// Gives a new identity its inputs, as its parent passes them now. A `$new` input is an object
    /// the parent makes for it (`Child(vm: Model())`), owned by the input.
    func installInputs(_ node: ViewNode, _ evaluated: EvaluatedDeclaration) throws(EngineError) {
        for (name, initial) in evaluated.inputs {
            switch initial {
            case .bound(.object(let id)):
                hold(id)
                node.variables.append(name, .inputObject(id))
            case .bound(.value(let value)): node.variables.append(name, .input(value))
            case .bound(.secure): node.variables.append(name, .input(.null))
            case .new(let type, let arguments):
                let record = try createObject(
                    type, initial: arguments, owner: (node, name), reason: .construct, field: "inputs.\(name).$new.init")
                hold(record.serial)
                node.variables.append(name, .inputObject(record.serial))
            case .closure(let closure): node.variables.append(name, .closure(closure))
            }
        }
    }

    /// Takes the inputs its parent's evaluation passes now; whether any is another value (`@self`).
    /// A `$new` input is a new object at every evaluation of the parent (rule 18): the old one goes.
    /// A closure never compares equal (SwiftUI cannot compare functions): a child that takes one
    /// is evaluated whenever its parent is, unless its `==` says otherwise (`equatable`).
    func updateInputs(_ child: ViewNode, _ evaluated: EvaluatedDeclaration, fresh: Bool) throws(EngineError) -> Bool {
        var changed = false
        for (name, initial) in evaluated.inputs {
            let new: ViewVariable
            switch initial {
            case .bound(.object(let id)): new = .inputObject(id)
            case .bound(.value(let value)): new = .input(value)
            case .bound(.secure): new = .input(.null)
            case .new(let type, let arguments):
                guard !fresh else { continue }
                let record = try createObject(
                    type, initial: arguments, owner: (child, name), reason: .construct, field: "inputs.\(name).$new.init")
                new = .inputObject(record.serial)
            case .closure(let closure):
                guard !fresh else { continue }
                new = .closure(closure)
            }
            switch (child.variables[name], new) {
            case (.input(let a)?, .input(let b)) where a == b: continue
            case (.inputObject(let a)?, .inputObject(let b)) where a == b: continue
            default: break
            }
            if case .inputObject(let id) = new { hold(id) }
            if case .inputObject(let old)? = child.variables[name] {
                releaseHeld(old, by: child, variable: name, ownerReason: .replaced)
            }
            setVariable(child, name, new)
            changed = true
        }
        return changed
    }
}

/// `.equatable()` (`EquatableView`): the view's own `==` decides whether its parent passed it anything new.
extension Graph {
    /// Whether the view declares an `==` and it finds what the parent passes now equal to what the
    /// view holds: the inputs and bindings it compares, and nothing else. A closure never compares equal.
    func isEqualByItsEquality(_ child: ViewNode, _ evaluated: EvaluatedDeclaration) -> Bool {
        guard let compared = child.declaration.equatable else { return false }
        for name in compared {
            if let input = evaluated.inputs.first(where: { $0.name == name })?.value {
                switch (input, child.variables[name]) {
                case (.bound(.value(let new)), .input(let old)?) where new == old: continue
                case (.bound(.object(let new)), .inputObject(let old)?) where new == old: continue
                default: return false
                }
            } else if let target = evaluated.bindings.first(where: { $0.name == name })?.target {
                guard case .binding(let old)? = child.variables[name], old == target,
                    boundValue(of: target) == child.passedBindings[name]
                else { return false }
            }
        }
        return true
    }
}
