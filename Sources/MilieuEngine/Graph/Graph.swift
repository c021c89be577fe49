import MilieuJSON
import MilieuProtocol

/// One mutation of a transaction (`graph/transaction` ops, or one request's own).
public enum Operation: Sendable {
    case set(path: String, value: JSON, ifVersion: Version?)
    case call(path: String, arguments: [JSON])
    /// Mounts the view declared in JSON; `owner` is the connection whose close unmounts it.
    case mount(declaration: JSON, owner: ConnectionID?)
    case unmount(path: String)
    case provide(path: String, environmentObjects: [String], observables: [String], environment: JSONObject, withdraw: [String])
    /// Presses the button (or navigation link) labelled `label` in the view at `view` (SPEC §6.5).
    case tap(view: String, label: String)
    /// Writes `value` through the binding of the field, toggle, stepper or picker labelled `label`.
    case input(view: String, label: String, value: JSON)
}

/// What an operation produced, once its transaction has committed.
public enum Outcome: Sendable {
    /// A write, an unmount or a change of what a view provides: nothing but the commit's version.
    case done
    /// An action's return value (`null` for none).
    case called(JSON)
    case mounted(MountedView)
}

/// A view as its mount left it: where it is, its first body, and the objects its variables got.
public struct MountedView: Sendable {
    public let path: String
    public let body: [String]
    /// Each object-holding variable and the object it holds, in declaration order.
    public let objects: [(variable: String, object: String)]
}

/// What an operation produced while its transaction runs: a mounted view is read only once
/// invalidation has settled.
enum PendingOutcome {
    case done
    case called(JSON)
    case mounted(ViewNode)
}

/// The object graph and the view tree: Milieu's engine.
///
/// Everything happens in transactions (`apply`): all of a transaction's operations
/// take effect, then invalidation runs (rules 9–12), then it commits under one new
/// version with a log of what changed — or, if anything fails, nothing changes.
/// The engine does no I/O and is confined to the thread that uses it.
///
/// Every mutation of its state is meant to be a leaf operation on a value (a dictionary insert,
/// an append, a counter) that never calls back into the graph, so that two accesses cannot
/// overlap: debug builds, which the tests run, check it at run time; release builds compile the
/// engine with `-enforce-exclusivity=unchecked` (Package.swift), as the check of every access
/// cost about a tenth of a mount.
public final class Graph {
    public private(set) var registry: TypeRegistry
    /// The environment keys views can read and provide, with their defaults (rule 21).
    public private(set) var environmentKeys = EnvironmentKeys()
    /// The global version: the number of the last transaction that changed something.
    public internal(set) var version = Version(0)

    var objects = BySerial<ObjectRecord>()
    var objectsByName: [String: ObjectRecord] = [:]
    /// The object `durableRecord(named:)` found last. Strong: a weak reference gives its object a
    /// side table, and every retain and release of it then takes the slow path.
    var lastDurableRecord: ObjectRecord?
    /// For each object whose changes another forwards (a `forwards` property holds it), those others.
    var forwarders: [ObjectSerial: [ObjectSerial]] = [:]
    var views = ViewsByPath()
    var viewsBySerial = BySerial<ViewNode>()
    /// Reverse dependency index: who to re-evaluate when something changes (rule 10).
    var dependents: [Dependency: Dependents] = [:]
    /// The parts of each place's value that views read through bindings into it (`$user.name`:
    /// `["name"]` of `user`), each listed once while `dependents` has readers of it: what a
    /// change of the place compares (`invalidateProjections`).
    var projections: [Location: [[String]]] = [:]
    private(set) var root: ViewNode!
    private var nextSerial = 0
    /// The first serial given in the transaction in progress: serials only grow, so a view whose
    /// serial is at least this was born in it (`isBornInThisTransaction`), which no view stores.
    private var firstSerialOfTransaction = 1
    private var objectCounter = 0
    let clock: @Sendable () -> String
    let templates = TemplateCache()
    /// The last declaration mounted, shared with the next one of the same shape.
    let declarations = DeclarationCache()
    /// Records what the evaluation in progress reads.
    let recorder = ReadRecorder()
    /// Parsed key paths by text: clients write the same few paths over and over.
    var keyPaths: [String: KeyPath] = [:]
    /// The key path parsed last, with its text: a client writing one path over and over (a field
    /// being typed into) finds it by comparing the text, which the server reads as the same
    /// string (`RecentPaths`), without hashing it (about 500 instructions with the look-up).
    var lastKeyPath: (text: String, keyPath: KeyPath)?
    /// The last set operation's target found through a view's variable, with the path that named
    /// it (`writeTarget(named:)`).
    var lastWriteTarget: RememberedTarget?
    public let limits: GraphLimits
    /// What the graph started from: `graph/reset` goes back to it.
    let scene: Scene
    /// The evaluation steps the transaction in progress may still spend (`GraphLimits.maxRequestSteps`).
    let budget: EvaluationBudget
    /// The views each connection's close unmounts with their subtrees (rule 15): those it mounted
    /// without `retain` under a view it does not own. Kept as views are linked and unlinked, so
    /// that a close costs what that connection mounted, not what the tree holds.
    var closeRoots: [ConnectionID: Set<ViewSerial>] = [:]
    /// The views still to unmount for connections whose close is spread over several calls of
    /// `connectionClosed`, the next one last.
    private var closing: [ConnectionID: [ViewSerial]] = [:]
    /// Views `connectionClosed` has looked at: what the tests hold a close's cost to.
    private(set) var viewsVisitedClosing = 0

