import MilieuJSON
import MilieuProtocol

/// What a key path or `$parent` reference comes to: a value, an object, or a secure value that is not shown.
enum Bound: Equatable {
    case value(JSON)
    case object(ObjectSerial)
    case secure
}

/// Collects what an evaluation reads, each with the reasons a change to it would give (rule 10):
/// one place read through two variables (a binding and an object) gives both.
/// A graph keeps one and reuses it (`Graph.recorder`): evaluations do not nest.
final class ReadRecorder {
    private var dependencies = DependencySet()
    /// The view whose evaluation is recorded: its reads of its own `@State` are bits.
    private var reader: ViewNode?

    /// Starts recording what `reader` reads, dropping anything a failed evaluation left behind.
    func start(for reader: ViewNode) {
        dependencies = DependencySet()
        self.reader = reader
    }

    func note(_ dependency: Dependency, _ reason: String) {
        if case .location(.state(let view, let index)) = dependency, let reader, view == reader.serial,
            index < DependencySet.ownStateBits
        {
            // The bit keeps no reason: `ViewNode.reasons(for:)` makes it again from the name.
            assert(reason == UpdateReason.variable(reader.variables[at: index].name), "own state read with reason \(reason)")
            dependencies.noteOwnState(index)
            return
        }
        dependencies.note(dependency, reason)
    }

    /// What was recorded since `start`; the recorder is left empty.
    func take() -> DependencySet {
        defer {
            dependencies = DependencySet()
            reader = nil
        }
        return dependencies
    }
}

/// The reasons one dependency gives; almost always one.
enum Reasons: Equatable {
    case one(String)
    case many([String])

    func adding(_ reason: String) -> Reasons {
        switch self {
        case .one(let first): first == reason ? self : .many([first, reason])
        case .many(let all): all.contains(reason) ? self : .many(all + [reason])
        }
    }

    var all: [String] {
        switch self {
        case .one(let reason): [reason]
        case .many(let reasons): reasons
        }
    }

    func contains(_ reason: String) -> Bool {
        switch self {
        case .one(let only): only == reason
        case .many(let reasons): reasons.contains(reason)
        }
    }
}

extension Graph {
    /// Reads `members` starting at one of `node`'s variables, recording what was read.
    /// `display` names the path in errors; it is only built when one is thrown.
    func read(
        _ path: ReadPath, in node: ViewNode, recorder: ReadRecorder?, display: @autoclosure () -> String
    )
        throws(EngineError) -> Bound
    {
        let members = path.members
        let name = members[0]
        guard let index = node.variables.index(of: name) else {
            throw .unknownPath(
                display(), "\(node.path) has no variable \(name)",
                suggestions: node.variables.nearestNames(to: name))
        }
        var bound: Bound
        switch node.variables[at: index].value {
        case .input(let value): bound = .value(value)
        case .object(let id, .state):
            // Reading a @State is reading its storage, whatever it holds: replacing the object is a change.
            recorder?.note(.location(.state(view: node.serial, variable: index)), path.variableReason)
            bound = .object(id)
        case .inputObject(let id), .object(let id, _): bound = .object(id)
        case .state(let value, _):
            recorder?.note(.location(.state(view: node.serial, variable: index)), path.variableReason)
            bound = .value(value)
        case .binding(let target):
            if let dependency = target.dependency { recorder?.note(dependency, path.variableReason) }
            bound = boundValue(of: target)
        case .environment(let provider, let value):
            let key = node.declaration.environmentKey(ofVariable: index)
            recorder?.note(.environment(provider: provider, key: key), key == name ? path.environmentReason : UpdateReason.environment(key))
            bound = .value(value)
        case .noObject: bound = .value(.null)
        case .closure:
            throw .typeMismatch(
                path: display(), expected: "a value", actual: "closure", detail: "\(name) is a closure its parent passed; call it")
        }
        for index in members.indices.dropFirst() {
            bound = try member(members[index], of: bound, recorder: recorder, reason: path.reason(at: index), display: display())
        }
        return bound
    }

