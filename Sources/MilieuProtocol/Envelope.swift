import MilieuJSON

/// Writes JSON-RPC responses and notifications as single lines, straight into a byte buffer.
public enum Envelope {
    public static func result(id: RequestID, _ result: JSON, into writer: inout JSONWriter) {
        writer.withSink { sink in
            sink.writeRaw(#"{"jsonrpc":"2.0","id":"#)
            id.write(into: &sink)
            sink.writeRaw(#","result":"#)
            sink.write(result)
            sink.writeRaw(UInt8(ascii: "}"))
        }
    }

    /// A response whose result is only a version (`VersionResult`, every write's), from a template:
    /// the same bytes as `result(id:_:into:)` with `VersionResult(version:).wire`, without building
    /// and walking a result tree.
    public static func versionResult(id: RequestID, version: Int, into writer: inout JSONWriter) {
        writer.withSink { sink in
            sink.writeRaw(#"{"jsonrpc":"2.0","id":"#)
            id.write(into: &sink)
            sink.writeRaw(#","result":{"version":"#)
            sink.writeInt(version)
            sink.writeRaw("}}")
        }
    }

    public static func error(id: RequestID, _ error: RPCError, into writer: inout JSONWriter) {
        writer.withSink { sink in
            sink.writeRaw(#"{"jsonrpc":"2.0","id":"#)
            id.write(into: &sink)
            sink.writeRaw(#","error":{"code":"#)
            sink.writeInt(error.code)
            sink.writeRaw(#","message":"#)
            sink.writeString(error.message)
            sink.writeRaw(#","data":"#)
            sink.write(.object(error.data))
            sink.writeRaw("}}")
        }
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
