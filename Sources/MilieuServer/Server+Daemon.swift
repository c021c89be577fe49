import Glibc
import MilieuEngine
import MilieuProtocol
import MilieuStore
import MilieuTransport

extension DaemonInfoRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        let sessions = server.sessions.values
        let result = Result(
            serverName: ProtocolInfo.serverName, serverVersion: ProtocolInfo.serverVersion, protocolVersion: ProtocolInfo.version,
            instance: server.instance, pid: Int(getpid()), uptimeSeconds: wholeSeconds(since: server.startedAt),
            socket: server.socketPath, dataDirectory: server.store == nil ? nil : server.configuration.dataDirectory,
            durability: server.store == nil ? "ephemeral" : server.configuration.fsync.rawValue,
            version: server.graph.version.rawValue, oldestVersion: (server.history.oldest ?? server.graph.version).rawValue,
            connections: sessions.count, watches: server.watches.count, views: server.graph.viewCount,
            objects: server.graph.objectCount, residentBytes: residentBytes() ?? 0,
            bufferedOutputBytes: sessions.reduce(0) { $0 + $1.connection.pendingOutputBytes },
            bufferedInputBytes: server.bufferedInput.total, restore: server.restore)
        return Reply(result: result.wire)
    }
}

extension DaemonClientsRequest: ServerMethod {
    func perform(in server: Server, session caller: ClientSession) throws(RPCError) -> Reply {
        let clients = server.sessions.values.sorted { $0.id < $1.id }.map { session in
            DaemonClient(
                connection: session.id, pid: Int(session.connection.peer.pid), uid: Int(session.connection.peer.uid),
                name: session.clientName, isCaller: session === caller, connectedSeconds: wholeSeconds(since: session.connectedAt),
                watches: server.watches.count(connection: session.id),
                views: server.graph.closingViewCount(ConnectionID(session.id)),
                bufferedOutputBytes: session.connection.pendingOutputBytes)
        }
        return Reply(result: Result(clients: clients).wire)
    }
}

private func wholeSeconds(since start: ContinuousClock.Instant) -> Int {
    Int((ContinuousClock.now - start).components.seconds)
}

/// The process's resident set in bytes, from `/proc/self/statm` (its second field, in pages);
/// nil where there is no such file.
private func residentBytes() -> Int? {
    let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 128)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
    guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
    return pages * sysconf(Int32(_SC_PAGESIZE))
}
