import MilieuClient
import MilieuJSON
import MilieuProtocol

/// What one command produced, in the two forms milieu prints: text for people, and JSON
/// for `--json`.
enum Outcome {
    case success(text: String, result: JSON)
    case failure(text: String, error: JSON)
    case quit
}

/// Runs the commands a person types against the daemon, the same way in the interactive
/// REPL and in scripts.
final class Shell {
    let link: Link
    /// Styles for standard output and for standard error, which may differ.
    let style: Style
    let errorStyle: Style
    /// Whether milieu leaves once its commands have run (-c, or a pipe): a view mounted without
    /// `retain` then goes at once, and the mount says so.
    let oneShot: Bool
    /// `--raw`: a value that is a string is printed as its text.
    let raw: Bool
    /// The terminal's width in columns, for `help` to wrap at; nil (no wrapping) off a terminal.
    var terminalWidth: () -> Int? = { nil }
    /// A command waiting for the user's yes (`reset` at the prompt): the next line answers it.
    private var awaitingYes: Command?

    /// Whether the next line answers a question (`reset? [y/N]`) rather than being a command.
    var awaitsAnswer: Bool { awaitingYes != nil }

    init(link: Link, style: Style, errorStyle: Style, oneShot: Bool = false, raw: Bool = false) {
        self.link = link
        self.style = style
        self.errorStyle = errorStyle
        self.oneShot = oneShot
        self.raw = raw
    }

    /// Parses and runs one line; nil for a blank line or a comment.
    func run(_ line: String) -> Outcome? {
        do {
            if let waiting = awaitingYes {
                awaitingYes = nil
                let answer = line.filter { !$0.isWhitespace }.lowercased()
                guard answer == "y" || answer == "yes" else { return .success(text: "nothing was reset", result: .null) }
                return try execute(waiting)
            }
            guard let command = try Command.parse(line) else { return nil }
            return try execute(command)
        } catch {
            let renderer = ErrorRenderer(style: errorStyle)
            return .failure(text: renderer.text(error), error: renderer.json(error))
        }
    }

