import Foundation
import MilieuJSON
import MilieuProtocol
import MilieuSwift
import Testing

@testable import MilieuEngine

/// The seed articles' Swift blocks (`../shared/seeds/code`, one file each), and small edits a
/// reader would make to run a fragment (an annotation removed, a root added).
enum Seeds {
    /// Where the blocks are: the repository's `seeds/`, or `MILIEU_SEEDS`.
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["MILIEU_SEEDS"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../seeds")
    }()

    static func file(_ name: String) throws -> SourceFile {
        let url = directory.appendingPathComponent(name + ".swift")
        return SourceFile(name: name + ".swift", text: try String(contentsOf: url, encoding: .utf8))
    }

    /// `file` with `edits` applied (each a text and what it becomes), as a reader fixes a fragment.
    static func edited(_ name: String, _ edits: [(String, String)]) throws -> SourceFile {
        var text = try file(name).text
        for (old, new) in edits {
            #expect(text.contains(old), "\(name) has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return SourceFile(name: name + ".swift", text: text)
    }

    static func source(_ name: String, _ text: String) -> SourceFile { SourceFile(name: name, text: text) }
}

/// A graph that has loaded translated source: its types registered in place of any of the same
/// name, its roots mounted under `/App`, as `milieu load FILE.swift` does.
struct LoadedProgram {
    let graph: Graph
    let translation: Translation
    /// The commit that mounted the roots.
    let mount: Commit

    init(_ files: [SourceFile], sourceLocation: SourceLocation = #_sourceLocation) throws {
        translation = SwiftTranslator.translate(files)
        let errors = translation.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)", sourceLocation: sourceLocation)
        graph = try Graph(scene: .default, clock: { "2026-01-01T00:00:00.000Z" })
        let scene = translation.scene
        _ = try graph.register(declarations: scene["types"]?.arrayValue ?? [], replace: true)
        let mounts = (scene["views"]?.arrayValue ?? []).map { Operation.mount(declaration: $0, owner: nil) }
        mount = try graph.apply(mounts).commit
    }

    @discardableResult
    func tap(_ view: String, _ label: String) throws -> Commit { try graph.apply(.tap(view: view, label: label)).commit }

    @discardableResult
    func input(_ view: String, _ label: String, _ value: JSON) throws -> Commit {
        try graph.apply(.input(view: view, label: label, value: value)).commit
    }

    func get(_ path: String) throws -> JSON { try graph.get(path).wire }

    /// The error mounting `translation`'s first root fails with, as SwiftUI traps on it (its
    /// types registered first); an issue is recorded when it mounts.
    static func mountRefusal(_ translation: Translation, sourceLocation: SourceLocation = #_sourceLocation) throws -> EngineError? {
        let graph = try Graph(scene: .default)
        _ = try graph.register(declarations: translation.scene["types"]?.arrayValue ?? [], replace: true)
        let mount = Operation.mount(declaration: translation.scene["views"]?.arrayValue?.first ?? [:], owner: nil)
        return #expect(throws: EngineError.self, sourceLocation: sourceLocation) { try graph.apply(mount) }
    }
}

extension Translation {
    /// The diagnostics as the compiler prints them.
    var printed: [String] { diagnostics.map(\.description) }
}

extension Commit {
    /// Each re-evaluated view's reasons, by path.
    var updates: [String: [String]] {
        var result: [String: [String]] = [:]
        for case .viewUpdated(let view, let reasons, _, _) in changes { result[view] = reasons }
        return result
    }

    /// What `_printChanges()` printed, in order.
    var printed: [String] {
        changes.compactMap { change in
            switch change {
            case .viewUpdated(_, _, _, let line?), .viewMounted(_, _, _, let line?): line
            default: nil
            }
        }
    }

    var mounts: [String: String] {
        var result: [String: String] = [:]
        for case .viewMounted(let view, let reason, _, _) in changes { result[view] = reason.rawValue }
        return result
    }

    var unmounts: [String: String] {
        var result: [String: String] = [:]
        for case .viewUnmounted(let view, let reason) in changes { result[view] = reason.rawValue }
        return result
    }

    func body(of view: String) -> [String]? {
        for change in changes {
            switch change {
            case .viewUpdated(view, _, let body, _), .viewMounted(view, _, let body, _): return Array(body)
            default: continue
            }
        }
        return nil
    }

    var created: [(object: String, reason: String)] {
        changes.compactMap { if case .objectCreated(let o, _, _, let r) = $0 { (o, r.rawValue) } else { nil } }
    }

    var destroyed: [(object: String, reason: String)] {
        changes.compactMap { if case .objectDestroyed(let o, _, _, let r) = $0 { (o, r.rawValue) } else { nil } }
    }

    var diagnosticKinds: [String] {
        changes.compactMap { if case .diagnostic(let kind, _, _, _, _, _) = $0 { kind } else { nil } }
    }
}