    // The transaction in progress.
    var journal = Journal()
    var transaction = 0
    var pending = PendingTransaction()
    /// Storage of commits of one change that nothing holds any more (`recycle`), for the next
    /// ones: most writes are such a commit, and the history lets go of one as it takes one.
    private(set) var spareCommits: [Commit.Storage] = []
    /// Spares kept at most: the commits of a loop turn of pipelined writes, which the history
    /// lets go of after they were all made (some 150 bytes each).
    static let spareCommitLimit = 1024
    /// The objects `propagate` found written, kept between transactions for its room.
    var writtenSlots = WrittenSlots()

    /// A graph with `scene`'s types registered and its tree mounted, at version 0.
    public init(
        scene: Scene = .default, clock: @escaping @Sendable () -> String = Graph.systemClock,
        limits: GraphLimits = GraphLimits()
    ) throws(EngineError) {
        self.registry = TypeRegistry()
        self.scene = scene
        self.clock = clock
        self.limits = limits
        self.budget = EvaluationBudget(perRequest: limits.maxRequestSteps)
        // A scene's types are the scene's: one named as a built-in takes its place (no object exists yet).
        for declaration in scene.types { try registry.replace(ModelType(declaration: declaration), declaration: declaration) }
        _ = try environmentKeys.declare(scene.environmentKeys, pointer: "/environmentKeys")
        beginTransaction()
        root = try buildNode(
            scene.app, literals: scene.appLiterals, parent: nil, explicitID: nil, owner: nil,
            evaluated: try evaluate(scene.app, literals: scene.appLiterals, parent: nil, recorder: nil))
        for view in scene.views { _ = try mountOperation(view, owner: nil, fromScene: true) }
        try propagate()
        journal.discard()
        pending.reset()
        version = Version(1)
    }

    /// Numbers a new transaction; the serials it gives from here on are its views' births.
    private func beginTransaction() {
        transaction += 1
        pending.queue.transaction = transaction
        firstSerialOfTransaction = nextSerial + 1
    }

    /// Whether `node` appeared in the transaction in progress: its changes need no undo records,
    /// since taking the transaction back removes it whole (rule 14), and it is new to its parent.
    func isBornInThisTransaction(_ node: ViewNode) -> Bool { node.serial.rawValue >= firstSerialOfTransaction }

    func makeSerial<S: Serial>() -> S {
        nextSerial += 1
        return S(rawValue: nextSerial)
    }

    /// `Type#n`, with n from one counter for the whole graph, never reused.
    func makeObjectName(_ type: String) -> String {
        objectCounter += 1
        return "\(type)#\(objectCounter)"
    }

