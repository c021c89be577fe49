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

    @Test func loadingAFileRegistersItsTypesInThePlaceOfThoseOfTheSameName() throws {
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
        // The scene's Cart is the one it declares, not the built-in of that name (issue #30, item 2).
        #expect(run.stdout.contains("registered types: Wishlist, Cart"))
        #expect(!run.stdout.contains("already registered"))
        #expect(run.stdout.contains("mounted /App/Wishes"))
        #expect(run.stdout.contains("a wish list"))
        #expect(run.stdout.hasSuffix("[\n  \"a kite\"\n]\n"))
    }

    /// Issue #30, item 2: `load --replace`, `unload` + `load` and `reset --yes` + `load` of an
    /// edited scene printed `already registered: MyLoginVM` and kept the old type, so the new
    /// property was missing. Each now puts the edited type in place; while a view of another
    /// scene holds an object of it, the reload is refused, naming the holder and the difference.
    @Test func anEditedSceneLoadedAgainReplacesItsTypes() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/login.json"
        func write(_ properties: JSON) throws {
            let scene: JSON = [
                "types": [["name": "MyLoginVM", "style": "observableObject", "properties": properties]],
                "views": [["parent": "/App", "name": "Login", "stateObjects": ["vm": ["type": "MyLoginVM"]], "body": ["{vm.email}"]]],
            ]
            try scene.jsonText.write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write(["email": ["type": "string", "default": ""]])
        #expect(try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)"]).status == 0)
        var attempts = 0
        for reload in [["load --replace \(file)"], ["unload \(file)", "load \(file)"], ["reset --yes", "load \(file)"]] {
            attempts += 1
            try write(["email": ["type": "string", "default": ""], "attempts": ["type": "int", "default": .int(attempts)]])
            let run = try MilieuRun.run(
                ["--socket", daemon.socketPath] + reload.flatMap { ["-c", $0] } + ["-c", "get /App/Login.vm.attempts"])
            #expect(run.status == 0, "\(reload): \(run.stderr)")
            #expect(run.outputLines.last == "\(attempts)", "\(reload): \(run.stdout)")
            #expect(run.stdout.contains("registered types: MyLoginVM"), "\(reload)")
        }
        // Held elsewhere: refused, with the holder and how the declaration differs; nothing changes.
        let holder: JSON = ["parent": "/App", "name": "Other", "stateObjects": ["vm": ["type": "MyLoginVM"]], "retain": true]
        #expect(try MilieuRun.run(["--socket", daemon.socketPath, "-c", "mount \(holder.jsonText)"]).status == 0)
        try write(["email": ["type": "string", "default": ""]])
        let refused = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load --replace \(file)"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("type MyLoginVM cannot be replaced while objects of it are alive"), "\(refused.stderr)")
        #expect(refused.stderr.contains("/App/Other.vm"), "\(refused.stderr)")
        #expect(refused.stderr.contains("- properties.attempts"), "\(refused.stderr)")
    }

    /// Issue #30, item 3: one scene reader for `load` and `milieud --scene`. `load` took a
    /// typo'd member that milieud refuses, ignored `app`, and placed JSON errors by byte offset.
    @Test func loadReadsAScenesMembersAsTheDaemonDoes() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let scenes = [
            ("typo", #"{"view": [{"parent": "/App", "name": "X"}]}"#, #"unknown member "view"; expected one of app, description"#),
            (
                "app", #"{"app": {"state": {"n": 1}}, "views": []}"#,
                "declares app, what /App owns and provides, which a daemon reads as it starts"
            ),
            ("broken", "{\"types\": [],\n  \"views\": [\n    {\"parent\": \"/App\" \"name\": \"X\"}\n  ]\n}\n", "at line 3, column 23"),
        ]
        for (name, text, message) in scenes {
            let file = "\(daemon.directory)/\(name).json"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)"])
            #expect(run.status == 1, "\(name)")
            #expect(run.stderr.contains(message), "\(name): \(run.stderr)")
        }
        let tree = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "tree --depth 1"])
        #expect(!tree.stdout.contains("── X"), "nothing of a refused scene is mounted")
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

/// Swift source at the prompt: `load FILE.swift` translates and mounts it, `--replace` reloads an
/// edited file with its new types, and `unload` takes it away.
@Suite(.serialized)
struct SwiftSourceSceneTests {
    static let counter = """
        import SwiftUI

        final class Tally: ObservableObject {
            @Published var total = 0
            func add() { total += 1 }
        }

        struct CounterView: View {
            @StateObject private var tally = Tally()
            var body: some View {
                Text("\\(tally.total)")
                Button("+") { tally.add() }
            }
        }

        #Preview { CounterView() }
        """

