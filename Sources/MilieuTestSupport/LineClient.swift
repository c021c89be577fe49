import Foundation
import MilieuJSON
import MilieuTransport

/// A plain blocking client for tests: sends lines, reads lines with a timeout, and keeps
/// notifications that arrive while it waits for a response, for `nextNotification`.
public final class LineClient {
    public let fd: Int32
    private let reader: BlockingLineReader
    private var nextID = 1
    /// Notifications read while waiting for responses, oldest first.
    public private(set) var notifications: [JSON] = []
    /// Every byte received, for tests that search all traffic (for secrets).
    public private(set) var received: [UInt8] = []

    public init(path: String) throws {
        fd = try UnixSocket.connect(path: path)
        reader = BlockingLineReader(fd: fd)
    }

    deinit { close(fd) }

    public func sendLine(_ text: String) throws { try UnixSocket.writeAll(fd, Array((text + "\n").utf8)) }

    public func sendRaw(_ bytes: [UInt8]) throws { try UnixSocket.writeAll(fd, bytes) }

    /// The next line as JSON; nil when the daemon closed the connection.
    public func readMessage(timeout: Double = 5) throws -> JSON? {
        guard let line = try reader.readLine(timeout: timeout) else { return nil }
        received += line + [10]
        return try JSON(parsing: line)
    }

    /// Sends a request and returns its whole response (`result` or `error`), keeping any
    /// notifications that come first.
    public func request(_ method: String, _ params: JSON = [:], timeout: Double = 5) throws -> JSON {
        let id = nextID
        nextID += 1
        let message: JSON = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
        try sendLine(message.jsonText)
        while true {
            guard let reply = try readMessage(timeout: timeout) else { throw TestFailure("connection closed awaiting \(method)") }
            if reply["id"] == .int(id) { return reply }
            if reply["method"] != nil { notifications.append(reply) } else { throw TestFailure("unexpected \(reply.jsonText)") }
        }
    }

    /// The `result` of a request that must succeed.
    public func call(_ method: String, _ params: JSON = [:]) throws -> JSON {
        let reply = try request(method, params)
        guard let result = reply["result"] else { throw TestFailure("\(method) failed: \(reply.jsonText)") }
        return result
    }

    /// The `error` of a request that must fail.
    public func failure(_ method: String, _ params: JSON = [:]) throws -> JSON {
        let reply = try request(method, params)
        guard let error = reply["error"] else { throw TestFailure("\(method) did not fail: \(reply.jsonText)") }
        return error
    }

    /// The next notification, from those already read or from the socket.
    public func nextNotification(timeout: Double = 5) throws -> JSON {
        if !notifications.isEmpty { return notifications.removeFirst() }
        guard let message = try readMessage(timeout: timeout) else { throw TestFailure("connection closed awaiting a notification") }
        guard message["method"] != nil else { throw TestFailure("expected a notification, got \(message.jsonText)") }
        return message
    }

    /// True if nothing arrives within `timeout` seconds.
    public func isQuiet(for timeout: Double) throws -> Bool {
        guard notifications.isEmpty else { return false }
        do {
            if let message = try readMessage(timeout: timeout) { notifications.append(message) }
            return false
        } catch let error as TransportError where error.code == .timedOut {
            return true
        }
    }
}
