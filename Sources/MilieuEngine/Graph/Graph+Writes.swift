import MilieuJSON
import MilieuProtocol

/// Writes: `graph/set`, a binding's write, an action's `set`, each landing on its source of truth
/// (rule 1), checked against its type and constraints, and judged by one rule (rule 9): a write
/// changes its place when it differs from what the place holds at that moment (`isChange`).
extension Graph {
    /// Rule 9: whether writing `new` over `old`, the value the place holds at the moment of the
    /// write, changes it. A secure place is never compared, so that writing a guess of a secret
    /// looks the same whether it was right or not (rule 13). A transaction that writes a value and
    /// writes it back changed it twice; its readers re-render once.
    static func isChange(from old: JSON, to new: JSON, secure: Bool) -> Bool { secure || old != new }

    /// Where a write to `keyPath` lands — through bindings, to the source (rule 1) — and the
    /// members inside that place's JSON value it writes.
    func writeTarget(_ keyPath: KeyPath, display: String) throws(EngineError) -> (Location, [String]) {
        var members = keyPath.members[...]
        var object: ObjectRecord
        switch keyPath.root {
        case .object(let name):
            guard let record = objectsByName[name] else { throw .unknownPath(display, "no object \(name)") }
            object = record
        case .view(let path):
            // Remembered: a client writes under one view again and again.
            guard let node = views.find(path) else { throw noView(at: path, named: display, "no view is mounted at \(path)") }
            guard let name = members.popFirst() else {
                throw .readOnly(display, .object, "a view is not a value; write one of its variables")
            }
            guard let index = node.variables.index(of: name) else {
                throw .unknownPath(
                    display, "\(path) has no variable \(name)",
                    suggestions: node.variables.nearestNames(to: name))
            }
            switch node.variables[at: index].value {
            case .state: return (.state(view: node.serial, variable: index), Array(members))
            case .binding(.place(let location, let projection)): return (location, projection + members)
            case .binding(.constant): throw .constantBinding(path: display, "the binding")
            case .input:
                throw .readOnly(display, .input, "\(name) is an input, a constant its parent passes; write the parent's value")
            case .closure:
                throw .readOnly(display, .input, "\(name) is a closure its parent passed; call it")
            case .environment, .noObject:
                throw .readOnly(display, .environment, "\(name) comes from the environment; change it with view/provide")
            case .inputObject(let id), .object(let id, _):
                guard let record = objects[id] else { throw .unknownPath(display, "the object is gone") }
                object = record
            }
        }
        while true {
            guard let name = members.popFirst() else {
                throw .readOnly(display, .object, "\(object.name) is an object; write one of its properties")
            }
            guard let slot = object.type.slots[name] else {
                throw .unknownPath(
                    display, "\(object.type.name) has no property \(name)", suggestions: object.type.nearestMembers(to: name))
            }
            if !members.isEmpty, object.type.referencedType(slot) != nil, case .string(let target) = object.values[slot],
                let referenced = objectsByName[target]
            {
                object = referenced
                continue
            }
            return (.property(object: object.serial, slot: slot), Array(members))
        }
    }

    /// Where a set operation of `path` lands: the place found last, if `path` named it and it is
    /// still found the same way (`RememberedTarget`), else `writeTarget(_:display:)`'s answer.
    func writeTarget(named path: String) throws(EngineError) -> (Location, [String]) {
        if let remembered = lastWriteTarget, let found = remembered.target(named: path, in: self) { return found }
        let keyPath = try parsedKeyPath(path)
        let target = try writeTarget(keyPath, display: path)
        lastWriteTarget = RememberedTarget(path, keyPath, target, in: self)
        return target
    }