    /// Registers a model type declared in JSON (`schema/register`). Types are not part of the undo log:
    /// a type is only added when its whole declaration is valid.
    /// `pointer` places the declaration in the request, for errors (`/types/0`).
    /// With `replace`, a registered type of the same name gives way (`checkReplaceable`).
    /// The same declaration again (a scene loaded twice) is no change, with or without `replace`;
    /// without it, a different one is refused with how it differs.
    public func register(declaration: JSON, at pointer: String = "", replace: Bool = false) throws(EngineError) -> String {
        let model = try ModelType(declaration: declaration, at: pointer)
        guard let registered = registry[model.name] else {
            try registry.register(model, declaration: declaration)
            return model.name
        }
        let difference = registered.declaration.map { DeclarationDifference.describe(registered: $0, new: declaration) }
        if difference?.isEmpty == true { return model.name }
        guard replace else {
            let how = difference.map { "declared differently (\($0.joined(separator: "; ")))" } ?? "built in"
            throw .invalidDeclaration(
                field: "name", reason: "type \(model.name) is already registered, \(how); replace: true puts this one in its place")
        }
        try checkReplaceable(model.name, difference: difference)
        try registry.replace(model, declaration: declaration)
        return model.name
    }

    /// Registers several JSON-declared types and environment keys, all or none; registering takes
    /// a version (and notifies nobody: the commit has no changes). With `replace`, a type whose
    /// name is registered (built-in or declared) takes its place, unless an object of it is alive
    /// (`InUse`, naming the views that hold them): a reloaded source's types are its own.
    public func register(
        declarations: [JSON], environmentKeys keys: JSONObject = [:], replace: Bool = false
    ) throws(EngineError)
        -> (names: [String], environmentKeys: [String], commit: Commit)
    {
        let saved = (registry, environmentKeys)
        var names: [String] = []
        var declaredKeys: [String] = []
        do throws(EngineError) {
            for (index, declaration) in declarations.enumerated() {
                names.append(try register(declaration: declaration, at: "/types/\(index)", replace: replace))
            }
            declaredKeys = try declareEnvironmentKeys(keys)
        } catch {
            (registry, environmentKeys) = saved
            throw error
        }
        guard !names.isEmpty || !declaredKeys.isEmpty else { return (names, declaredKeys, Commit(version: version, changes: [])) }
        version = version.next
        return (names, declaredKeys, Commit(version: version, changes: []))
    }

    /// Refuses to replace type `name` while objects of it are alive: their views hold the old
    /// shape. The refusal says how the new declaration differs (`difference`, nil for a built-in).
    private func checkReplaceable(_ name: String, difference: [String]?) throws(EngineError) {
        var holders: [String] = []
        var views: Set<String> = []
        for record in objects.values where record.type.name == name {
            holders.append(record.ownerView.map { "\($0.path).\(record.ownerVariable ?? "")" } ?? record.name)
            views.insert(record.ownerView?.path ?? KeyPath.appPath)
        }
        guard !holders.isEmpty else { return }
        throw EngineError(
            kind: .inUse,
            message:
                "type \(name) cannot be replaced while objects of it are alive (\(holders.sorted().joined(separator: ", "))); unmount the views that hold them first"
                + (difference.map { "; the new declaration differs: \($0.joined(separator: "; "))" } ?? ""),
            data: ["provided": .string(name), "view": .string(KeyPath.appPath), "dependents": .array(views.sorted().map(JSON.string))])
    }

    /// Declares custom environment keys with their defaults (`schema/register`), all or none;
    /// returns the keys that are new. Like types, keys are not part of the undo log.
    public func declareEnvironmentKeys(_ declarations: JSONObject) throws(EngineError) -> [String] {
        try environmentKeys.declare(declarations, pointer: "/environmentKeys")
    }

    /// Registers a model type written in Swift (`ModelDeclaring`) or built in code.
    public func register(_ model: ModelType) throws(EngineError) {
        try registry.register(model)
    }

    /// Runs `operations` as one transaction: every result, or the first error and no change at all.
    ///
    /// A failing operation's error carries its index in `operationIndex`.
    public func apply(_ operations: [Operation]) throws(EngineError) -> (outcomes: [Outcome], commit: Commit) {
        var outcomes: [PendingOutcome] = []
        outcomes.reserveCapacity(operations.count)
        let commit = try transact(operations) { (operations) throws(EngineError) in
            for (index, operation) in operations.enumerated() {
                do throws(EngineError) {
                    outcomes.append(try perform(operation))
                } catch {
                    var failure = error
                    failure.operationIndex = index
                    throw failure
                }
            }
        }
        return (outcomes.map(settled), commit)
    }

