import MilieuJSON

/// `initialize` (SPEC §9.1): says hello, checks the protocol version, learns the limits.
public struct InitializeRequest: RPCMethod {
    public static let name = "initialize"

    public static let effect = MethodEffect.read
    /// Who the client is (`{name, version}`), for the daemon's log.
    public var client: JSON?
    /// The protocol version the client speaks; refused if it is not the daemon's.
    public var protocolVersion: String?

    public init(client: JSON? = nil, protocolVersion: String? = nil) {
        self.client = client
        self.protocolVersion = protocolVersion
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        client = params.optional("client")
        protocolVersion = try params.optionalString("protocolVersion")
    }

    public var params: JSONObject {
        var params = JSONObject()
        params.set("client", client)
        params.set("protocolVersion", protocolVersion.map(JSON.string))
        return params
    }

    public struct Result: WireResult, Equatable {
        public var serverName: String
        public var serverVersion: String
        public var protocolVersion: String
        public var maxLineBytes: Int
        /// New at every start of the daemon: a client can tell it restarted.
        public var instance: String
        public var version: Int
        /// What the daemon could not bring back when it started, with what it did; nil when it
        /// dropped nothing (SPEC §8.1).
        public var restore: RestoreReport?

        public init(
            serverName: String, serverVersion: String, protocolVersion: String, maxLineBytes: Int, instance: String, version: Int,
            restore: RestoreReport? = nil
        ) {
            self.serverName = serverName
            self.serverVersion = serverVersion
            self.protocolVersion = protocolVersion
            self.maxLineBytes = maxLineBytes
            self.instance = instance
            self.version = version
            self.restore = restore
        }

        public var wire: JSON {
            var object: JSONObject = [
                "server": ["name": .string(serverName), "version": .string(serverVersion)],
                "protocolVersion": .string(protocolVersion),
                "capabilities": [
                    "watch": true, "transactions": true, "lifecycle": true, "resumableWatches": true,
                    "maxLineBytes": .int(maxLineBytes),
                ],
                "instance": .string(instance), "version": .int(version),
            ]
            object.set("restore", restore?.wire)
            return .object(object)
        }

        public init?(wire: JSON) {
            guard let name = wire["server"]?["name"]?.stringValue, let serverVersion = wire["server"]?["version"]?.stringValue,
                let protocolVersion = wire["protocolVersion"]?.stringValue,
                let maxLineBytes = wire["capabilities"]?["maxLineBytes"]?.intValue, let instance = wire["instance"]?.stringValue,
                let version = wire["version"]?.intValue
            else { return nil }
            self.init(
                serverName: name, serverVersion: serverVersion, protocolVersion: protocolVersion, maxLineBytes: maxLineBytes,
                instance: instance, version: version, restore: wire["restore"].flatMap(RestoreReport.init(wire:)))
        }
    }
}

/// `watch` (SPEC §9.12): notifications for key paths, views and lifecycle events.
public struct WatchRequest: RPCMethod {
    public static let name = "watch"

    public static let effect = MethodEffect.session
    public var paths: [String]
    public var views: [String]
    public var lifecycle: Bool
    /// Every commit, with what made it (`graph/didCommit`), as `milieu monitor` shows them.
    public var commits: Bool
    /// Every view event carries its `_printChanges` line, whether or not the view's body calls
    /// `Self._printChanges()` (SPEC §10.1), as `milieu --print-changes` shows them.
    public var printChanges: Bool
    /// Replays every commit after this version first (SPEC §11.4).
    public var sinceVersion: Int?

    public init(
        paths: [String] = [], views: [String] = [], lifecycle: Bool = false, commits: Bool = false, printChanges: Bool = false,
        sinceVersion: Int? = nil
    ) {
        self.paths = paths
        self.views = views
        self.lifecycle = lifecycle
        self.commits = commits
        self.printChanges = printChanges
        self.sinceVersion = sinceVersion
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        paths = try params.optionalStrings("paths") ?? []
        views = try params.optionalStrings("views") ?? []
        lifecycle = try params.optionalBool("lifecycle") ?? false
        commits = try params.optionalBool("commits") ?? false
        printChanges = try params.optionalBool("printChanges") ?? false
        sinceVersion = try params.optionalInt("sinceVersion")
    }

    public var params: JSONObject {
        var params = JSONObject()
        if !paths.isEmpty { params["paths"] = .array(paths.map(JSON.string)) }
        if !views.isEmpty { params["views"] = .array(views.map(JSON.string)) }
        if lifecycle { params["lifecycle"] = true }
        if commits { params["commits"] = true }
        if printChanges { params["printChanges"] = true }
        params.set("sinceVersion", sinceVersion.map(JSON.int))
        return params
    }

    public struct Result: WireResult, Equatable {
        /// The watch's id on this connection, carried by its notifications.
        public var watch: Int
        public var version: Int
        /// The view targets no view is mounted at now, canonical: the watch covers them once one is.
        public var notMounted: [String]

        public init(watch: Int, version: Int, notMounted: [String] = []) {
            self.watch = watch
            self.version = version
            self.notMounted = notMounted
        }

        public var wire: JSON {
            var object: JSONObject = ["watch": .int(watch), "version": .int(version)]
            if !notMounted.isEmpty { object["notMounted"] = .array(notMounted.map(JSON.string)) }
            return .object(object)
        }

        public init?(wire: JSON) {
            guard let watch = wire["watch"]?.intValue, let version = wire["version"]?.intValue else { return nil }
            self.init(watch: watch, version: version, notMounted: strings(wire["notMounted"]) ?? [])
        }
    }
}

/// `unwatch` (SPEC §9.13): ends a watch of this connection.
public struct UnwatchRequest: RPCMethod {
    public typealias Result = EmptyResult
    public static let name = "unwatch"

    public static let effect = MethodEffect.session
    public var watch: Int

    public init(watch: Int) { self.watch = watch }
    public init(params: inout ParamsReader) throws(RPCError) { watch = try params.int("watch") }
    public var params: JSONObject { ["watch": .int(watch)] }
}

/// `shutdown` (SPEC §9.14): the daemon answers, writes what it holds, and exits.
public struct ShutdownRequest: RPCMethod {
    public typealias Result = EmptyResult
    public static let name = "shutdown"

    public static let effect = MethodEffect.session
    public init() {}
    public init(params: inout ParamsReader) throws(RPCError) {}
    public var params: JSONObject { [:] }
}

/// `rpc.discover` (SPEC §9.15): the OpenRPC document describing every method.
public struct DiscoverRequest: RPCMethod {
    public typealias Result = JSON
    public static let name = "rpc.discover"

    public static let effect = MethodEffect.read
    public init() {}
    public init(params: inout ParamsReader) throws(RPCError) {}
    public var params: JSONObject { [:] }
}
