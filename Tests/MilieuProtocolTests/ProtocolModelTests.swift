import Foundation
import MilieuJSON
import Testing

@testable import MilieuProtocol

/// The typed protocol model against itself (what is sent is what is read back) and against the
/// documents other languages read — `openrpc.json` and the JSON Schemas — so the three can't drift.
@Suite struct ProtocolModelTests {
    /// A method's example in openrpc.json (from protocol/openrpc.overlay.json): params with every
    /// member given, and a result of its shape.
    struct Example {
        let method: any RPCMethod.Type
        let params: JSONObject
        let result: JSON
    }

    static func examples() throws -> [Example] {
        try #require(try document("openrpc.json")["methods"]?.arrayValue).map { described in
            let name = try #require(described["name"]?.stringValue)
            let method = try #require(Methods.all.first { $0.name == name }, "\(name) is not in Methods.all")
            let example = try #require(described["examples"]?.arrayValue?.first, "\(name) has no example")
            var params = JSONObject()
            for param in example["params"]?.arrayValue ?? [] {
                params[try #require(param["name"]?.stringValue)] = param["value"]
            }
            return Example(method: method, params: params, result: try #require(example["result"]?["value"]))
        }
    }

    /// A type with a stored, a computed and a constrained property, and an action.
    static let described = TypeDescription(
        name: "T", style: "observableObject", builtIn: false,
        properties: [
            PropertyDescription(
                name: "n", type: "int", computed: false, secure: false, published: true, defaultValue: 0,
                constraints: Constraints(min: 0, max: 9)),
            PropertyDescription(
                name: "pin", type: "string", computed: false, secure: true, published: false, defaultValue: nil,
                constraints: Constraints(pattern: "[0-9]{4}")),
            PropertyDescription(
                name: "twice", type: "int", computed: true, secure: false, published: nil, defaultValue: nil, constraints: Constraints()),
        ],
        actions: [
            ActionDescription(name: "add", params: ["by: int"]),
            ActionDescription(name: "setPin", params: ["pin: string"], secureParams: ["pin"]),
            ActionDescription(name: "objectWillChange.send", params: []),
        ])
    static let key = EnvironmentKeyDescription(
        name: "tone", type: "string", defaultValue: "warm", builtIn: false, constraints: Constraints(oneOf: ["warm", "cool"]))

    /// A view with one of everything a view node holds, and a child.
    static let node = ViewSnapshot(
        path: "/App", name: "App", id: nil, inputs: ["title": "t"], state: ["n": 1],
        bindings: [(name: "on", source: "/App.n", value: 1), (name: "pw", source: "login.password", value: nil)],
        objects: [(name: "vm", held: HeldObject(object: "T#4", type: "T", wrapper: "stateObject")), (name: "p", held: nil)],
        environment: ["colorScheme": "light"],
        provides: Provides(environmentObjects: ["T": "T#4"], observables: ["Login": "Login#3"], environment: ["tone": "warm"]),
        body: ["1"], retained: true, version: 3, evaluations: 2, lastEvaluated: 5,
        children: [
            ViewSnapshot(
                path: "/App/Row[2]", name: "Row", id: 2, inputs: [:], state: [:], bindings: [], objects: [], environment: [:],
                provides: Provides(environmentObjects: [:], observables: [:], environment: [:]), body: [], retained: false,
                version: 4, evaluations: 1, lastEvaluated: 4, children: [])
        ])

    /// One dependency of each kind.
    static let dependencies = [
        ViewDependency(source: .property(object: "Login#3", property: "email"), reasons: ["login.email"]),
        ViewDependency(source: .state(view: "/App/V", variable: "n"), reasons: ["_n", "_on"]),
        ViewDependency(source: .object(object: "T#4", type: "T"), reasons: ["_vm"]),
        ViewDependency(source: .environment(key: "colorScheme", provider: nil), reasons: ["env.colorScheme"]),
        ViewDependency(source: .environment(key: "tone", provider: "/App"), reasons: ["env.tone"]),
    ]

    /// An environment with an object in each slot and a provided and a default value.
    static let scope = EnvironmentScope(
        environmentObjects: [EnvironmentScope.ProvidedObject(type: "T", object: "T#4", provider: "/App/V")],
        observables: [EnvironmentScope.ProvidedObject(type: "Login", object: "Login#3", provider: "/App")],
        environment: [
            EnvironmentScope.Value(key: "colorScheme", value: "light", provider: nil),
            EnvironmentScope.Value(key: "tone", value: "warm", provider: "/App"),
        ])

    /// A page of two views: the root of the walk and a child at the depth limit.
    static let page = ViewTreePage(
        nodes: [
            ViewTreePage.Node(parent: nil, view: withoutChildren(node)),
            ViewTreePage.Node(
                parent: "/App",
                view: ViewSnapshot(
                    path: "/App/Row[2]", name: "Row", id: 2, inputs: [:], state: [:], bindings: [], objects: [], environment: [:],
                    provides: Provides(environmentObjects: [:], observables: [:], environment: [:]), body: [], retained: false,
                    version: 4, evaluations: 1, lastEvaluated: 4, children: nil, childCount: 7)),
        ],
        nextCursor: "t1.9.3")

    private static func withoutChildren(_ view: ViewSnapshot) -> ViewSnapshot {
        var alone = view
        alone.children = nil
        return alone
    }

    static let restore = RestoreReport(
        types: 1, views: 2, values: 3, dropped: [.init(kind: .view, name: "/App/Gone/V", reason: "UnknownPath: …")], droppedCount: 4)
    static let stamp = WatchStamp(watch: 1, version: 2)
    static let event = ObjectEvent(object: "T#4", type: "T", owner: "/App/V.vm", reason: "stateObject")
    /// One notification of every kind.
    static let notifications: [ServerNotification] = [
        .didChange(stamp, changes: [ValueChange(path: "login.email", value: "kim"), ValueChange(path: "login.password", value: nil)]),
        .didUpdate(stamp, path: "/App/V", reasons: ["_n", "@self"], body: ["1"]),
        .didMount(stamp, path: "/App/V", reason: "mounted", body: []),
        .didUnmount(stamp, path: "/App/V", reason: "parentUnmounted"),
        .objectDidCreate(stamp, event),
        .objectDidDestroy(stamp, ObjectEvent(object: "T#5", type: "T", owner: nil, reason: "replaced", endedTargets: ["/App/V.t"])),
        .diagnostic(
            stamp, Diagnostic(kind: "StateObjectInitIgnored", message: "m", path: "/App/V", variable: "vm", ignored: ["n": 1], hint: "h")),
        .connectionDropped(reason: "slowConsumer", message: "dropped", pendingBytes: 9),
        .didCommit(
            stamp,
            CommitSummary(
                cause: CommitCause(
                    method: "graph/set", connection: 2, pid: 7, client: "t", operations: [.init(method: "graph/set", path: "a.b")]),
                counts: CommitSummary.Counts(wire: [
                    "values": 1, "rendered": 2, "mounted": 3, "unmounted": 4, "objectsCreated": 5, "objectsDestroyed": 6, "diagnostics": 7,
                ])!)),
        .didCommit(stamp, CommitSummary(cause: nil, counts: CommitSummary.Counts())),
    ]

    private static func document(_ relative: String) throws -> JSON {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../protocol/" + relative)
        return try JSON(parsing: Array(Data(contentsOf: url)))
    }

    @Test func theRegistryHasEveryMethodOnceAndTheTransactionOnesAreTheSpecsFive() throws {
        #expect(try Self.examples().map { $0.method.name } == Methods.names)
        #expect(Set(Methods.names).count == Methods.all.count)
        #expect(Methods.transactionNames.sorted() == ["graph/call", "graph/set", "view/mount", "view/provide", "view/unmount"])
    }

    @Test func everyExampleRequestReadsBackWhatItSends() throws {
        for example in try Self.examples() {
            let name = example.method.name
            let decoded = try Methods.decode(method: name, params: example.params)
            #expect(type(of: decoded).name == name)
            #expect(decoded.params == example.params, "\(name)")
        }
    }

    @Test func everyExampleResultReadsBackWhatItSends() throws {
        for example in try Self.examples() {
            let readBack = readsBack(example.method, example.result)
            #expect(readBack, "\(example.method.name)")
        }
        #expect(readsBack(ViewTreeRequest.self, ViewTreeRequest.Result.tree(root: Self.node, version: 8).wire))
        #expect(readsBack(ViewTreeRequest.self, ViewTreeRequest.Result.page(Self.page, version: 8).wire))
        #expect(VersionResult(wire: ["nope": 1]) == nil)
        #expect(ViewMountRequest.Result(wire: ["path": "/App/V"]) == nil)
    }

    /// A restore that drops a million views holds a hundred reasons, and counts them all.
    @Test func aRestoreReportListsTheFirstHundredDropsAndCountsEvery() {
        var report = RestoreReport()
        for n in 0..<(RestoreReport.listedDrops + 5) { report.drop(.view, "/App/V\(n)", because: "gone") }
        #expect(report.droppedCount == RestoreReport.listedDrops + 5)
        #expect(report.dropped.count == RestoreReport.listedDrops && report.dropped.last?.name == "/App/V99")
    }

    @Test func snapshotsReadBackWhatTheySend() throws {
        #expect(ViewSnapshot(wire: Self.node.wire) == Self.node)
        #expect(RestoreReport(wire: Self.restore.wire) == Self.restore)
        let child = try #require(Self.node.children?.first)
        #expect(child.wire["id"] == 2)
        #expect(Self.node.wire["bindings"]?["pw"] == ["source": "login.password", "redacted": true])
        #expect(Self.node.wire["objects"]?["p"] == .null)
        let object = ObjectSnapshot(object: "Login#3", type: "Login", version: 2, owner: nil, values: ["email": ""], redacted: ["password"])
        #expect(ObjectSnapshot(wire: object.wire) == object)
        #expect(object.wire["owner"] == .null)
        #expect(ViewSnapshot(wire: ["path": "/App"]) == nil)
        #expect(TypeDescription(wire: Self.described.wire) == Self.described)
        #expect(Self.described.properties[1].wire["default"] == nil, "a secure property shows no default")
        #expect(EnvironmentKeyDescription(wire: Self.key.wire) == Self.key)
    }

    @Test func aDidChangeWrittenFromItsSharedTailIsTheSameLine() {
        let changes = [
            ValueChange(path: "login.email", value: "k\"i\nm\u{1}"), ValueChange(path: "login.password", value: nil),
            ValueChange(path: "/App/V[id: \"a/b\"].n", value: ["x": [1, 2.5, true, .null]]),
        ]
        for count in 1...changes.count {
            var generic = JSONWriter()
            ServerNotification.didChange(WatchStamp(watch: 123, version: 45), changes: Array(changes.prefix(count))).write(into: &generic)
            var shared = JSONWriter()
            let tail = ServerNotification.didChangeTail(version: 45, changes: changes.prefix(count).map(EncodedValueChange.init))
            ServerNotification.writeDidChangeHead(watch: 123, into: &shared)
            shared.writeRaw(tail)
            #expect(shared.text == generic.text)
        }
    }

    @Test func everyNotificationReadsBackWhatItSends() {
        #expect(Array(Self.notifications.map(\.method).prefix(ServerNotification.methods.count)) == ServerNotification.methods)
        for notification in Self.notifications {
            #expect(ServerNotification(method: notification.method, params: notification.params) == notification, "\(notification.method)")
        }
        #expect(ServerNotification(method: "view/didUpdate", params: ["watch": 1, "version": 2]) == nil)
        #expect(ServerNotification(method: "graph/didSomething", params: ["watch": 1, "version": 2]) == nil)
    }

    /// OpenRPC names the same methods, in the same order, with the same params; the params it
    /// marks required are the ones the Swift types refuse to go without.
    @Test func openRPCDescribesTheMethodsTheTypesDecode() throws {
        let document = try Self.document("openrpc.json")
        let methods = try #require(document["methods"]?.arrayValue)
        #expect(methods.compactMap { $0["name"]?.stringValue } == Methods.names)
        for example in try Self.examples() {
            let name = example.method.name
            guard name != ViewMountRequest.name,  // one open declaration, checked by the engine's grammar
                let described = methods.first(where: { $0["name"]?.stringValue == name })
            else { continue }
            let params = described["params"]?.arrayValue ?? []
            #expect(
                Set(params.compactMap { $0["name"]?.stringValue }) == Set(example.params.keys), "\(name): the example gives every param")
            for param in params where param["required"] == true {
                let key = try #require(param["name"]?.stringValue)
                var without = example.params
                without = JSONObject(without.filter { $0.key != key })
                #expect(throws: RPCError.self, "\(name) without \(key)") { try Methods.decode(method: name, params: without) }
            }
        }
        let notificationNames = (document["x-notifications"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(notificationNames == ServerNotification.methods)
    }

    /// Each result and notification has the members its JSON Schema allows, and every member it requires.
    @Test func theSchemasAllowWhatTheTypesWrite() throws {
        func check(_ members: JSONObject, against definition: JSON?, _ what: String) {
            guard let definition, let properties = definition["properties"]?.objectValue else {
                Issue.record("\(what): no properties in its schema")
                return
            }
            for key in members.keys where properties[key] == nil { Issue.record("\(what): the schema has no \(key)") }
            for key in strings(definition["required"]) ?? [] where members[key] == nil { Issue.record("\(what): \(key) is required") }
        }
        for example in try Self.examples() {
            let name = example.method.name
            guard case .object(let members) = example.result, name != GraphGetRequest.name, name != DiscoverRequest.name else { continue }
            let file = name.replacingOccurrences(of: "/", with: "_") + ".response.schema.json"
            check(members, against: try Self.document("schemas/" + file)["$defs"]?["result"], file)
        }
        let common = try Self.document("schemas/common.schema.json")["$defs"]
        let object = ObjectSnapshot(object: "T#4", type: "T", version: 1, owner: "/App.t", values: ["n": 1], redacted: ["pin"])
        var snapshots: [(JSON, String)] = [
            (Self.described.wire, "typeDescription"), (Self.described.properties[0].wire, "propertyDescription"),
            (Self.described.actions[0].wire, "actionDescription"), (Self.key.wire, "environmentKeyDescription"),
            (object.wire, "objectSnapshot"), (Self.node.wire, "viewNode"), (Self.node.provides.wire, "provides"),
            (Self.node.objects[0].held?.wire ?? .null, "heldObject"),
            (ViewReader(view: "/App/V", reasons: ["_n"]).wire, "viewReader"), (Self.restore.wire, "restoreReport"),
        ]
        for dependency in Self.dependencies { snapshots.append((dependency.wire, "viewDependency")) }
        for provided in Self.scope.environmentObjects + Self.scope.observables { snapshots.append((provided.wire, "providedObject")) }
        for value in Self.scope.environment { snapshots.append((value.wire, "environmentEntry")) }
        for (wire, definition) in snapshots {
            guard case .object(let members) = wire else { continue }
            check(members, against: common?[definition], definition)
        }
        for notification in Self.notifications {
            let file = notification.method.replacingOccurrences(of: "/", with: "_") + ".notification.schema.json"
            check(notification.params, against: try Self.document("schemas/" + file)["$defs"]?["params"], file)
        }
    }
}

/// Whether `wire` reads as the result of `method` and writes back the same.
private func readsBack<Method: RPCMethod>(_ method: Method.Type, _ wire: JSON) -> Bool { Method.Result(wire: wire)?.wire == wire }