    /// Runs one operation as its own transaction, as `apply(_:)` runs a list of one without the
    /// lists (a write's whole transaction is some 9k instructions, and the three arrays cost 0.4k);
    /// its error names no operation index.
    public func apply(_ operation: Operation) throws(EngineError) -> (outcome: Outcome, commit: Commit) {
        var outcome = PendingOutcome.done
        let commit = try transact(operation) { (operation) throws(EngineError) in outcome = try perform(operation) }
        return (settled(outcome), commit)
    }

    /// Runs `operations` on `input` then invalidation as one transaction: its commit, or its
    /// error with everything it did taken back. The input is handed to the operations, not
    /// captured by them: a capture copied an operation whole (some 240 instructions a write).
    private func transact<Input>(_ input: Input, _ operations: (Input) throws(EngineError) -> Void) throws(EngineError) -> Commit {
        beginTransaction()
        budget.renew()
        do throws(EngineError) {
            try operations(input)
            try propagate()
            // A getter that ran out of the request's budget read null: the request is refused whole.
            if budget.isExceeded { throw .limitExceeded(limit: "requestSteps", max: budget.perRequest) }
        } catch {
            rollBack()
            throw error
        }
        // A transaction that changed nothing leaves nothing behind, not even a version given to
        // what it touched (`objectWillChange.send` on an object nobody subscribes to).
        guard !pending.propertyChanges.isEmpty || !pending.events.isEmpty || pending.structural else {
            rollBack()
            return Commit(version: version, changes: [])
        }
        journal.discard()
        return finishCommit()
    }

    /// An operation's outcome once its transaction has committed.
    private func settled(_ outcome: PendingOutcome) -> Outcome {
        switch outcome {
        case .done: .done
        case .called(let value): .called(value)
        case .mounted(let node): .mounted(mounted(node))
        }
    }

    /// Unmounts the views `connection` mounted, except retained ones (rule 15), with their
    /// subtrees: all of them, or at most `limit` views, in one transaction. After a partial
    /// close `isClosing` is true, and the next call goes on where this one stopped, so that a
    /// large teardown can be spread over loop turns without stalling other clients.
    public func connectionClosed(_ connection: ConnectionID, upTo limit: Int = .max) -> Commit {
        if closing[connection] == nil {
            // Sorted once, at the first call: mount order, the next one last.
            closing[connection] = (closeRoots[connection] ?? []).sorted(by: >)
        }
        beginTransaction()
        self.budget.renew()
        var budget = limit
        while budget > 0, let serial = closing[connection]?.last {
            viewsVisitedClosing += 1
            guard let node = viewsBySerial[serial], node.isMounted else {
                closing[connection]?.removeLast()
                continue
            }
            budget -= teardown(node, reason: .connectionClosed, upTo: budget)
            if !node.isMounted { closing[connection]?.removeLast() }
        }
        if closing[connection]?.isEmpty == true { closing[connection] = nil }
        do {
            try propagate()
        } catch {
            // Removing views cannot fail to propagate; keep the graph consistent regardless.
            rollBack()
            return Commit(version: version, changes: [])
        }
        journal.discard()
        return finishCommit()
    }

    /// How many views `connection`'s close would unmount with their subtrees: those it mounted
    /// without `retain` under a view it does not own (`daemon/clients`).
    public func closingViewCount(_ connection: ConnectionID) -> Int { closeRoots[connection]?.count ?? 0 }

    /// Whether views of `connection` are left to unmount after a partial `connectionClosed`.
    public func isClosing(_ connection: ConnectionID) -> Bool { closing[connection] != nil }

    /// Takes back everything the failed transaction did; what the undo steps record is dropped.
    private func rollBack() {
        let steps = journal.takeUndoSteps()
        for step in steps.reversed() { undo(step) }
        restoreWrittenProperties()
        journal.discard()
        pending.reset()
    }

    /// Puts back the stored properties the transaction wrote, each to its value from before it
    /// (`TouchedPlaces`), which the journal does not keep. After the undo steps, which bring back
    /// the objects the transaction destroyed and take away those it made.
    private func restoreWrittenProperties() {
        for position in 0..<pending.touched.count {
            guard case .property(let id, let slot) = pending.touched.place(at: position).location, let record = objects[id] else {
                continue
            }
            record.values[slot] = pending.touched.original(at: position)
        }
    }

