import Foundation
import MilieuJSON
import MilieuProtocol
import MilieuSwift

/// A scene to load: its name, what it declares, and for Swift source what the translation said.
struct LoadableScene {
    let name: String
    let file: SceneFile
    let diagnostics: [SourceDiagnostic]

    var roots: [String] { file.roots }

    /// Whether a view it declares, or one written in a body, calls `Self._printChanges()`.
    var printsChanges: Bool { Self.declaresPrintChanges(.array(file.views)) }

    private static func declaresPrintChanges(_ json: JSON) -> Bool {
        switch json {
        case .object(let object):
            if let printChanges = object["printChanges"], printChanges != false { return true }
            return object.contains { declaresPrintChanges($0.value) }
        case .array(let items): return items.contains(where: declaresPrintChanges)
        default: return false
        }
    }
}

/// The scenes `load` knows: S1–S7, compiled in from scenes/ at build time (Plugins/EmbedText), and
/// any scene file, read by `SceneFile` as `milieud --scene` reads it. A scene's `app` (what `/App`
/// owns and provides) is read when a daemon starts, so `load` refuses a scene that declares one.
enum SceneLibrary {
    /// The embedded scene that `name` means: its full name (`s1-login`) or its number
    /// (`s1`, `S1`).
    static func embeddedScene(named name: String) -> (name: String, text: String)? {
        let wanted = name.lowercased()
        return embedded.first { $0.name == wanted || $0.name.hasPrefix(wanted + "-") }
    }

    /// What `load` with no argument prints: each scene with the first line of its description.
    static func listing(style: Style) -> String {
        var lines = ["Scenes (load <name>, or load <path/to/scene.json>):"]
        for scene in embedded {
            let description = (try? JSON(parsing: scene.text))?["description"]?.stringValue ?? ""
            let summary = description.split(separator: "\n").first.map(String.init) ?? ""
            lines.append("  \(style.bold(scene.name))  \(summary)")
        }
        return lines.joined(separator: "\n")
    }

    /// Refuses a mix of Swift files and a scene, or more than one scene.
    static func checkSources(_ sources: [String], failure: (String) -> CommandError) throws(CommandError) {
        let swift = sources.filter(SwiftSource.isSwift)
        guard swift.isEmpty || swift.count == sources.count else {
            throw failure("load Swift files together, or one scene: not both")
        }
        guard !swift.isEmpty || sources.count <= 1 else { throw failure("load one scene at a time") }
    }

    /// What `sources` name: Swift files (translated together), an embedded scene or a scene file.
    static func scene(_ sources: [String]) throws(CommandError) -> LoadableScene {
        guard let first = sources.first else { throw CommandError(message: "name a scene or Swift files", usage: nil) }
        guard SwiftSource.isSwift(first) else { return try scene(first) }
        let files: [SourceFile]
        do {
            files = try SwiftSource.read(sources)
        } catch {
            throw CommandError(message: error.message, usage: nil)
        }
        let translation = SwiftTranslator.translate(files)
        let errors = translation.diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            throw CommandError(
                message: "\(sources.joined(separator: " ")) cannot be loaded:\n"
                    + translation.diagnostics.map(\.description).joined(separator: "\n"),
                usage: nil)
        }
        let name = sources.joined(separator: " ")
        do {
            return LoadableScene(name: name, file: try SceneFile(json: translation.scene), diagnostics: translation.diagnostics)
        } catch {
            throw CommandError(message: "the scene translated from \(name) is not valid: \(error.reason)", usage: nil)
        }
    }

    /// The scene `argument` names: an embedded one, or a file.
    static func scene(_ argument: String) throws(CommandError) -> LoadableScene {
        let name: String
        let text: [UInt8]
        if let embedded = embeddedScene(named: argument) {
            (name, text) = (embedded.name, Array(embedded.text.utf8))
        } else if let data = FileManager.default.contents(atPath: argument) {
            (name, text) = (argument, [UInt8](data))
        } else {
            let known = embedded.map(\.name).joined(separator: ", ")
            throw CommandError(
                message: "no scene \(argument): not one of \(known), and no such file", usage: "load [<scene> | <file.json>]")
        }
        let file: SceneFile
        do {
            file = try SceneFile(text: text)
        } catch {
            throw CommandError(message: "the scene \(name): \(error.reason)", usage: nil)
        }
        guard file.app == nil else {
            throw CommandError(
                message: "the scene \(name) declares app, what /App owns and provides, which a daemon reads as it starts: "
                    + "run milieud --scene \(name) for it, or drop app to load the rest here",
                usage: nil)
        }
        return LoadableScene(name: name, file: file, diagnostics: [])
    }
}

