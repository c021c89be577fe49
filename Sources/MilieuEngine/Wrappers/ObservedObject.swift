import MilieuJSON

/// `@ObservedObject` (rule 5): the view does not own what it observes. An object passed in is the
/// same every time; one the view constructs itself is constructed anew at every evaluation of its
/// parent, and the old one's values are gone (seed 000's LoginView2).
extension Graph {
    /// Gives a new identity its observed objects: constructed now, or the ones passed in.
    func installObservedObjects(_ node: ViewNode, _ evaluated: EvaluatedDeclaration) throws(EngineError) {
        for (name, source) in evaluated.observed {
            let id: ObjectSerial
            switch source {
            case .construct(let type, let arguments):
                try requireStyle(of: type, for: .observedObject, field: "observedObjects.\(name)", view: node.path)
                id = try createObject(
                    type, initial: arguments, owner: (node, name), reason: .construct, field: "observedObjects.\(name).init"
                ).serial
            case .object(let existing):
                try requireStyle(
                    of: objects[existing]?.type.name ?? "", for: .observedObject, field: "observedObjects.\(name)", view: node.path)
                id = existing
            }
            hold(id)
            node.variables.append(name, .object(id, .observedObject))
        }
    }

    /// Takes the observed objects its parent's evaluation gives now; whether any is another object
    /// (`@self`): a constructed one always is, unless the identity is `fresh`.
    func updateObservedObjects(_ child: ViewNode, _ evaluated: EvaluatedDeclaration, fresh: Bool) throws(EngineError) -> Bool {
        var changed = false
        for (name, source) in evaluated.observed {
            guard case .object(let old, _)? = child.variables[name] else { continue }
            switch source {
            case .construct(let type, let arguments):
                guard !fresh else { continue }
                let record = try createObject(
                    type, initial: arguments, owner: (child, name), reason: .construct, field: "observedObjects.\(name).init")
                hold(record.serial)
                setVariable(child, name, .object(record.serial, .observedObject))
                releaseHeld(old, by: child, variable: name, ownerReason: .replaced)
            case .object(let id):
                guard id != old else { continue }
                try requireStyle(
                    of: objects[id]?.type.name ?? "", for: .observedObject, field: "observedObjects.\(name)", view: child.path)
                hold(id)
                setVariable(child, name, .object(id, .observedObject))
                releaseHeld(old, by: child, variable: name, ownerReason: .replaced)
            }
            changed = true
        }
        return changed
    }
}
