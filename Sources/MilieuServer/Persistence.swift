import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuStore

/// Opening the store at start-up and bringing its state back into a new graph; what each
/// commit puts in the log: its durable writes, and its changes for resumed watches.
enum Persistence {
    /// A declared environment key is kept among the stored types as
    /// `{"environmentKey": key, "declaration": spec}` under the name `environmentKey.<key>`: no type
    /// declaration has that member, and no type name has a dot.
    static let environmentKeyEntry = "environmentKey"

    /// Registers the stored types, mounts the stored retained views, writes the stored values,
    /// then gives each view and object the version it had. Anything that no longer fits (a type
    /// renamed in the scene, say) is skipped, logged and reported: the report is what
    /// `daemon/info` and `initialize` tell clients. `last` is the last version logged: the
    /// restore takes no versions (SPEC §8.1), and the graph is at `last` after it.
    static func restore(_ state: StoredState, into graph: Graph, at last: Version, log: Logger) -> RestoreReport {
        var report = RestoreReport()
        func drop(_ kind: RestoreReport.Dropped.Kind, _ name: String, _ error: EngineError) {
            log.warning("not restoring the stored \(kind.rawValue) \(name): \(error)")
            report.drop(kind, name, because: error.description)
        }
        for declaration in state.types {
            let key = declaration[environmentKeyEntry]?.stringValue
            do throws(EngineError) {
                if let key {
                    _ = try graph.declareEnvironmentKeys([key: declaration["declaration"] ?? .null])
                    continue
                }
                // A stored type takes the place of a built-in of its name, as its registration did.
                _ = try graph.register(declaration: declaration, replace: true)
                report.types += 1
            } catch {
                if let key { drop(.environmentKey, key, error) } else { drop(.type, declaration["name"]?.stringValue ?? "?", error) }
            }
        }
        // In transactions of up to 1000, as clients mount many views: little time, and a chunk
        // that fails is tried one by one, to skip what no longer fits and keep the rest.
        var droppedViews = Set<String>()
        for chunk in state.views.chunked(by: restoreChunk) {
            let operations = chunk.map { Operation.mount(declaration: $0.declaration, owner: nil) }
            report.views += apply(operations, to: graph, at: last) { index, error in
                let path = chunk[chunk.startIndex + index].path
                droppedViews.insert(path)
                drop(.view, path, error)
            }
        }
        for chunk in state.values.chunked(by: restoreChunk) {
            let operations = chunk.map { Operation.set(path: "\($0.view).\($0.name)", value: $0.value, ifVersion: nil) }
            report.values += apply(operations, to: graph, at: last) { index, error in
                let stored = chunk[chunk.startIndex + index]
                // A value of a view not restored went with it: its drop says so once.
                guard !droppedViews.contains(stored.view) else { return }
                drop(.value, "\(stored.view).\(stored.name)", error)
            }
        }
        graph.continueVersions(after: last)
        // Last: the transactions above gave what they touched the last version logged.
        for entry in state.versions {
            graph.restoreVersion(Version(entry.version), view: entry.view, variable: entry.name)
        }
        let dropped = report.droppedCount == 0 ? "" : "; dropped \(report.droppedCount) that no longer fit"
        log.info("restored \(report.types) types, \(report.views) retained views and \(report.values) values\(dropped)")
        return report
    }

    static let restoreChunk = 1000

    /// Applies `operations` in one transaction of the restore, or, if that fails, each alone;
    /// returns how many were applied and reports each that failed.
    private static func apply(
        _ operations: [Operation], to graph: Graph, at last: Version, failed: (Int, EngineError) -> Void
    ) -> Int {
        if (try? graph.applyRestored(operations, at: last)) != nil { return operations.count }
        var applied = 0
        for (index, operation) in operations.enumerated() {
            do {
                try graph.applyRestored([operation], at: last)
                applied += 1
            } catch {
                failed(index, error)
            }
        }
        return applied
    }