    private func execute(_ command: Command) throws -> Outcome {
        let results = ResultRenderer(style: style)
        switch command {
        case .get(let path):
            let value = try link.request(GraphGetRequest(path: path))
            if raw, case .string(let text) = value { return .success(text: text, result: value) }
            return .success(text: results.value(value), result: value)
        case .set(let path, let value):
            let result = try link.request(GraphSetRequest(path: path, value: value))
            return .success(text: results.version(result), result: result.wire)
        case .call(let path, let arguments):
            let result = try link.request(GraphCallRequest(path: path, arguments: arguments))
            return .success(text: results.call(result), result: result.wire)
        case .mount(let declaration):
            let result = try link.request(ViewMountRequest(declaration: declaration))
            let vanishes = oneShot && declaration["retain"] != true
            return .success(text: results.mount(result, vanishesOnExit: vanishes), result: result.wire)
        case .unmount(let path):
            let result = try link.request(ViewUnmountRequest(path: path))
            return .success(text: results.version(result), result: result.wire)
        case .provide(let path, var changes):
            changes["path"] = .string(path)
            let result = try link.request(try Methods.decode(ViewProvideRequest.self, params: changes))
            return .success(text: results.version(result), result: result.wire)
        case .controls(let path):
            let result = try link.request(ViewControlsRequest(path: path))
            return .success(text: results.controls(result), result: result.wire)
        case .tap(let path, let label):
            let result = try link.request(ViewTapRequest(path: path, label: label))
            return .success(text: results.version(result), result: result.wire)
        case .input(let path, let label, let value):
            let result = try link.request(ViewInputRequest(path: path, label: label, value: value))
            return .success(text: results.version(result), result: result.wire)
        case .tree(let path, let depth, let picture):
            let root = try link.tree(path: path, depth: depth)
            guard let picture else { return .success(text: TreeRenderer(style: style).render(root), result: ["root": root.wire]) }
            let source = Graphviz.tree(root)
            return .success(text: try picture.output(source), result: ["dot": .string(source)])
        case .explain(let version, let picture):
            let explained = try link.request(GraphExplainRequest(version: version))
            guard let picture else { return .success(text: ExplainRenderer(style: style).render(explained), result: explained.wire) }
            let source = Graphviz.explanation(explained)
            return .success(text: try picture.output(source), result: ["dot": .string(source)])
        case .why(let path, let version):
            return try why(path, at: version)
        case .dependencies(let path):
            let result = try link.request(ViewDependenciesRequest(path: path))
            return .success(text: SeeWhyRenderer(style: style).dependencies(result), result: result.wire)
        case .readers(let path):
            let result = try link.request(GraphReadersRequest(path: path))
            return .success(text: SeeWhyRenderer(style: style).readers(result, of: path), result: result.wire)
        case .environment(let path, let picture):
            let result = try link.request(ViewEnvironmentRequest(path: path))
            guard let picture else { return .success(text: SeeWhyRenderer(style: style).environment(result), result: result.wire) }
            let source = Graphviz.environment(result)
            return .success(text: try picture.output(source), result: ["dot": .string(source)])
        case .watch(let targets, let lifecycle, let commits):
            guard !targets.isEmpty || lifecycle || commits else {
                let records = link.watches.records
                return .success(text: results.watchList(records), result: .array(records.map(describe)))
            }
            let record = try link.watch(targets: targets, lifecycle: lifecycle, commits: commits)
            let note = oneShot ? style.yellow("  (ends when milieu exits; milieu watch \(record.targetsText) streams until Ctrl-C)") : ""
            return .success(text: results.watch(record, note: note), result: describe(record))
        case .unwatch(let numbers):
            return try unwatch(numbers)
        case .types(let name):
            return try types(name, results: results)
        case .reset(let confirmed):
            let asks = !confirmed && !oneShot
            let result = try link.request(GraphResetRequest(dryRun: asks))
            let renderer = ResetRenderer(style: style)
            guard asks else { return .success(text: renderer.done(result), result: result.wire) }
            guard !renderer.isNothing(result) else { return .success(text: renderer.done(result), result: result.wire) }
            awaitingYes = .reset(confirmed: true)
            return .success(text: renderer.question(result), result: result.wire)
        case .info:
            let result = try link.request(DaemonInfoRequest())
            return .success(text: DaemonRenderer(style: style).info(result), result: result.wire)
        case .clients:
            let result = try link.request(DaemonClientsRequest())
            return .success(text: DaemonRenderer(style: style).clients(result.clients), result: result.wire)
        case .load(let sources, let replace):
            guard !sources.isEmpty else {
                let names = SceneLibrary.embedded.map { JSON.string($0.name) }
                return .success(text: SceneLibrary.listing(style: style), result: .array(names))
            }
            let loader = SceneLoader(link: link, style: style)
            let scene = try SceneLibrary.scene(sources)
            let unloaded = replace ? try loader.unload(scene).text + "\n" : ""
            // Opened first, so that the mount's own lines show too.
            if scene.printsChanges || link.printsEveryChange { try link.showPrintChanges(of: scene.roots) }
            let loaded = try loader.load(scene)
            return .success(text: unloaded + loaded.text, result: loaded.result)
        case .unload(let sources):
            let unloaded = try SceneLoader(link: link, style: style).unload(try SceneLibrary.scene(sources))
            return .success(text: unloaded.text, result: unloaded.result)
        case .raw(let line):
            return try raw(line, results: results)
        case .help(let name):
            let width = terminalWidth()
            guard let name else {
                let overview = CommandCatalog.overview(style: style)
                let text = width.map { TextWrap.wrap(overview, width: $0) } ?? overview
                return .success(text: text, result: .string(text))
            }
            guard let text = CommandCatalog.help(for: name, style: style, width: width) else {
                throw CommandError(message: "no command \(name)\(CommandCatalog.didYouMean(name)); help lists them", usage: nil)
            }
            return .success(text: text, result: .string(text))
        case .quit:
            return .quit
        }
    }

