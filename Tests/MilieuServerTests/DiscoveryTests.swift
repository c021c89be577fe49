import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// `rpc.discover` serves protocol/openrpc.json as it is in the repository.
@Suite struct DiscoveryTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func rpcDiscoverServesTheOpenRPCDocumentOfTheRepository() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let served = try daemon.connect().call("rpc.discover")
        let file = try JSON(parsing: [UInt8](Data(contentsOf: Self.repository.appendingPathComponent("protocol/openrpc.json"))))
        #expect(served == file, "the build embeds protocol/openrpc.json (Plugins/EmbedText)")
        let methods = served["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(Set(methods).isSuperset(of: ["initialize", "graph/get", "graph/set", "view/mount", "watch", "shutdown"]))
    }
}
