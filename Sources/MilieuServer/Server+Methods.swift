import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuStore
import MilieuTransport

extension Server {
    /// The one dispatch switch: every method of the protocol.
    func perform(_ call: MethodCall, session: ClientSession) throws(RPCError) -> Reply {
            switch call {
            case .initialize(_, let requested):
                if let requested, requested != ProtocolInfo.version {
                    throw RPCError.invalidParams(field: "/protocolVersion", "this daemon speaks protocol \(ProtocolInfo.version), not \(requested)")
                }
                return Reply(result: [
                    "server": ["name": .string(ProtocolInfo.serverName), "version": .string(ProtocolInfo.serverVersion)],
                    "protocolVersion": .string(ProtocolInfo.version),
                    "capabilities": [
                        "watch": true, "transactions": true, "lifecycle": true, "resumableWatches": true,
                        "maxLineBytes": .int(configuration.maxLineBytes),
                    ],
                    "instance": .string(instance), "version": .int(graph.version),
                ])
            case .schemaTypes:
                return Reply(result: ["types": graph.typeDescriptions()])
            case .schemaRegister(let types, let keys):
                let (names, newKeys, commit) = try engine { () throws(EngineError) in
                    try graph.register(declarations: types, environmentKeys: keys)
                }
                for (name, declaration) in zip(names, types) { store?.stageType(name: name, declaration: declaration) }
                for key in newKeys {
                    store?.stageType(
                        name: Persistence.environmentKeyEntry + "." + key,
                        declaration: [Persistence.environmentKeyEntry: .string(key), "declaration": keys[key] ?? .null])
                }
                if !names.isEmpty { log.info("registered types \(names.joined(separator: ", "))") }
                if !newKeys.isEmpty { log.info("declared environment keys \(newKeys.joined(separator: ", "))") }
                return Reply(
                    result: [
                        "types": .array(names.map(JSON.string)), "environmentKeys": .array(newKeys.map(JSON.string)),
                        "version": .int(commit.version),
                    ], commit: commit)
            case .get(let path):
                return Reply(result: try engine { () throws(EngineError) in try graph.get(path) })
            case .tree(let path):
                return Reply(result: ["root": try engine { () throws(EngineError) in try graph.tree(path) }, "version": .int(graph.version)])
            case .set, .call, .mount, .unmount, .provide:
                let operation = try operation(call, session: session)
                // A single operation's error names no op index: that is for graph/transaction.
                let (results, commit) = try engine { () throws(EngineError) in
                    do throws(EngineError) {
                        return try graph.apply([operation])
                    } catch {
                        var single = error
                        single.operationIndex = nil
                        throw single
                    }
                }
                return Reply(result: results[0], commit: commit)
            case .transaction(let calls):
                guard calls.count <= configuration.maxTransactionOps else {
                    throw RPCError.limitExceeded("transactionOps", max: configuration.maxTransactionOps)
                }
                var operations: [Operation] = []
                for call in calls { operations.append(try operation(call, session: session)) }
                let (results, commit) = try engine { () throws(EngineError) in try graph.apply(operations) }
                return Reply(result: ["results": .array(results), "version": .int(commit.version)], commit: commit)
            case .watch(let paths, let views, let lifecycle, let sinceVersion):
                return try watch(paths: paths, views: views, lifecycle: lifecycle, sinceVersion: sinceVersion, session: session)
            case .unwatch(let id):
                let key = WatchKey(connection: session.id, watch: id)
                guard watches.contains(key) else { throw RPCError.invalidParams(field: "/watch", "no watch \(id) on this connection") }
                watches.remove(key)
                return Reply(result: [:])
            case .shutdown:
                log.info("shutdown requested by connection \(session.id)")
                stopping = true
                loop.schedule(after: 0) { [unowned self] in requestShutdown() }
                return Reply(result: [:])
            case .discover:
                return Reply(result: try OpenRPCDocument.load())
            }
    }

    /// Runs an engine call, its error turned into the wire's.
    private func engine<T>(_ body: () throws(EngineError) -> T) throws(RPCError) -> T {
        do { return try body() } catch { throw RPCError(error) }
    }

    private func operation(_ call: MethodCall, session: ClientSession) throws(RPCError) -> Operation {
        switch call {
        case .set(let path, let value, let ifVersion): return .set(path: path, value: value, ifVersion: ifVersion)
        case .call(let path, let arguments): return .call(path: path, arguments: arguments)
        case .mount(let declaration): return .mount(declaration: declaration, owner: session.id)
        case .unmount(let path): return .unmount(path: path)
        case .provide(let path, let objects, let observables, let environment, let withdraw):
            return .provide(
                path: path, environmentObjects: objects, observables: observables, environment: environment, withdraw: withdraw)
        default: throw RPCError.invalidParams(field: "/method", "not allowed in a transaction")
        }
    }

    private func watch(paths: [String], views: [String], lifecycle: Bool, sinceVersion: Int?, session: ClientSession)
        throws(RPCError) -> Reply
    {
        guard !paths.isEmpty || !views.isEmpty || lifecycle else {
            throw RPCError.invalidParams(field: "", "watch needs paths, views or lifecycle: true")
        }
        guard watches.count(connection: session.id) < configuration.maxWatchesPerConnection else {
            throw RPCError.limitExceeded("watches", max: configuration.maxWatchesPerConnection)
        }
        guard paths.count + views.count <= configuration.maxTargetsPerWatch else {
            throw RPCError.limitExceeded("watchTargets", max: configuration.maxTargetsPerWatch)
        }
        var targets: [(target: WatchTarget, spelled: String)] = []
        for (index, path) in paths.enumerated() {
            guard let target = try engine({ () throws(EngineError) in try graph.watchTarget(path) }) else {
                throw RPCError.invalidParams(field: "/paths/\(index)", "\(path) is inside a value; watch the property or object that holds it")
            }
            targets.append((target, path))
        }
        for view in views {
            guard case .view(let canonical)? = try engine({ () throws(EngineError) in try graph.watchTarget(view) }) else {
                throw RPCError.invalidParams(field: "/views", "\(view) is not a view path")
            }
            targets.append((.view(canonical), canonical))
        }
        var replay: [Commit] = []
        if let sinceVersion {
            guard sinceVersion <= graph.version else {
                throw RPCError.invalidParams(field: "/sinceVersion", "version \(sinceVersion) has not happened yet (now \(graph.version))")
            }
            guard let missed = history.commits(after: sinceVersion, current: graph.version) else {
                throw RPCError.compacted(oldest: history.oldest ?? graph.version, requested: sinceVersion)
            }
            replay = missed
        }
        let key = WatchKey(connection: session.id, watch: session.nextWatchID)
        session.nextWatchID += 1
        watches.add(key, targets: targets, lifecycle: lifecycle)
        var followUps = JSONWriter()
        for commit in replay {
            if let lines = watches.notifications(for: commit, only: key)[session.id] { followUps.writeRaw(lines.bytes) }
        }
        return Reply(result: ["watch": .int(key.watch), "version": .int(graph.version)], followUps: followUps)
    }
}