    /// How far back `why` looks for a view's latest re-render when no version is given.
    static let whyLookBack = 200

    /// Why `path` re-rendered at `version`, or at its latest re-render among the last `whyLookBack` versions.
    private func why(_ path: String, at version: Int?) throws -> Outcome {
        let renderer = ExplainRenderer(style: style)
        let current = try link.request(ViewTreeRequest(path: path, depth: 0)).version
        let versions = version.map { [$0] } ?? Array(stride(from: current, to: max(0, current - Self.whyLookBack), by: -1))
        for candidate in versions {
            let explained: GraphExplainRequest.Result
            do {
                explained = try link.request(GraphExplainRequest(version: candidate))
            } catch let error as RPCError where error.kind == ErrorKind.compacted.rawValue {
                break
            }
            if let text = renderer.why(path, in: explained) { return .success(text: text, result: explained.wire) }
        }
        if let version {
            // Not re-rendered at that version: why not, from the commit and the view's own records.
            let explained = try link.request(GraphExplainRequest(version: version))
            let view = try link.request(GraphGetRequest(path: path))
            let reads = try link.request(ViewDependenciesRequest(path: path))
            return .success(text: renderer.whyNot(path, in: explained, view: view, reads: reads), result: explained.wire)
        }
        throw CommandError(
            message: "\(path) did not re-render in the versions the history holds (back to v\(versions.last ?? current)); "
                + "why \(path) VERSION says why not at one",
            usage: nil)
    }

    private func unwatch(_ numbers: [Int]) throws -> Outcome {
        var records: [WatchRecord] = []
        for number in numbers {
            guard let record = link.watches.record(number: number) else {
                throw CommandError(message: "no watch w\(number); watch lists them", usage: "unwatch [<n>...]")
            }
            records.append(record)
        }
        if numbers.isEmpty { records = link.watches.records }
        for record in records { try link.unwatch(record) }
        let names = records.map { "w\($0.number)" }
        let text = names.isEmpty ? "no watches" : "stopped " + names.joined(separator: ", ")
        return .success(text: text, result: .array(records.map { .int($0.number) }))
    }

    private func types(_ name: String?, results: ResultRenderer) throws -> Outcome {
        let answer = try link.request(SchemaTypesRequest())
        let types = answer.types
        guard let name else {
            return .success(
                text: results.typeList(types, environmentKeys: answer.environmentKeys), result: .array(types.map(\.wire)))
        }
        guard let type = types.first(where: { $0.name == name }) else {
            throw CommandError(message: "no type \(name); types lists them", usage: "types [<name>]")
        }
        return .success(text: results.type(type), result: type.wire)
    }

    /// A raw JSON-RPC line: the response as it came, failing if it holds an error.
    private func raw(_ line: String, results: ResultRenderer) throws -> Outcome {
        guard let response = try link.exchange(rawLine: line) else {
            return .success(text: style.dim("sent (a notification gets no response)"), result: .null)
        }
        let failed = (response.arrayValue ?? [response]).contains { $0["error"] != nil }
        let text = response.prettyText
        return failed ? .failure(text: errorStyle.red(text), error: response) : .success(text: text, result: response)
    }

    private func describe(_ record: WatchRecord) -> JSON {
        [
            "number": .int(record.number), "paths": .array(record.paths.map(JSON.string)),
            "views": .array(record.views.map(JSON.string)), "lifecycle": .bool(record.lifecycle),
            "commits": .bool(record.commits), "notMounted": .array(record.notMounted.map(JSON.string)),
            "lastShown": .int(record.lastShown),
        ]
    }
}
