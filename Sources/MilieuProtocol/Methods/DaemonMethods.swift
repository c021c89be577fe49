import MilieuJSON

/// `daemon/info` (SPEC §9.20): what the daemon is and holds — its build, how long it has run,
/// where it listens and keeps its state, and how many connections, watches, views and objects
/// it serves, with its memory.
public struct DaemonInfoRequest: RPCMethod {
    public static let name = "daemon/info"

    public static let effect = MethodEffect.read
    public init() {}
    public init(params: inout ParamsReader) throws(RPCError) {}
    public var params: JSONObject { [:] }

    public struct Result: WireResult, Equatable {
        public var serverName: String
        public var serverVersion: String
        public var protocolVersion: String
        public var instance: String
        public var pid: Int
        /// Whole seconds since the daemon started serving.
        public var uptimeSeconds: Int
        /// The socket's path; nil when the socket was inherited (systemd) and has none known.
        public var socket: String?
        /// Where the durable state lives; nil with `--ephemeral` (absent on the wire, as is a nil socket).
        public var dataDirectory: String?
        /// `always`, `everysec` or `no` (the log's fsync policy), or `ephemeral`: nothing kept.
        public var durability: String
        /// The current version, and the oldest a watch can resume after (§11.4).
        public var version: Int
        public var oldestVersion: Int
        public var connections: Int
        public var watches: Int
        public var views: Int
        public var objects: Int
        /// The daemon's resident set, and the bytes it holds for connections: unsent output and
        /// lines not yet ended.
        public var residentBytes: Int
        public var bufferedOutputBytes: Int
        public var bufferedInputBytes: Int
        /// What the restore at start brought back and dropped; nil with `--ephemeral`.
        public var restore: RestoreReport?

        public init(
            serverName: String, serverVersion: String, protocolVersion: String, instance: String, pid: Int, uptimeSeconds: Int,
            socket: String?, dataDirectory: String?, durability: String, version: Int, oldestVersion: Int, connections: Int,
            watches: Int, views: Int, objects: Int, residentBytes: Int, bufferedOutputBytes: Int, bufferedInputBytes: Int,
            restore: RestoreReport?
        ) {
            self.serverName = serverName
            self.serverVersion = serverVersion
            self.protocolVersion = protocolVersion
            self.instance = instance
            self.pid = pid
            self.uptimeSeconds = uptimeSeconds
            self.socket = socket
            self.dataDirectory = dataDirectory
            self.durability = durability
            self.version = version
            self.oldestVersion = oldestVersion
            self.connections = connections
            self.watches = watches
            self.views = views
            self.objects = objects
            self.residentBytes = residentBytes
            self.bufferedOutputBytes = bufferedOutputBytes
            self.bufferedInputBytes = bufferedInputBytes
            self.restore = restore
        }

        public var wire: JSON {
            var object: JSONObject = [
                "server": ["name": .string(serverName), "version": .string(serverVersion)],
                "protocolVersion": .string(protocolVersion), "instance": .string(instance), "pid": .int(pid),
                "uptimeSeconds": .int(uptimeSeconds),
            ]
            object.set("socket", socket.map(JSON.string))
            object.set("dataDirectory", dataDirectory.map(JSON.string))
            object["durability"] = .string(durability)
            object["version"] = .int(version)
            object["oldestVersion"] = .int(oldestVersion)
            object["connections"] = .int(connections)
            object["watches"] = .int(watches)
            object["views"] = .int(views)
            object["objects"] = .int(objects)
            object["memory"] = [
                "residentBytes": .int(residentBytes), "bufferedOutputBytes": .int(bufferedOutputBytes),
                "bufferedInputBytes": .int(bufferedInputBytes),
            ]
            object.set("restore", restore?.wire)
            return .object(object)
        }

