import MilieuJSON

/// `@StateObject` (rules 3, 4, 18): the view's identity owns one object, made from its initializer
/// when the identity appears and kept for as long as it lasts. Later evaluations of the parent
/// would initialize it with new arguments: those are dropped, and Milieu reports each drop (a
/// diagnostic SwiftUI does not give). An object made eagerly in `init` (`let vm = VM(); _vm =
/// StateObject(wrappedValue: vm)`) is built and discarded at every evaluation of the parent.
extension Graph {
    /// Makes a new identity's state objects; `made` is why (`app`, `identity`), nil for a plain mount.
    func installStateObjects(_ node: ViewNode, _ evaluated: EvaluatedDeclaration, made: CreationReason?) throws(EngineError) {
        for (name, arguments) in evaluated.stateObjects {
            guard let type = node.declaration.stateObjectType(name) else { continue }
            try requireStyle(of: type, for: .stateObject, field: "stateObjects.\(name)", view: node.path)
            let record = try createObject(
                type, initial: arguments, owner: (node, name), reason: made ?? .stateObject, field: "stateObjects.\(name).init")
            hold(record.serial)
            node.variables.append(name, .object(record.serial, .stateObject))
            node.stateObjectArguments[name] = arguments
        }
    }

    /// A parent's evaluation would initialize the view's state objects again: an eager initializer
    /// builds one that is never used, and new arguments are ignored and reported (rule 4).
    func updateStateObjects(_ child: ViewNode, _ evaluated: EvaluatedDeclaration) throws(EngineError) {
        for (name, arguments) in evaluated.stateObjects {
            if let initializer = child.declaration.stateObjects.first(where: { $0.name == name })?.value, initializer.eager {
                try discardInitialValue(initializer.type, arguments, owner: child, variable: name, field: "stateObjects.\(name).init")
            }
            if arguments != child.stateObjectArguments[name] {
                reportIgnoredInitializer(child, variable: name, arguments: arguments)
            }
        }
    }

    private func reportIgnoredInitializer(_ node: ViewNode, variable: String, arguments given: JSONObject) {
        let type = node.declaration.stateObjectType(variable) ?? "object"
        // Rule 13: a secure initial value is named, never shown.
        var arguments = given
        for property in registry[type]?.model.stored ?? [] where property.secure && arguments[property.name] != nil {
            arguments[property.name] = "<secure>"
        }
        let kept = node.variables[variable]?.object.flatMap { objects[$0]?.name } ?? type
        pending.events.append(
            .diagnostic(
                kind: "StateObjectInitIgnored",
                message: "\(node.path): @StateObject \(variable) keeps \(kept); the new initial values "
                    + "\(JSON.object(arguments).jsonText) were ignored, because a state object is created once per view identity",
                view: node.path, variable: variable, ignored: .object(arguments),
                hint: "To make a new \(type) when these values change, give \(node.declaration.name) an id bound to them "
                    + "(\"id\": {\"$parent\": ...}), as .id(value) does in SwiftUI; or pass the object in as an @ObservedObject."))
    }
}