    /// `graph/set`: writes a stored property or a @State, through bindings to the source.
    func setOperation(_ path: String, _ value: JSON, ifVersion: Version?) throws(EngineError) {
        let (location, members) = try writeTarget(named: path)
        if let ifVersion {
            let actual: Version?
            switch location {
            case .property(let id, _): actual = objects[id]?.version
            case .state(let serial, _): actual = viewsBySerial[serial]?.version
            }
            guard actual == ifVersion else {
                throw .versionConflict(path: path, expected: ifVersion.rawValue, actual: actual?.rawValue ?? 0)
            }
        }
        // A whole value is written as it came, not through a copy of it.
        guard !members.isEmpty else { return try write(location, value, display: path) }
        guard case .value(let whole) = boundValue(at: location) else {
            throw .forbidden(path: path, .secure, "a secure value is written whole")
        }
        try write(location, try replacing(members[...], in: whole, with: value, display: path), display: path)
    }

    func write(_ location: Location, _ value: JSON, display: String) throws(EngineError) {
        switch location {
        case .property(let id, let slot):
            guard let record = objects[id] else { throw .unknownPath(display, "the object is gone") }
            try writeProperty(record, slot: slot, value, path: display)
        case .state(let serial, let index):
            guard let node = viewsBySerial[serial], case .state(let old, let type) = node.variables[at: index].value else {
                throw .unknownPath(display, "the view is gone")
            }
            guard let conformed = type.conform(value) else {
                throw .typeMismatch(path: display, expected: type.description, actual: value.kindName)
            }
            guard Self.isChange(from: old, to: conformed, secure: false) else { return }
            pending.touch(location, original: old, changed: true)
            setVariable(node, node.variables[at: index].name, .state(conformed, type))
        }
    }

    private func replacing(
        _ members: ArraySlice<String>, in whole: JSON, with value: JSON, display: String
    )
        throws(EngineError) -> JSON
    {
        guard let name = members.first else { return value }
        switch whole {
        case .object(var object):
            object[name] = try replacing(members.dropFirst(), in: object[name] ?? .null, with: value, display: display)
            return .object(object)
        case .array(var items):
            guard let index = Int(name), items.indices.contains(index) else {
                throw .unknownPath(display, "\(name) is not an index of an array of \(items.count)")
            }
            items[index] = try replacing(members.dropFirst(), in: items[index], with: value, display: display)
            return .array(items)
        default:
            throw .unknownPath(display, "\(name) is a member of a \(whole.kindName), which has none")
        }
    }

    /// The value conformed to `type`, or a mismatch at `path`.
    static func conformed(_ value: JSON, to type: PropertyType, path: String) throws(EngineError) -> JSON {
        guard let conformed = type.conform(value) else {
            throw .typeMismatch(path: path, expected: type.description, actual: value.kindName)
        }
        return conformed
    }

    /// A value for stored slot `slot` of `type`, as `checked(_:for:path:)` checks it. Most
    /// properties refer to no object and have no constraint, and need only their type checked:
    /// that needs no copy of their whole declaration, which reading it from the type's array
    /// made (some 290 instructions a write).
    func checked(_ value: JSON, forSlot slot: Int, of type: RegisteredType, path: String) throws(EngineError) -> JSON {
        try type.isOnlyConformed(slot)
            ? Self.conformed(value, to: type.propertyType(slot), path: path)
            : checked(value, for: type.model.stored[slot], path: path)
    }

    /// The value conformed to the property's type and checked against its validation.
    func checked(_ value: JSON, for property: StoredProperty, path: String) throws(EngineError) -> JSON {
        let conformed = try Self.conformed(value, to: property.type, path: path)
        if let type = property.type.referencedType, case .string(let name) = conformed {
            if let found = objectsByName[name], found.type.name != type {
                throw .typeMismatch(path: path, expected: "@\(type)", actual: "string", detail: "\(name), a \(found.type.name)")
            } else if objectsByName[name] == nil {
                throw .typeMismatch(path: path, expected: "@\(type)", actual: "string", detail: "\(name), which is no object")
            }
        }
        if let violation = try property.validation.violation(of: conformed, subject: path, secure: property.secure) {
            throw .invalidValue(path: path, violation: violation, value: property.secure ? nil : value)
        }
        return conformed
    }