        public init?(wire: JSON) {
            guard let serverName = wire["server"]?["name"]?.stringValue,
                let serverVersion = wire["server"]?["version"]?.stringValue,
                let protocolVersion = wire["protocolVersion"]?.stringValue, let instance = wire["instance"]?.stringValue,
                let pid = wire["pid"]?.intValue, let uptimeSeconds = wire["uptimeSeconds"]?.intValue,
                let durability = wire["durability"]?.stringValue, let version = wire["version"]?.intValue,
                let oldestVersion = wire["oldestVersion"]?.intValue, let connections = wire["connections"]?.intValue,
                let watches = wire["watches"]?.intValue, let views = wire["views"]?.intValue,
                let objects = wire["objects"]?.intValue, let memory = wire["memory"],
                let residentBytes = memory["residentBytes"]?.intValue,
                let bufferedOutputBytes = memory["bufferedOutputBytes"]?.intValue,
                let bufferedInputBytes = memory["bufferedInputBytes"]?.intValue
            else { return nil }
            self.init(
                serverName: serverName, serverVersion: serverVersion, protocolVersion: protocolVersion, instance: instance,
                pid: pid, uptimeSeconds: uptimeSeconds, socket: wire["socket"]?.stringValue,
                dataDirectory: wire["dataDirectory"]?.stringValue, durability: durability,
                version: version, oldestVersion: oldestVersion, connections: connections, watches: watches, views: views,
                objects: objects, residentBytes: residentBytes, bufferedOutputBytes: bufferedOutputBytes,
                bufferedInputBytes: bufferedInputBytes, restore: wire["restore"].flatMap(RestoreReport.init(wire:)))
        }
    }
}

/// `daemon/clients` (SPEC §9.21): every connection the daemon serves, in the order they
/// connected, with the process behind it and what it holds.
public struct DaemonClientsRequest: RPCMethod {
    public static let name = "daemon/clients"

    public static let effect = MethodEffect.read
    public init() {}
    public init(params: inout ParamsReader) throws(RPCError) {}
    public var params: JSONObject { [:] }

    public struct Result: WireResult, Equatable {
        public var clients: [DaemonClient]

        public init(clients: [DaemonClient]) { self.clients = clients }

        public var wire: JSON { ["clients": .array(clients.map(\.wire))] }

        public init?(wire: JSON) {
            guard let items = wire["clients"]?.arrayValue else { return nil }
            let clients = items.compactMap(DaemonClient.init(wire:))
            guard clients.count == items.count else { return nil }
            self.init(clients: clients)
        }
    }
}

/// One connection, as `daemon/clients` lists it.
public struct DaemonClient: Sendable, Equatable {
    /// The connection's id: the one `graph/explain` causes name.
    public var connection: Int
    /// The peer process and user, from `SO_PEERCRED` when it connected.
    public var pid: Int
    public var uid: Int
    /// The `client.name` it gave in `initialize`, if it did (absent on the wire otherwise).
    public var name: String?
    /// Whether this is the connection that asked.
    public var isCaller: Bool
    public var connectedSeconds: Int
    public var watches: Int
    /// The views it mounted that its close unmounts (each with its subtree): those without `retain`.
    public var views: Int
    /// Bytes sent to it that it has not read yet.
    public var bufferedOutputBytes: Int

    public init(
        connection: Int, pid: Int, uid: Int, name: String?, isCaller: Bool, connectedSeconds: Int, watches: Int, views: Int,
        bufferedOutputBytes: Int
    ) {
        self.connection = connection
        self.pid = pid
        self.uid = uid
        self.name = name
        self.isCaller = isCaller
        self.connectedSeconds = connectedSeconds
        self.watches = watches
        self.views = views
        self.bufferedOutputBytes = bufferedOutputBytes
    }

    public var wire: JSON {
        var object: JSONObject = ["connection": .int(connection), "pid": .int(pid), "uid": .int(uid)]
        object.set("name", name.map(JSON.string))
        object["self"] = .bool(isCaller)
        object["connectedSeconds"] = .int(connectedSeconds)
        object["watches"] = .int(watches)
        object["views"] = .int(views)
        object["bufferedOutputBytes"] = .int(bufferedOutputBytes)
        return .object(object)
    }

    public init?(wire: JSON) {
        guard let connection = wire["connection"]?.intValue, let pid = wire["pid"]?.intValue, let uid = wire["uid"]?.intValue,
            case .bool(let isCaller)? = wire["self"],
            let connectedSeconds = wire["connectedSeconds"]?.intValue, let watches = wire["watches"]?.intValue,
            let views = wire["views"]?.intValue, let bufferedOutputBytes = wire["bufferedOutputBytes"]?.intValue
        else { return nil }
        self.init(
            connection: connection, pid: pid, uid: uid, name: wire["name"]?.stringValue, isCaller: isCaller,
            connectedSeconds: connectedSeconds,
            watches: watches, views: views, bufferedOutputBytes: bufferedOutputBytes)
    }
}
