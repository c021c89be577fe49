import MilieuJSON

/// A change to what a restarted daemon must bring back: the stored, non-secure properties of
/// long-lived objects (those of `/App`, of scene views and of retained views) and the @State of
/// those views, and the declarations of retained views that clients mounted. Secure values
/// are never among them (rule 13).
public enum DurableWrite: Sendable, Equatable {
    /// `name` is `var` for a @State, `var.property` for a property of an object the view owns.
    case value(view: String, name: String, value: JSON)
    case view(path: String, declaration: JSON)
    /// The view went: forget its declaration and its values.
    case removeView(path: String)
    /// The view (`name` empty) or the object its variable `name` owns changed in this commit
    /// where no `value` says so — a secure property written, `objectWillChange` sent, a view
    /// mounted without a declaration to keep — so that its version survives a restart (SPEC §8.1).
    /// A `value` says it for its view (`var`) or object (`var.property`), a `view` for its view.
    case version(view: String, name: String)
}

extension Graph {
    /// A declaration as it may be written to disk: literal initial values of secure properties
    /// (`stateObjects` and `construct` init, `$new` in `state` and `inputs`) are left out, so the
    /// object starts at its default.
    func withoutSecureValues(_ json: JSON, _ declaration: ViewDeclaration) -> JSON {
        guard case .object(var object) = json else { return json }
        /// `spec` with the secure members of its `init` left out.
        func stripped(_ spec: JSON, type: String) -> JSON {
            guard case .object(var entry) = spec, case .object(var initial)? = entry["init"], let model = registry[type]?.model
            else { return spec }
            for property in model.stored where property.secure { initial[property.name] = nil }
            entry["init"] = .object(initial)
            return .object(entry)
        }
        func strip(_ wrapper: String, _ name: String, type: String, inNew: Bool = false) {
            guard case .object(var entries)? = object[wrapper], let spec = entries[name] else { return }
            if inNew {
                guard case .object(let expression) = spec, let inner = expression["$new"] else { return }
                entries[name] = ["$new": stripped(inner, type: type)]
            } else {
                entries[name] = stripped(spec, type: type)
            }
            object[wrapper] = .object(entries)
        }
        for (name, initializer) in declaration.stateObjects { strip("stateObjects", name, type: initializer.type) }
        for (name, source) in declaration.observedObjects {
            if case .construct(let initializer) = source { strip("observedObjects", name, type: initializer.type) }
        }
        for (wrapper, entries) in [("state", declaration.state), ("inputs", declaration.inputs)] {
            for (name, expression) in entries {
                if case .new(let initializer) = expression { strip(wrapper, name, type: initializer.type, inNew: true) }
            }
        }
        return .object(object)
    }

    /// A type declaration as it may be written to disk: a secure property's `default` is left
    /// out, so a restarted daemon gives it its type's zero value (rule 13: secrets never persist).
    public static func withoutSecureDefaults(_ declaration: JSON) -> JSON {
        guard case .object(var type) = declaration, case .object(var properties)? = type["properties"] else { return declaration }
        for (name, spec) in properties {
            guard case .object(var property) = spec, property["secure"] == true, property["default"] != nil else { continue }
            property["default"] = nil
            properties[name] = .object(property)
        }
        type["properties"] = .object(properties)
        return .object(type)
    }

    /// Whether a view's state and owned objects outlive a restart.
    private func isDurable(_ node: ViewNode) -> Bool {
        node.isMounted && (node.parent == nil || node.retained || node.owner == nil)
    }

    /// The durable view and variable that own `record`: where its values and version are kept.
    /// An object another made (`makes`) is kept under the path through it (`outer.inner`).
    private func durableOwner(of record: ObjectRecord) -> (view: ViewNode, variable: String)? {
        guard let view = record.ownerView, let variable = record.ownerVariable, let holder = record.holdingVariable, isDurable(view) else {
            return nil
        }
        guard case .object(_, let wrapper)? = view.variables[holder], wrapper.owns else { return nil }
        return (view, variable)
    }

    /// The object named `name`, as a property change names it: the one found last if it is that
    /// one and still in the graph (commit after commit names the same few objects), else the one
    /// found by name. Hashing the name cost some 340 instructions a durable write; comparing it
    /// with the same string and checking the serial, about a third of that.
    private func durableRecord(named name: String) -> ObjectRecord? {
        if let last = lastDurableRecord, last.name == name, objects[last.serial] === last { return last }
        let record = objectsByName[name]
        lastDurableRecord = record
        return record
    }