    /// Stages `commit`'s record: what it changed of the durable state, and its changes for the
    /// history, each change a write restates named by the write's position (log format 3).
    /// Returns whether it changed durable state (only then does its answer wait for the disk).
    ///
    /// Never inlined: inlined into the request path, its two closures sharing `restated` kept the
    /// optimizer from moving a `graph/set`'s path and value into the write, which copied them
    /// instead (some 190 instructions a request, callgrind).
    @discardableResult
    @inline(never)
    static func stage(_ commit: Commit, of graph: Graph, in store: Store, objectHead: inout WrittenMemo) -> Bool {
        var restated = Restatements()
        return store.stage(version: commit.version.rawValue) { add in
            graph.forEachDurableWrite(of: commit) { write, change in
                switch consume write {
                case .value(let view, let name, let value):
                    let position = add(.value(view: view, name: name, value: value))
                    if let change { restated.note(change: change, write: position) }
                case .view(let path, let declaration): _ = add(.view(path: path, declaration: declaration))
                case .removeView(let path): _ = add(.removeView(path: path))
                case .version(let view, let name): _ = add(.version(view: view, name: name))
                }
            }
        } history: { sink in
            writeHistory(commit.changes, graph, restated: &restated, objectHead: &objectHead, into: &sink)
        }
    }

    /// Which of a commit's changes a write of its record restates, and that write's position, in
    /// change order as `forEachDurableWrite` hands them over. The first is kept in place and only a
    /// transaction's others in an array: most commits are one `graph/set`, and this is made for each.
    struct Restatements {
        private var first: (change: Int, write: Int)?
        private var others: [(change: Int, write: Int)] = []
        /// How many the history has passed.
        private var read = 0

        mutating func note(change: Int, write: Int) {
            if first == nil { first = (change, write) } else { others.append((change, write)) }
        }

        /// The position of the write that restates `change`, if one does; asked in change order.
        mutating func write(restating change: Int) -> Int? {
            let next = read == 0 ? first : (read - 1 < others.count ? others[read - 1] : nil)
            guard let next, next.change == change else { return nil }
            read += 1
            return next.write
        }
    }

    // MARK: History records