/// Loads a scene into the daemon: registers the types it declares in the place of any of the
/// same name, then mounts all its views in one transaction, retained.
struct SceneLoader {
    let link: Link
    let style: Style

    func load(_ loadable: LoadableScene) throws -> (text: String, result: JSON) {
        let (name, scene) = (loadable.name, loadable.file)
        let views = scene.views
        var lines: [String] = loadable.diagnostics.map { diagnostic in
            diagnostic.severity == .warning ? style.yellow(diagnostic.description) : style.dim(diagnostic.description)
        }

        var registered: [String] = []
        var declared: [String] = []
        if let registration = scene.registration {
            let answer = try link.request(registration)
            registered = answer.types
            declared = answer.environmentKeys
            if !registered.isEmpty { lines.append("registered types: " + registered.joined(separator: ", ")) }
            if !declared.isEmpty { lines.append("declared environment keys: " + declared.joined(separator: ", ")) }
        }

        var mounted: [JSON] = []
        var version = JSON.null
        if let mount = scene.mount {
            let result: GraphTransactionRequest.Result
            do {
                result = try link.request(mount)
            } catch let error as RPCError {
                guard let index = error.data["op"]?.intValue, views.indices.contains(index) else { throw error }
                let view = "\(views[index]["parent"]?.stringValue ?? "?")/\(views[index]["name"]?.stringValue ?? "?")"
                throw SceneMountError(error: error, scene: name, index: index, view: view)
            }
            mounted = result.results.compactMap { $0["path"] }
            version = .int(result.version)
            lines.append(
                "\(style.green("loaded")) \(style.bold(name)): mounted \(mounted.compactMap(\.stringValue).joined(separator: ", "))  \(style.dim("version \(version.jsonText)"))"
            )
        } else {
            lines.append("\(style.green("loaded")) \(style.bold(name))")
        }
        if let description = scene.description { lines.append("\n" + description) }
        let result: JSON = [
            "scene": .string(name), "registered": .array(registered.map(JSON.string)),
            "environmentKeys": .array(declared.map(JSON.string)),
            "mounted": .array(mounted), "version": version,
        ]
        return (lines.joined(separator: "\n"), result)
    }
}

extension SceneLoader {
    /// Unmounts what scene `argument` mounted: each of its views whose parent is not one of
    /// them, with its subtree; a view that is not there (never loaded, or unmounted since) is
    /// skipped.
    func unload(_ loadable: LoadableScene) throws -> (text: String, result: JSON) {
        let name = loadable.name
        var unmounted: [String] = []
        for path in loadable.roots {
            do {
                _ = try link.request(ViewUnmountRequest(path: path))
                unmounted.append(path)
            } catch let error as RPCError where error.kind == ErrorKind.unknownPath.rawValue {
                continue
            }
        }
        let text =
            unmounted.isEmpty
            ? "\(style.bold(name)): nothing of it is mounted"
            : "\(style.green("unloaded")) \(style.bold(name)): unmounted \(unmounted.joined(separator: ", "))"
        return (text, ["scene": .string(name), "unmounted": .array(unmounted.map(JSON.string))])
    }
}

/// A view of a scene that could not be mounted: the daemon's error, and which view it was.
struct SceneMountError: Error {
    let error: RPCError
    let scene: String
    /// The view's index in the scene's `views`, from 0.
    let index: Int
    /// Where it was to be mounted: parent path and name.
    let view: String
}
