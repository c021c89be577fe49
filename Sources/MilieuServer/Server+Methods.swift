import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuStore
import MilieuTransport

/// A method the server handles: every type of `Methods.all` conforms (a test checks it).
protocol ServerMethod: RPCMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply
}

/// A method that is one engine operation (`EngineOperation`), alone or as an op of `graph/transaction`.
protocol ServerOperation: EngineOperation, ServerMethod {}

/// Decodes a request's params into its method's type and runs it.
typealias MethodHandler = @Sendable (JSONObject, Server, ClientSession) throws(RPCError) -> Reply

extension Server {
    /// Each method's handler by name, made once. Decoding into `any RPCMethod` and casting that to
    /// `any ServerMethod` cost a dynamic cast and two boxed existentials per request: about 2.2k
    /// instructions, a twelfth of a whole `graph/set` (callgrind).
    static let handlers: [String: MethodHandler] = {
        var handlers: [String: MethodHandler] = [:]
        for method in Methods.all {
            if let method = method as? any ServerMethod.Type { handlers[method.name] = handler(method) }
        }
        return handlers
    }()

    private static func handler<M: ServerMethod>(_: M.Type) -> MethodHandler {
        { params, server, session throws(RPCError) in try Methods.decode(M.self, params: params).perform(in: server, session: session) }
    }

    /// Decodes a request and runs it.
    func perform(_ request: Request, session: ClientSession) throws(RPCError) -> Reply {
        guard let handler = Self.handlers[request.method] else { throw .methodNotFound(request.method, known: Self.handlers.keys) }
        // JSON-RPC 2.0's own examples call an unknown method with positional params: Method not found first.
        if let error = request.paramsError { throw error }
        // The cheap test first: the method is looked up only while the disk is full.
        if let backlog = fullDiskBacklog, Self.stateChangingMethods.contains(request.method) { throw diskFullRefusal(backlog) }
        return try handler(request.params, self, session)
    }

    /// Runs a `graph/set` read on the hot path (`HotRequest`), as `perform` runs the general one.
    /// (A hot `graph/get` changes nothing, and is performed as it is.)
    func perform(_ set: GraphSetRequest, session: ClientSession) throws(RPCError) -> Reply {
        if let backlog = fullDiskBacklog { throw diskFullRefusal(backlog) }
        return try set.perform(in: self, session: session)
    }

    /// The bytes of changes waiting for a full disk, once they have passed their bound: a request
    /// that would change state is then refused before it is applied; reads and watches go on.
    private var fullDiskBacklog: Int? {
        guard let store, store.backlogBytes > configuration.maxBacklogBytes else { return nil }
        return store.backlogBytes
    }

    private func diskFullRefusal(_ backlog: Int) -> RPCError {
        RPCError.limitExceeded(
            "diskBacklog", max: configuration.maxBacklogBytes,
            message: "the disk is full: \(backlog) bytes of changes already wait to be written, so no more "
                + "changes are taken until it has room again; reads and watches go on")
    }

    /// The methods that may change the graph (`MethodEffect.changesState`): what a full disk's
    /// backlog refuses once it is at its bound.
    static let stateChangingMethods: Set<String> = Set(Methods.all.filter { $0.effect.changesState }.map { $0.name })

    /// Runs an engine call, its error turned into the wire's.
    func engine<T>(_ body: () throws(EngineError) -> T) throws(RPCError) -> T {
        do { return try body() } catch { throw RPCError(error) }
    }

    /// An operation's result as its method answers it.
    func result(of outcome: Outcome, version: Int) -> JSON {
        switch outcome {
        case .done: VersionResult(version: version).wire
        case .called(let value): GraphCallRequest.Result(result: value, version: version).wire
        case .mounted(let view):
            ViewMountRequest.Result(
                path: view.path, body: view.body, objects: JSONObject(view.objects.map { ($0.variable, .string($0.object)) }),
                version: version
            ).wire
        }
    }
}

extension ServerOperation {
    /// One operation as its own transaction; its error names no op index (that is for graph/transaction).
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let operation = operation(owner: ConnectionID(session.id))
        let (outcome, commit) = try server.engine { () throws(EngineError) in try server.graph.apply(operation) }
        if case .done = outcome { return Reply(version: commit.version.rawValue, commit: commit) }
        return Reply(result: server.result(of: outcome, version: commit.version.rawValue), commit: commit)
    }
}

extension InitializeRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        if let protocolVersion, protocolVersion != ProtocolInfo.version {
            throw RPCError.invalidParams(
                field: "/protocolVersion", "this daemon speaks protocol \(ProtocolInfo.version), not \(protocolVersion)")
        }
        // A later initialize without a name (to learn the version, say) keeps the one given.
        if let name = client?["name"]?.stringValue { session.clientName = name }
        let result = Result(
            serverName: ProtocolInfo.serverName, serverVersion: ProtocolInfo.serverVersion, protocolVersion: ProtocolInfo.version,
            maxLineBytes: server.configuration.maxLineBytes, instance: server.instance, version: server.graph.version.rawValue,
            restore: server.restore.flatMap { $0.droppedCount > 0 ? $0 : nil })
        return Reply(result: result.wire)
    }
}