    /// One step of a key path: a property of an object, or a member of a JSON value (null when absent).
    func member(
        _ name: String, of bound: Bound, recorder: ReadRecorder?, reason: @autoclosure () -> String,
        display: @autoclosure () -> String
    ) throws(EngineError) -> Bound {
        switch bound {
        case .secure: return .secure
        case .value(let value):
            switch value {
            case .object(let object): return .value(object[name] ?? .null)
            case .array(let items):
                guard let index = Int(name), items.indices.contains(index) else { return .value(.null) }
                return .value(items[index])
            default: return .value(.null)
            }
        case .object(let id):
            guard let record = objects[id] else { return .value(.null) }
            guard let slot = record.type.slots[name] else {
                throw .unknownPath(
                    display(), "\(record.type.name) has no property \(name)", suggestions: record.type.nearestMembers(to: name))
            }
            if let recorder, record.type.model.style == .observable {
                noteObservation(of: record, slot: slot, recorder: recorder, reason: reason())
            }
            if record.type.isSecure(slot) { return .secure }
            let value = record.values[slot]
            if case .string(let target) = value, record.type.referencedType(slot) != nil, let referenced = objectsByName[target] {
                return .object(referenced.serial)
            }
            return .value(value)
        }
    }

    /// What a body's read of `slot` of an `@Observable` object depends on: the property itself,
    /// or, for a computed one, the stored properties its getter read (rule 12), each with the
    /// reason its own path gives (`login.email` for a read of `login.isValidEmail`).
    private func noteObservation(of record: ObjectRecord, slot: Int, recorder: ReadRecorder, reason: String) {
        guard record.type.isComputed(slot) else {
            // An `@ObservationIgnored` property is read untracked.
            if record.type.announces(slot) { recorder.note(.location(.property(object: record.serial, slot: slot)), reason) }
            return
        }
        let owner = reason.lastIndex(of: ".").map { reason[...$0] } ?? ""
        for read in record.computedReads[slot - record.type.storedCount] where record.type.announces(read) {
            recorder.note(.location(.property(object: record.serial, slot: read)), owner + record.type.propertyName(read))
        }
    }

    func boundValue(at location: Location) -> Bound {
        switch location {
        case .property(let id, let slot):
            guard let record = objects[id] else { return .value(.null) }
            return record.type.isSecure(slot) ? .secure : .value(record.values[slot])
        case .state(let serial, let index):
            guard let node = viewsBySerial[serial], case .state(let value, _) = node.variables[at: index].value else {
                return .value(.null)
            }
            return .value(value)
        }
    }

    /// The view a key path starts from, or the object for an object root.
    func resolve(_ keyPath: KeyPath, display: String) throws(EngineError) -> Bound {
        switch keyPath.root {
        case .object(let name):
            guard let record = objectsByName[name] else { throw .unknownPath(display, "no object \(name)") }
            var bound = Bound.object(record.serial)
            for (index, name) in keyPath.members.enumerated() {
                bound = try member(
                    name, of: bound, recorder: nil, reason: keyPath.members[...index].joined(separator: "."),
                    display: display)
            }
            return bound
        case .view(let path):
            guard let node = views[path] else { throw noView(at: path, named: display, "no view is mounted at \(path)") }
            guard !keyPath.members.isEmpty else { throw .unknownPath(display, "\(path) is a view, not a value") }
            return try read(try ReadPath(keyPath.members), in: node, recorder: nil, display: display)
        }
    }

    /// A key path parsed once and kept (a bounded cache: cleared when it grows large).
    func parsedKeyPath(_ text: String) throws(EngineError) -> KeyPath {
        // Compared in place: `if let` copied the pair to compare it.
        if lastKeyPath?.text == text, let keyPath = lastKeyPath?.keyPath { return keyPath }
        let parsed: KeyPath
        if let known = keyPaths[text] {
            parsed = known
        } else {
            parsed = try KeyPath(parsing: text)
            if keyPaths.count >= 4096 { keyPaths.removeAll(keepingCapacity: true) }
            keyPaths[text] = parsed
        }
        lastKeyPath = (text, parsed)
        return parsed
    }
}
