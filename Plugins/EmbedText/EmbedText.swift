import Foundation
import PackagePlugin

/// Compiles text files of the repository into the targets that serve them, at build time, so that
/// no generated copy is kept in the sources: `protocol/openrpc.json` into MilieuServer
/// (`OpenRPCDocument.text`, what `rpc.discover` returns) and `scenes/*.json` into milieu
/// (`SceneLibrary.embedded`, what `load s1` reads). The files stay the one source.
@main
struct EmbedText: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let root = context.package.directoryURL
        let tool = try context.tool(named: "embed-text").url
        let output = context.pluginWorkDirectoryURL.appending(path: "Embedded.swift")
        let (declaration, inputs): (String, [URL])
        switch target.name {
        case "MilieuServer":
            (declaration, inputs) = ("OpenRPCDocument.text", [root.appending(path: "protocol/openrpc.json")])
        case "milieu":
            let scenes = root.appending(path: "scenes")
            let names = try FileManager.default.contentsOfDirectory(atPath: scenes.path()).filter { $0.hasSuffix(".json") }
            (declaration, inputs) = ("SceneLibrary.embedded", names.sorted().map { scenes.appending(path: $0) })
        default:
            throw EmbedTextError.noTextFor(target.name)
        }
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) file(s) as \(declaration)", executable: tool,
                arguments: [declaration, output.path()] + inputs.map { $0.path() }, inputFiles: inputs, outputFiles: [output])
        ]
    }
}

enum EmbedTextError: Error, CustomStringConvertible {
    case noTextFor(String)

    var description: String {
        switch self {
        case .noTextFor(let target): "EmbedText has no text to embed in target \(target)"
        }
    }
}