    @Test func loadingASwiftFileMountsItsPreviewAndReloadingReplacesItsTypes() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/Counter.swift"
        try Self.counter.write(toFile: file, atomically: true, encoding: .utf8)
        let first = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load \(file)", "-c", "tap /App/CounterView +",
            "-c", "get /App/CounterView.tally.total",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("loaded \(file): mounted /App/CounterView"))
        #expect(first.stdout.hasSuffix("\n1\n"))

        let edited = Self.counter.replacingOccurrences(
            of: "@Published var total = 0", with: "@Published var total = 0\n    @Published var taps = 0"
        )
        .replacingOccurrences(of: "total += 1", with: "total += 2; taps += 1")
        try edited.write(toFile: file, atomically: true, encoding: .utf8)
        let plain = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)"])
        #expect(plain.status == 1, "the old scene is still mounted: \(plain.stdout)")
        let reloaded = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load --replace \(file)", "-c", "tap /App/CounterView +",
            "-c", "get /App/CounterView.tally.total", "-c", "get /App/CounterView.tally.taps",
        ])
        #expect(reloaded.status == 0, "\(reloaded.stderr)")
        #expect(reloaded.stdout.contains("unloaded \(file)"))
        #expect(reloaded.stdout.hasSuffix("\n2\n1\n"), "the edited type replaced the old one: \(reloaded.stdout)")

        let gone = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "unload \(file)"])
        #expect(gone.status == 0 && gone.stdout.contains("unmounted /App/CounterView"), "\(gone.stdout)\(gone.stderr)")
    }

    static let printing = """
        import SwiftUI

        final class Tally: ObservableObject {
            @Published var total = 0
            func add() { total += 1 }
        }

        struct CounterView: View {
            @StateObject private var tally = Tally()
            @State private var note = ""
            var body: some View {
                let _ = Self._printChanges()
                Text("\\(tally.total)")
                Button("+") { tally.add() }
                TextField("Note", text: $note)
                Label(note: note)
            }
        }

        struct Label: View {
            let note: String
            var body: some View { Text(note) }
        }

        #Preview { CounterView() }
        """

    /// `Self._printChanges()` in the source prints its line as it happens, as Xcode's console
    /// would; `--print-changes` prints every view's. The source's `Label` is its own view, not
    /// SwiftUI's.
    @Test func aViewCallingPrintChangesPrintsItsLinesAsTheyHappen() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/Printing.swift"
        try Self.printing.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load \(file)", "-c", "tap /App/CounterView +",
            "-c", "input /App/CounterView Note hi",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let printed = run.stdout.split(separator: "\n").filter { $0.hasPrefix("CounterView:") || $0.hasPrefix("Label:") }
        #expect(
            printed == [
                "CounterView: @self, @identity, _tally, _note changed.", "CounterView: _tally changed.", "CounterView: _note changed.",
            ], "\(run.stdout)")

        let every = try MilieuRun.run([
            "--socket", daemon.socketPath, "--print-changes", "-c", "load --replace \(file)", "-c", "input /App/CounterView Note ho",
        ])
        #expect(every.status == 0, "\(every.stderr)")
        let all = every.stdout.split(separator: "\n").filter { $0.hasPrefix("CounterView:") || $0.hasPrefix("Label:") }
        #expect(
            all == [
                "CounterView: @self, @identity, _tally, _note changed.", "Label: @self changed.",
                "CounterView: _note changed.", "Label: @self changed.",
            ], "\(every.stdout)")
    }

    /// Xcode prints as bodies run: the parent whose body mounts a child prints before the child,
    /// although the daemon sends the child's mount before the parent's update (#28 item 9).
    @Test func printChangesLinesComeInTheOrderTheBodiesRan() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/Screen.swift"
        try """
        import SwiftUI
        struct Screen: View {
            @State private var on = false
            var body: some View {
                let _ = Self._printChanges()
                Toggle("On", isOn: $on)
                if on { Counter() }
            }
        }
        struct Counter: View {
            @State private var n = 0
            var body: some View {
                let _ = Self._printChanges()
                Text("\\(n)")
            }
        }
        #Preview { Screen() }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)", "-c", "input /App/Screen On true"])
        #expect(run.status == 0, "\(run.stderr)")
        let printed = run.stdout.split(separator: "\n").filter { $0.hasPrefix("Screen:") || $0.hasPrefix("Counter:") }
        #expect(
            printed == ["Screen: @self, @identity, _on changed.", "Screen: _on changed.", "Counter: @self, @identity, _n changed."],
            "\(run.stdout)")
    }

    @Test func aSwiftFileWithAnErrorLoadsNothingAndSaysWhereAsTheCompilerWould() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/Broken.swift"
        try "struct A: View {\n    var body: some View {\n        Text(\"x\"\n    }\n}\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(file):3:17: error: expected ')' to end function call"), "\(run.stderr)")
        #expect(try MilieuClient(socketPath: daemon.socketPath).tree(timeout: 5).children?.isEmpty == true)
    }

    @Test func aSwiftViewNeedingAnObjectNobodyProvidesFailsAsSwiftUITraps() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/Cart.swift"
        try """
        final class Cart: ObservableObject { @Published var items: [String] = [] }
        struct CartView: View {
            @EnvironmentObject var cart: Cart
            var body: some View { Text("\\(cart.items.count)") }
        }
        #Preview { CartView() }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load \(file)"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("No ObservableObject of type Cart found."), "\(run.stderr)")
        #expect(try MilieuClient(socketPath: daemon.socketPath).tree(timeout: 5).children?.isEmpty == true)
    }
}
