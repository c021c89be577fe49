import MilieuJSON

/// Writes JSON-RPC responses and notifications as single lines, straight into a byte buffer.
public enum Envelope {
    public static func result(id: RequestID, _ result: JSON, into writer: inout JSONWriter) {
        writer.writeRaw(#"{"jsonrpc":"2.0","id":"#)
        id.write(into: &writer)
        writer.writeRaw(#","result":"#)
        writer.write(result)
        writer.writeRaw(UInt8(ascii: "}"))
    }

    /// A response whose result is only a version (`VersionResult`, every write's), from a template:
    /// the same bytes as `result(id:_:into:)` with `VersionResult(version:).wire`, without building
    /// and walking a result tree.
    public static func versionResult(id: RequestID, version: Int, into writer: inout JSONWriter) {
        writer.writeRaw(#"{"jsonrpc":"2.0","id":"#)
        id.write(into: &writer)
        writer.writeRaw(#","result":{"version":"#)
        writer.writeInt(version)
        writer.writeRaw("}}")
    }

    public static func error(id: RequestID, _ error: RPCError, into writer: inout JSONWriter) {
        writer.writeRaw(#"{"jsonrpc":"2.0","id":"#)
        id.write(into: &writer)
        writer.writeRaw(#","error":{"code":"#)
        writer.writeInt(error.code)
        writer.writeRaw(#","message":"#)
        writer.writeString(error.message)
        writer.writeRaw(#","data":"#)
        writer.write(.object(error.data))
        writer.writeRaw("}}")
    }

    public static func notification(method: String, _ params: JSON, into writer: inout JSONWriter) {
        writer.writeRaw(#"{"jsonrpc":"2.0","method":"#)
        writer.writeString(method)
        writer.writeRaw(#","params":"#)
        writer.write(params)
        writer.writeRaw("}\n")
    }

    /// One line holding a single error, for replies outside any request (parse errors, refusals).
    public static func errorLine(id: RequestID, _ error: RPCError) -> [UInt8] {
        var writer = JSONWriter()
        Self.error(id: id, error, into: &writer)
        writer.writeRaw(UInt8(ascii: "\n"))
        return writer.bytes
    }
}

/// Protocol facts every side agrees on.
public enum ProtocolInfo {
    public static let version = "1"
    public static let serverName = "milieud"
    public static let serverVersion = "0.1.0"
    public static let defaultMaxLineBytes = 1 << 20
}
