import Foundation
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

@testable import milieu

/// The scenes S1–S7 that `load` ships, and scene files.
@Suite(.serialized)
struct SceneTests {
    /// scenes/ in the package, found from this file's path.
    static let scenesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scenes")

    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: scenesDirectory.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    @Test func theEmbeddedScenesEqualTheFiles() throws {
        #expect(Self.files.count == 8, "scenes/ holds S1–S7 and the rules scene")
        #expect(SceneLibrary.embedded.map { $0.name + ".json" } == Self.files, "the build embeds scenes/*.json (Plugins/EmbedText)")
        for scene in SceneLibrary.embedded {
            let file = try String(contentsOf: Self.scenesDirectory.appendingPathComponent(scene.name + ".json"), encoding: .utf8)
            #expect(scene.text + "\n" == file, "\(scene.name) differs from its file (Plugins/EmbedText)")
        }
    }

    @Test(arguments: SceneLibrary.embedded.map(\.name))
    func everyShippedSceneLoadsAndItsViewsOutliveMilieu(name: String) throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "--json", "-c", "load \(name)"])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSON(parsing: run.stdout)["result"])
        let scene = try JSON(parsing: try #require(SceneLibrary.embeddedScene(named: name)?.text))
        let views = try #require(scene["views"]?.arrayValue)
        #expect(result["mounted"]?.arrayValue?.count == views.count)
        #expect(scene["description"]?.stringValue?.contains("Try:") == true, "the scene says what to try")

        // Retained: still there after milieu's connection closed.
        let client = try MilieuClient(socketPath: daemon.socketPath)
        for path in result["mounted"]?.arrayValue ?? [] {
            #expect(try client.request(GraphGetRequest(path: path.stringValue ?? ""), timeout: 5)["retained"] == true, "\(path.jsonText)")
        }
    }

    @Test func loadingAFileRegistersItsNewTypesAndSkipsKnownOnes() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/wishlist.json"
        let scene: JSON = [
            "description": "a wish list",
            "types": [
                ["name": "Wishlist", "style": "observable", "properties": ["wishes": ["type": "[string]", "default": ["a kite"]]]],
                ["name": "Cart", "style": "observableObject"],
            ],
            "views": [["parent": "/App", "name": "Wishes", "state": ["list": ["$new": ["type": "Wishlist"]]], "body": ["{list.wishes}"]]],
        ]
        try scene.jsonText.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)", "-c", "get /App/Wishes.list.wishes"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("registered types: Wishlist"))
        #expect(run.stdout.contains("already registered: Cart"))
        #expect(run.stdout.contains("mounted /App/Wishes"))
        #expect(run.stdout.contains("a wish list"))
        #expect(run.stdout.hasSuffix("[\n  \"a kite\"\n]\n"))
    }

    @Test func aSceneViewThatFailsNamesTheViewAndMountsNothing() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/broken.json"
        let scene: JSON = [
            "views": [
                ["parent": "/App", "name": "Shop"],
                ["parent": "/App/Shop", "name": "CheckoutView", "environmentObjects": ["cart": "Cart"]],
            ]
        ]
        try scene.jsonText.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: EnvironmentObjectMissing"))
        #expect(run.stderr.contains("while mounting /App/Shop/CheckoutView, view 1 of the scene \(file)"))
        let tree = try MilieuClient(socketPath: daemon.socketPath).tree(timeout: 5)
        #expect(tree.children?.isEmpty == true, "all or nothing")
    }

    @Test func loadWithoutASceneListsThem() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load"])
        #expect(run.status == 0)
        for name in SceneLibrary.embedded.map(\.name) { #expect(run.stdout.contains(name)) }
    }
}
