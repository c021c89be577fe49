import MilieuJSON

/// Milieu's JSON-RPC requests, encoded once before a measurement so the generator spends
/// its time on the socket, and the checks of replies during set-up.
enum MilieuWire {
    /// One request line, "\n" included.
    static func request(id: Int, method: String, params: JSON) -> [UInt8] {
        var bytes: [UInt8] = []
        JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).write(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    static func set(id: Int, path: String, value: JSON) -> [UInt8] {
        request(id: id, method: "graph/set", params: ["path": .string(path), "value": value])
    }

    static func watch(id: Int, paths: [String]) -> [UInt8] {
        request(id: id, method: "watch", params: ["paths": .array(paths.map { .string($0) })])
    }

    /// A `graph/transaction` of `view/mount` ops, one per declaration.
    static func mount(id: Int, declarations: [JSON]) -> [UInt8] {
        let ops = declarations.map { JSON.object(["method": "view/mount", "params": $0]) }
        return request(id: id, method: "graph/transaction", params: ["ops": .array(ops)])
    }

    /// The `result` of a reply line; throws with the server's words if it is an error.
    static func result(of line: [UInt8]) throws -> JSON {
        let reply = try JSON(parsing: line)
        if let result = reply["result"] { return result }
        let text = String(decoding: line.prefix(400), as: UTF8.self)
        throw BenchError.unexpectedReply("milieud answered \(text)")
    }

    /// The `version` in the result of a reply line.
    static func version(of line: [UInt8]) throws -> Int {
        guard let version = try result(of: line)["version"]?.intValue else {
            throw BenchError.unexpectedReply("no version in \(String(decoding: line.prefix(400), as: UTF8.self))")
        }
        return version
    }
}

/// Redis's protocol (RESP), encoded once before a measurement.
enum RESPWire {
    /// A command as an array of bulk strings.
    static func command(_ parts: String...) -> [UInt8] {
        var bytes = Array("*\(parts.count)\r\n".utf8)
        for part in parts {
            bytes += Array("$\(part.utf8.count)\r\n".utf8)
            bytes += Array(part.utf8)
            bytes += Array("\r\n".utf8)
        }
        return bytes
    }

    /// Throws unless `line` is the reply `expected` (e.g. "+OK", ":100").
    static func expect(_ line: [UInt8], _ expected: String, after command: String) throws {
        guard line == Array(expected.utf8) else {
            throw BenchError.unexpectedReply("redis answered \(command) with \(String(decoding: line, as: UTF8.self)), not \(expected)")
        }
    }
}

/// The values both servers are sent: the same 8 bytes on both sides, unique per client
/// and alternating, so that every write changes the value (an equal write is a no-op in
/// Milieu but not in Redis).
enum WriteValues {
    static func value(client: Int, variant: Int) -> String {
        let digits = String(client % 100_000)
        return "c" + String(repeating: "0", count: 5 - digits.count) + digits + (variant % 2 == 0 ? "-a" : "-b")
    }
}