    private func finishCommit() -> Commit {
        defer { pending.reset() }
        guard !pending.propertyChanges.isEmpty || !pending.events.isEmpty || pending.structural else {
            return Commit(version: version, changes: [])
        }
        version = version.next
        let properties = pending.propertyChanges.count
        let fields = Commit.Fields(
            version: version, count: properties + pending.events.count, invalidations: namedInvalidations(),
            announced: pending.announced, replaced: pending.takeReplaced())
        // Property changes come first (SPEC §8.3), and events are most often in order already:
        // then both are moved into the commit as they are. Events out of order are copied in
        // their order, and the deferred reset destroys the ones the buffer still holds.
        let reordered = Change.isInProtocolOrder(pending.events.changes) ? nil : Change.inProtocolOrder(Array(pending.events.changes))
        return Commit(fields, reusing: fields.count == 1 ? spareCommits.popLast() : nil) { elements in
            pending.propertyChanges.move(to: elements)
            if let reordered {
                _ = UnsafeMutableBufferPointer(start: elements + properties, count: reordered.count).initialize(fromContentsOf: reordered)
            } else {
                pending.events.move(to: elements + properties)
            }
        }
    }

    /// Takes back a commit the daemon let go of (the history's oldest): if nothing else holds it
    /// and it has one change, its storage is kept for a later commit of one change, instead of
    /// being freed only for another of the same size to be allocated. A commit something still
    /// holds is left alone. What it held goes now; its fields are emptied in place (new empty
    /// ones cost more than the allocation saved), and its version stays until it is reused.
    public func recycle(_ commit: consuming Commit) {
        guard spareCommits.count < Self.spareCommitLimit, commit.storage.header.count == 1,
            isKnownUniquelyReferenced(&commit.storage)
        else { return }
        commit.storage.withUnsafeMutablePointerToElements { _ = $0.move() }
        commit.storage.header.count = 0
        commit.storage.header.replaced = ReplacedValues()
        if !commit.storage.header.invalidations.isEmpty { commit.storage.header.invalidations = [] }
        if !commit.storage.header.announced.isEmpty { commit.storage.header.announced = [] }
        spareCommits.append(commit.storage)
    }

    private func perform(_ operation: Operation) throws(EngineError) -> PendingOutcome {

        switch operation {
        case .set(let path, let value, let ifVersion):
            try setOperation(path, value, ifVersion: ifVersion)
            return .done
        case .call(let path, let arguments):
            return .called(try callOperation(path, arguments))
        case .mount(let declaration, let owner):
            return .mounted(try mountOperation(declaration, owner: owner))
        case .unmount(let path):
            try unmountOperation(path)
            return .done
        case .provide(let path, let objects, let observables, let environment, let withdraw):
            try provideOperation(path, objects: objects, observables: observables, environment: environment, withdraw: withdraw)
            return .done
        case .tap(let view, let label):
            try tapOperation(view, label: label)
            return .done
        case .input(let view, let label, let value):
            try inputOperation(view, label: label, value: value)
            return .done
        }
    }

    /// What a mount produced, read once the transaction has committed.
    private func mounted(_ node: ViewNode) -> MountedView {
        var objects: [(variable: String, object: String)] = []
        for (name, variable) in node.variables {
            if let id = variable.object, let record = self.objects[id] { objects.append((name, record.name)) }
        }
        return MountedView(path: node.path, body: Array(node.body), objects: objects)
    }
}

/// Bounds that keep one client from exhausting the daemon.
public struct GraphLimits: Sendable {
    public var maxViews: Int
    /// Levels below `/App`.
    public var maxDepth: Int
    public var maxObjects: Int
    /// Expression steps one request may spend across all of its getters and actions (SPEC §9.3.5).
    public var maxRequestSteps: Int

    public init(maxViews: Int = 1_000_000, maxDepth: Int = 64, maxObjects: Int = 1_000_000, maxRequestSteps: Int = 2_000_000) {
        self.maxViews = maxViews
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
        self.maxRequestSteps = maxRequestSteps
    }
}

extension EngineError {
    /// The index of the failing operation within its transaction.
    public var operationIndex: Int? {
        get { data["op"]?.intValue }
        set { data["op"] = newValue.map(JSON.int) }
    }
}