    /// `commit`'s changes as a JSON array, one short array per change, written straight out
    /// (this runs for every commit) into its log record. A secure property's change carries the
    /// property's position in its type, not its name: nothing of a secret is written. A change
    /// whose own durable write restates it names that write by its position, `["P",object,k]` for
    /// a property (its type is the object's id up to its `#`, as ids are `Type#n`; its name what
    /// follows the write's last dot, its value the write's) and `["S",k]` for a @State (view,
    /// variable and value the write's), rather than say the change twice: a `graph/set`'s record
    /// went from 113 bytes to 85, and making it from 8,550 instructions a pipelined request to
    /// 8,363 (issue #31, docs/benchmarks.md).
    ///
    /// A `P` entry's head, its tag and object, comes from `objectHead` when the one before it was
    /// of the same object.
    static func writeHistory(
        _ changes: Commit.Changes, _ graph: Graph, restated: inout Restatements, objectHead: inout WrittenMemo, into sink: inout JSONSink
    ) {
        // Fixed arities rather than a variadic list: an array of strings for every change.
        func entry(_ tag: Unicode.Scalar, _ first: String) {
            sink.writeRaw(UInt8(ascii: "["))
            sink.writeRaw(UInt8(ascii: "\""))
            sink.writeRaw(UInt8(ascii: tag))
            sink.writeRaw(UInt8(ascii: "\""))
            string(first)
        }
        func entry(_ tag: Unicode.Scalar, _ first: String, _ second: String) {
            entry(tag, first)
            string(second)
        }
        func entry(_ tag: Unicode.Scalar, _ first: String, _ second: String, _ third: String) {
            entry(tag, first, second)
            string(third)
        }
        func string(_ text: String) {
            sink.writeRaw(UInt8(ascii: ","))
            sink.writeString(text)
        }
        func value(_ json: JSON) {
            sink.writeRaw(UInt8(ascii: ","))
            sink.write(json)
        }
        func list(_ strings: some Collection<String>) {
            sink.writeRaw(",[")
            for (index, string) in strings.enumerated() {
                if index > 0 { sink.writeRaw(UInt8(ascii: ",")) }
                sink.writeString(string)
            }
            sink.writeRaw(UInt8(ascii: "]"))
        }
        func owner(_ owner: String?) {
            if let owner { sink.writeRaw(UInt8(ascii: ",")); sink.writeString(owner) } else { sink.writeRaw(",null") }
        }
        sink.writeRaw(UInt8(ascii: "["))
        // By index, as `forEachDurableWrite` reads them: not a copy of each change whole.
        for index in changes.indices {
            if index > changes.startIndex { sink.writeRaw(UInt8(ascii: ",")) }
            if let write = restated.write(restating: index) {
                // The object read in place: a switch on the change here copied it whole
                // (some 170 instructions a write).
                if let object = changes.propertyObject(at: index) {
                    sink.write(memo: &objectHead, object, "") { sink in
                        sink.writeRaw(#"["P","#)
                        sink.writeString(object)
                    }
                } else {
                    sink.writeRaw(#"["S""#)
                }
                sink.writeRaw(UInt8(ascii: ","))
                sink.writeInt(write)
                sink.writeRaw(UInt8(ascii: "]"))
                continue
            }
            switch changes[index] {
            case .property(let object, let type, let property, let newValue?):
                entry("p", object, type, property)
                value(newValue)
            case .property(let object, let type, let property, nil):
                entry("q", object, type)
                sink.writeRaw(UInt8(ascii: ","))
                sink.writeInt(graph.registry[type]?.model.stored.firstIndex { $0.name == property } ?? -1)
            case .state(let view, let variable, let newValue):
                entry("s", view, variable)
                value(newValue)
            case .viewUpdated(let view, let reasons, let body, let printed):
                entry("u", view)
                list(reasons)
                list(body)
                if let printed {
                    sink.writeRaw(UInt8(ascii: ","))
                    sink.writeString(printed)
                }
            case .viewMounted(let view, let reason, let body, let printed):
                entry("m", view, reason.rawValue)
                list(body)
                if let printed {
                    sink.writeRaw(UInt8(ascii: ","))
                    sink.writeString(printed)
                }
            case .viewUnmounted(let view, let reason): entry("x", view, reason.rawValue)
            case .objectCreated(let object, let type, let by, let reason):
                entry("c", object, type)
                owner(by)
                sink.writeRaw(UInt8(ascii: ","))
                sink.writeString(reason.rawValue)
            case .objectDestroyed(let object, let type, let by, let reason):
                entry("d", object, type)
                owner(by)
                sink.writeRaw(UInt8(ascii: ","))
                sink.writeString(reason.rawValue)
            case .diagnostic(let kind, let message, let view, let variable, let ignored, let hint):
                entry("g", kind, message, view)
                string(variable)
                value(ignored)
                sink.writeRaw(UInt8(ascii: ","))
                sink.writeString(hint)
            }
            sink.writeRaw(UInt8(ascii: "]"))
        }
        sink.writeRaw(UInt8(ascii: "]"))
    }

    /// The commit a record's history bytes describe; nil when they do not read (then the history
    /// stops short of it). `writes` gives the record's writes, which its entries of log format 3
    /// name by position: read only if one does.
    static func commit(
        version: Int, historyBytes bytes: [UInt8], writes: () -> [StoredWrite]?, _ graph: Graph
    ) -> Commit? {
        guard case .array(let entries)? = try? JSON(parsing: bytes, limits: JSONLimits(maxDepth: JSONLimits.default.maxDepth + 2))
        else { return nil }
        var changes: [Change] = []
        changes.reserveCapacity(entries.count)
        var named: [StoredWrite]?
        /// The record's value write at `position`, as (view, name, value).
        func value(at position: JSON) -> (view: String, name: String, value: JSON)? {
            if named == nil { named = writes() }
            guard let named, let index = position.intValue, named.indices.contains(index),
                case .value(let view, let name, let value) = named[index]
            else { return nil }
            return (view, name, value)
        }
        for entry in entries {
            guard let change = change(entry, graph, value(at:)) else { return nil }
            changes.append(change)
        }
        return Commit(version: Version(version), changes: changes)
    }

    private static func change(
        _ entry: JSON, _ graph: Graph, _ write: (JSON) -> (view: String, name: String, value: JSON)?
    ) -> Change? {
        guard case .array(let f) = entry, let tag = f.first?.stringValue else { return nil }
        func s(_ i: Int) -> String? { i < f.count ? f[i].stringValue : nil }
        func list(_ i: Int) -> [String]? { i < f.count ? f[i].arrayValue?.compactMap(\.stringValue) : nil }
        func owner(_ i: Int) -> String?? { i < f.count ? (f[i].isNull ? .some(nil) : f[i].stringValue.map { .some($0) }) : nil }
        switch (tag, f.count) {
        case ("P", 3):
            // An object's id is its type, `#` and a number. The write is `var.property` (or the
            // path through the objects that made it): a property's name is an identifier, so it
            // is what follows the last dot.
            guard let object = s(1), let hash = object.firstIndex(of: "#"), let (_, name, value) = write(f[2]),
                let dot = name.lastIndex(of: ".")
            else { return nil }
            return .property(
                object: object, type: String(object[..<hash]), property: String(name[name.index(after: dot)...]), value: value)
        case ("S", 2):
            guard let (view, variable, value) = write(f[1]) else { return nil }
            return .state(view: view, variable: variable, value: value)
        case ("p", 5):
            guard let object = s(1), let type = s(2), let property = s(3) else { return nil }
            return .property(object: object, type: type, property: property, value: f[4])
        case ("q", 4):
            guard let object = s(1), let type = s(2), let index = f[3].intValue, let stored = graph.registry[type]?.model.stored,
                stored.indices.contains(index)
            else { return nil }
            return .property(object: object, type: type, property: stored[index].name, value: nil)
        case ("s", 4):
            guard let view = s(1), let variable = s(2) else { return nil }
            return .state(view: view, variable: variable, value: f[3])
        case ("u", 4), ("u", 5):
            guard let view = s(1), let reasons = list(2), let body = list(3) else { return nil }
            return .viewUpdated(view: view, reasons: reasons, body: BodyLines(body), printed: s(4))
        case ("m", 4), ("m", 5):
            guard let view = s(1), let reason = s(2).flatMap(MountReason.init(rawValue:)), let body = list(3) else { return nil }
            return .viewMounted(view: view, reason: reason, body: BodyLines(body), printed: s(4))
        case ("x", 3):
            guard let view = s(1), let reason = s(2).flatMap(UnmountReason.init(rawValue:)) else { return nil }
            return .viewUnmounted(view: view, reason: reason)
        case ("c", 5):
            guard let object = s(1), let type = s(2), let owner = owner(3), let reason = s(4).flatMap(CreationReason.init(rawValue:))
            else { return nil }
            return .objectCreated(object: object, type: type, owner: owner, reason: reason)
        case ("d", 5):
            guard let object = s(1), let type = s(2), let owner = owner(3), let reason = s(4).flatMap(DestructionReason.init(rawValue:))
            else { return nil }
            return .objectDestroyed(object: object, type: type, owner: owner, reason: reason)
        case ("g", 7):
            guard let kind = s(1), let message = s(2), let view = s(3), let variable = s(4), let hint = s(6) else { return nil }
            return .diagnostic(kind: kind, message: message, view: view, variable: variable, ignored: f[5], hint: hint)
        default: return nil
        }
    }
}

extension Array {
    /// The elements in consecutive slices of at most `size`.
    fileprivate func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