    /// What `commit` changes of the durable state, each handed to `write` in order: the log
    /// record is built from them as they come, without a list of its own (an array made and
    /// freed for every commit, about 200 instructions with its copies). Each write is handed over
    /// to be consumed: the log's batch keeps it without a copy. With it comes the index of the
    /// change it restates, if any: a `value` that carries a property change's new value (under
    /// `var.property`, or the path through the objects that made it), or a @State change's
    /// (view and variable the same), so that the change's entry in the record's history can name
    /// the write instead of writing the value again.
    public func forEachDurableWrite(of commit: Commit, _ write: (consuming DurableWrite, _ restating: Int?) -> Void) {
        // By index, and a property change read in place (`Commit.Changes.property(at:)`): a
        // switch on the element copied it whole, some 310 instructions a write.
        for index in commit.changes.indices {
            if let (object, property, value) = commit.changes.property(at: index) {
                // What a property made is made again with its object at a restart: its own values are kept.
                guard let record = durableRecord(named: object), let (view, variable) = durableOwner(of: record),
                    let slot = record.type.slots[property], slot < record.type.storedCount, record.type.model.stored[slot].makes == nil
                else { continue }
                if let value {
                    write(.value(view: view.path, name: record.durableName(of: slot, owner: variable), value: value), index)
                } else {
                    // A secret is never written, but that it changed the object's version is.
                    write(.version(view: view.path, name: variable), nil)
                }
                continue
            }
            switch commit.changes[index] {
            case .state(let path, let variable, let value):
                guard let node = views[path], isDurable(node) else { continue }
                if case .object(let id, let wrapper)? = node.variables[variable] {
                    // A @State given a new object (`vm = Model()`): its id means nothing at a
                    // restart, where the declaration makes the object again; its values are kept.
                    write(.version(view: path, name: ""), nil)
                    guard wrapper.owns, let record = objects[id], record.ownerView === node else { continue }
                    for value in durableValues(of: record, at: path, name: variable) { write(value, nil) }
                    continue
                }
                write(.value(view: path, name: variable, value: value), index)
            case .viewMounted(let path, _, _, _):
                guard let node = views[path], isDurable(node) else { continue }
                if let declaration = node.durableDeclaration {
                    write(.view(path: path, declaration: declaration), nil)
                    for value in durableValues(of: node) { write(value, nil) }
                } else {
                    // A view its parent's body or the scene declares: it comes back with them,
                    // and only its version and its objects' need keeping.
                    write(.version(view: path, name: ""), nil)
                    for (name, variable) in node.variables {
                        guard case .object(let id, let wrapper) = variable, wrapper.owns, objects[id]?.ownerView === node else { continue }
                        write(.version(view: path, name: name), nil)
                    }
                }
            case .viewUnmounted(let path, _):
                write(.removeView(path: path), nil)
            default: continue
            }
        }
        // `objectWillChange.send` changes an object's version and no value.
        for id in commit.announced.isEmpty ? [] : commit.announced.sorted() {
            guard let record = objects[id], let (view, variable) = durableOwner(of: record) else { continue }
            write(.version(view: view.path, name: variable), nil)
        }
    }

    /// Every durable value of a view as it is now (a new retained view's first record); an
    /// object it owns without a value to keep (every property secure) gets its version kept.
    private func durableValues(of node: ViewNode) -> [DurableWrite] {
        var writes: [DurableWrite] = []
        for (name, variable) in node.variables {
            switch variable {
            case .state(let value, _): writes.append(.value(view: node.path, name: name, value: value))
            case .object(let id, let wrapper) where wrapper.owns:
                guard let record = objects[id], record.ownerView === node else { continue }
                writes += durableValues(of: record, at: node.path, name: name)
            default: continue
            }
        }
        return writes
    }

    /// An owned object's durable values, under `name`, and those of the objects it made, under the
    /// paths through it; its version when it has no value to keep (every property secure).
    private func durableValues(of record: ObjectRecord, at view: String, name: String) -> [DurableWrite] {
        var writes: [DurableWrite] = []
        for (slot, property) in record.type.model.stored.enumerated() where !property.secure && property.makes == nil {
            writes.append(.value(view: view, name: "\(name).\(property.name)", value: record.values[slot]))
        }
        if writes.isEmpty { writes.append(.version(view: view, name: name)) }
        for (slot, _) in record.type.madeSlots {
            guard case .string(let made) = record.values[slot], let nested = objectsByName[made] else { continue }
            writes += durableValues(of: nested, at: view, name: "\(name).\(record.type.model.stored[slot].name)")
        }
        return writes
    }
}