extension SchemaTypesRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        Reply(result: Result(types: server.graph.typeDescriptions(), environmentKeys: server.graph.environmentKeyDescriptions()).wire)
    }
}

extension SchemaRegisterRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let (names, newKeys, commit) = try server.engine { () throws(EngineError) in
            try server.graph.register(declarations: types, environmentKeys: environmentKeys, replace: replace)
        }
        for (name, declaration) in zip(names, types) {
            server.store?.stageType(name: name, declaration: Graph.withoutSecureDefaults(declaration))
        }
        for key in newKeys {
            server.store?.stageType(
                name: Persistence.environmentKeyEntry + "." + key,
                declaration: [Persistence.environmentKeyEntry: .string(key), "declaration": environmentKeys[key] ?? .null])
        }
        if !names.isEmpty { server.log.info("registered types \(names.joined(separator: ", "))") }
        if !newKeys.isEmpty { server.log.info("declared environment keys \(newKeys.joined(separator: ", "))") }
        return Reply(result: Result(types: names, environmentKeys: newKeys, version: commit.version.rawValue).wire, commit: commit)
    }
}

extension GraphGetRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        Reply(result: try server.engine { () throws(EngineError) in try server.graph.get(path) }.wire)
    }
}

extension GraphSetRequest: ServerOperation {}

extension GraphCallRequest: ServerOperation {}

extension ViewMountRequest: ServerOperation {}

extension ViewUnmountRequest: ServerOperation {}

extension ViewProvideRequest: ServerOperation {}

extension GraphTransactionRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        guard operations.count <= server.configuration.maxTransactionOps else {
            throw RPCError.limitExceeded("transactionOps", max: server.configuration.maxTransactionOps)
        }
        var engineOperations: [Operation] = []
        for op in operations {
            guard let op = op as? any ServerOperation else { throw RPCError.internalError("\(type(of: op).name) has no handler") }
            engineOperations.append(op.operation(owner: ConnectionID(session.id)))
        }
        let (outcomes, commit) = try server.engine { () throws(EngineError) in try server.graph.apply(engineOperations) }
        let results = outcomes.map { server.result(of: $0, version: commit.version.rawValue) }
        return Reply(result: Result(results: results, version: commit.version.rawValue).wire, commit: commit)
    }
}

extension GraphResetRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let plan = try server.engine { () throws(EngineError) in try server.graph.resetPlan() }
        var commit: Commit?
        if !dryRun && !plan.isEmpty {
            commit = try server.engine { () throws(EngineError) in try server.graph.apply(plan.operations).commit }
            server.log.info(
                "graph reset by connection \(session.id): \(plan.unmounted.count) views unmounted, \(plan.written.count) values written back"
            )
        }
        let result = Result(
            version: commit?.version.rawValue ?? server.graph.version.rawValue, unmounted: plan.unmounted, remounted: plan.remounted,
            provided: plan.provided, written: plan.written)
        return Reply(result: result.wire, commit: commit)
    }
}

extension ViewTreeRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let version = server.graph.version.rawValue
        guard isPaged else {
            let root = try server.engine { () throws(EngineError) in try server.graph.tree(path, depth: depth) }
            return Reply(result: Result.tree(root: root, version: version).wire)
        }
        let page = try server.engine { () throws(EngineError) in
            try server.graph.treePage(path, depth: depth, limit: limit ?? Self.defaultLimit, cursor: cursor)
        }
        return Reply(result: Result.page(page, version: version).wire)
    }
}

extension ViewDependenciesRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let (canonical, dependencies) = try server.engine { () throws(EngineError) in try server.graph.dependencies(of: path) }
        return Reply(result: Result(path: canonical, dependencies: dependencies, version: server.graph.version.rawValue).wire)
    }
}

extension GraphReadersRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let readers = try server.engine { () throws(EngineError) in try server.graph.readers(of: path) }
        return Reply(result: Result(readers: readers, version: server.graph.version.rawValue).wire)
    }
}

extension ViewEnvironmentRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let (canonical, scope) = try server.engine { () throws(EngineError) in try server.graph.environmentScope(of: path) }
        return Reply(result: Result(path: canonical, scope: scope, version: server.graph.version.rawValue).wire)
    }
}

extension ViewControlsRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let (canonical, controls) = try server.engine { () throws(EngineError) in try server.graph.controls(of: path) }
        let described = controls.map { control in
            ControlDescription(
                kind: control.kind, label: control.label, disabled: control.disabled, value: control.value.flatMap { $0 },
                redacted: control.value.map { $0 == nil } ?? false, options: control.options, range: control.range)
        }
        return Reply(result: Result(path: canonical, controls: described, version: server.graph.version.rawValue).wire)
    }
}