    /// Writes a stored property; an equal value is no change (rule 9), except to a `@Published` one.
    func writeProperty(_ record: ObjectRecord, slot: Int, _ value: JSON, path: String) throws(EngineError) {
        guard slot < record.type.storedCount else {
            throw .readOnly(path, .computed, "\(record.type.propertyName(slot)) is computed from other properties")
        }
        var conformed = try checked(value, forSlot: slot, of: record.type, path: path)
        let changed = Self.isChange(from: record.values[slot], to: conformed, secure: record.type.isSecure(slot))
        guard changed || record.type.announcesEveryWrite(slot) else { return }
        // The new value in and the old one out, each moved rather than copied.
        swap(&record.values[slot], &conformed)
        let old = consume conformed
        if changed, record.type.referencedType(slot) != nil { referenceRewritten(record, slot: slot, old: old) }
        // Touched places keep the value from before the transaction: a rollback puts it back, so
        // the journal keeps no step of its own (about 130 instructions a write, callgrind).
        pending.touch(.property(object: record.serial, slot: slot), original: old, changed: changed)
    }
}

/// A write target found through a view's variable, kept with the path that named it: a client
/// writes one path again and again (`theme.accentColor`, a field being typed into), and parsing
/// the path and looking up its view, its variable and its property cost about 750 instructions
/// of a 7,000-instruction `graph/set` (callgrind). Every set operation finds its target here
/// (`graph/set`, and an action's or a control's `set`). Only a target that depends on nothing
/// but the view and that variable is kept: a @State, or the property named right after the
/// variable of the object it holds (not one reached through a reference, or a reference that
/// holds no object with members after it, nor through a binding).
///
/// It is checked before each use, never trusted. The view must still be mounted: a view's path
/// never changes, so it is still the view at that path, and its variables keep their positions
/// from its build (what `Location.state` holds). The variable must still hold the same object,
/// or none for a @State (which stays a @State). A variable is one of its object's holders, so
/// the object is there while it holds it; an object's serial is never reused and its type never
/// changes, so its property's slot stands.
/// Whatever fails the check is found again the whole way, which also gives any error its words.
///
/// A class: the graph's copy of a struct, made to check it, cost more than the look-ups saved.
final class RememberedTarget {
    private let text: String
    private let view: ViewSerial
    private let variable: Int
    /// The object the variable holds; nil for a @State.
    private let object: ObjectSerial?
    private let location: Location
    private let members: [String]

    /// The target `keyPath` (written `text`) was found to have, if it is one to keep.
    init?(_ text: String, _ keyPath: KeyPath, _ target: (Location, [String]), in graph: Graph) {
        guard case .view(let path) = keyPath.root, let name = keyPath.members.first, let node = graph.views.find(path),
            let index = node.variables.index(of: name)
        else { return nil }
        switch (node.variables[at: index].value, target.0) {
        case (.state, .state(let serial, let variable)) where serial == node.serial && variable == index:
            object = nil
        case (.object(let held, _), .property(_, let slot)), (.inputObject(let held), .property(_, let slot)):
            // The property named right after the variable, so of the object it holds: no reference
            // followed (each takes a member, and one may lead back to that object), and none
            // stopped at with members left (it held no object): both depend on its value.
            guard target.1.count == keyPath.members.count - 2, target.1.isEmpty || graph.objects[held]?.type.referencedType(slot) == nil
            else { return nil }
            object = held
        default:
            return nil
        }
        self.text = text
        view = node.serial
        variable = index
        (location, members) = target
    }

    /// The target, if `path` is the text it was found for and it is still found the same way.
    func target(named path: String, in graph: Graph) -> (Location, [String])? {
        guard text == path, let node = graph.viewsBySerial[view] else { return nil }
        switch node.variables[at: variable].value {
        case .state where object == nil: break
        case .object(let held, _) where held == object, .inputObject(let held) where held == object: break
        default: return nil
        }
        return (location, members)
    }
}
