import MilieuJSON
import MilieuProtocol

/// The OpenRPC document (protocol/openrpc.json), served verbatim by `rpc.discover`.
/// Its text is compiled in from protocol/openrpc.json at build time (Plugins/EmbedText), so the
/// daemon reads no file for it.
enum OpenRPCDocument {
    static func load() throws(RPCError) -> JSON {
        do {
            return try JSON(parsing: text)
        } catch {
            throw .internalError("the embedded OpenRPC document is not valid JSON: \(error)")
        }
    }
}