extension ViewTapRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let (_, commit) = try server.engine { () throws(EngineError) in try server.graph.apply(.tap(view: path, label: label)) }
        return Reply(version: commit.version.rawValue, commit: commit)
    }
}

extension ViewInputRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let (_, commit) = try server.engine { () throws(EngineError) in
            try server.graph.apply(.input(view: path, label: label, value: value))
        }
        return Reply(version: commit.version.rawValue, commit: commit)
    }
}

extension WatchRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        try server.watch(self, session: session)
    }
}

extension UnwatchRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let key = WatchKey(connection: session.id, watch: watch)
        guard server.watches.contains(key) else { throw RPCError.invalidParams(field: "/watch", "no watch \(watch) on this connection") }
        server.watches.remove(key)
        return Reply(result: EmptyResult().wire)
    }
}

extension ShutdownRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        server.log.info("shutdown requested by connection \(session.id)")
        server.stopping = true
        server.loop.schedule(after: 0) { [unowned server] in server.requestShutdown() }
        return Reply(result: EmptyResult().wire)
    }
}

extension DiscoverRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        Reply(result: try OpenRPCDocument.load())
    }
}

extension Server {
    func watch(_ request: WatchRequest, session: ClientSession) throws(RPCError) -> Reply {
        guard !request.paths.isEmpty || !request.views.isEmpty || request.lifecycle || request.commits else {
            throw RPCError.invalidParams(field: "", "watch needs paths, views, lifecycle: true or commits: true")
        }
        guard watches.count(connection: session.id) < configuration.maxWatchesPerConnection else {
            throw RPCError.limitExceeded("watches", max: configuration.maxWatchesPerConnection)
        }
        guard request.paths.count + request.views.count <= configuration.maxTargetsPerWatch else {
            throw RPCError.limitExceeded("watchTargets", max: configuration.maxTargetsPerWatch)
        }
        var targets: [(target: WatchTarget, spelled: String)] = []
        for (index, path) in request.paths.enumerated() {
            guard let target = try engine({ () throws(EngineError) in try graph.watchTarget(path) }) else {
                throw RPCError.invalidParams(
                    field: "/paths/\(index)", "\(path) is inside a value; watch the property or object that holds it")
            }
            targets.append((target, path))
        }
        var notMounted: [String] = []
        for (index, view) in request.views.enumerated() {
            guard let (canonical, isMounted) = try engine({ () throws(EngineError) in try graph.viewWatchTarget(view) }) else {
                throw RPCError.invalidParams(field: "/views/\(index)", "\(view) is not a view path under /App")
            }
            targets.append((.view(canonical), canonical))
            if !isMounted { notMounted.append(canonical) }
        }
        let held = watches.targetBytes(connection: session.id)
        guard held + WatchRegistry.bytes(of: targets) <= configuration.maxWatchTargetBytes else {
            throw RPCError.limitExceeded("watchTargetBytes", max: configuration.maxWatchTargetBytes)
        }
        var replay: [(commit: Commit, cause: StoredCause?)] = []
        if let requested = request.sinceVersion {
            let sinceVersion = Version(requested)
            guard sinceVersion <= graph.version else {
                throw RPCError.invalidParams(field: "/sinceVersion", "version \(sinceVersion) has not happened yet (now \(graph.version))")
            }
            // This turn's commits go into the history only as the turn ends: the history holds
            // what came before the first of them. A commit at a version it holds already (a closed
            // connection's, which unmounted nothing) is no later one.
            let waiting = turn.unpublished(after: max(sinceVersion, history.newest ?? sinceVersion))
            let published = waiting.first.map { Version($0.commit.version.rawValue - 1) } ?? graph.version
            guard let missed = history.entries(after: sinceVersion, current: published) else {
                throw RPCError.compacted(oldest: (history.oldest ?? graph.version).rawValue, requested: requested)
            }
            replay = missed + waiting
        }
        let key = WatchKey(connection: session.id, watch: session.nextWatchID)
        session.nextWatchID += 1
        watches.add(key, targets: targets, lifecycle: request.lifecycle, commits: request.commits, printChanges: request.printChanges)
        // Its response's version holds the commits this turn made so far: they are published
        // after it is made, and it is not to be told of them (SPEC §11.3), but in its replay.
        if turn.hasCommits { watches.holdBack(key, through: graph.version.rawValue) }
        var followUps: [UInt8] = []
        for (commit, cause) in replay {
            let fanOut = watches.notifications(for: commit, cause: cause?.cause, only: key, printLines: printLines(of: commit))
            followUps += fanOut.bytes(for: session.id)
        }
        let result = WatchRequest.Result(watch: key.watch, version: graph.version.rawValue, notMounted: notMounted)
        return Reply(result: result.wire, followUps: followUps)
    }
}
