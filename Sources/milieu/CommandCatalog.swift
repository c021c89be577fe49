import MilieuProtocol

/// What an argument of a command names, so completion knows where to look.
enum ArgumentKind: Sendable {
    case keyPath, viewPath, keyOrViewPath, actionPath, typeName, scene, commandName, watchNumber, json
}

/// One command a person can type: its syntax, what it does, what its arguments are and how
/// they are read. The single source for parsing, `help`, the syntax hints and completion, so a
/// command cannot be listed and not parsed.
struct CommandSpec: Sendable {
    let name: String
    /// The arguments as shown in hints and help, e.g. `<keypath> <json>`.
    let arguments: String
    let summary: String
    /// Help text after the summary.
    let details: String
    /// Lines to type, shown under the details. They run as written, in order, in one session
    /// against a daemon that has loaded `exampleScenes` (HelpExampleTests runs every one).
    var examples: [String] = []
    /// What `load` has loaded before the examples run: every embedded scene, unless the command
    /// says otherwise.
    var exampleScenes: [String] = CommandCatalog.exampleWorld
    /// The kinds of the positional arguments, in order; the last one repeats.
    let kinds: [ArgumentKind]
    /// Reads the arguments into the command they make; what is left over is refused after it.
    let parse: @Sendable (inout CommandArguments) throws(CommandError) -> Command

    var usage: String { arguments.isEmpty ? name : "\(name) \(arguments)" }
}

/// Every command, in the order `help` lists them.
enum CommandCatalog {
    static let commands: [CommandSpec] = [
        CommandSpec(
            name: "get", arguments: "<keypath>", summary: "read a value, an object or a view",
            details: """
                A key path is relative to /App unless it starts with a view path or an object id.
                """,
            examples: ["get login.email", "get login", "get Login#3.email", "get /App/ContainerView.toggle", "get /App/ContainerView"],
            kinds: [.keyOrViewPath],
            parse: { arguments throws(CommandError) in .get(path: try arguments.word("a key path")) }),
        CommandSpec(
            name: "set", arguments: "<keypath> <json>", summary: "write a property or a @State (through a @Binding, its source)",
            details: """
                The value is JSON; a bare word (letters first, no spaces) is the string it spells.
                """,
            examples: [
                "set theme.colorScheme dark", "set /App/ContainerView.toggle true", #"set login.email "kim@example.com""#,
                "set theme.fontScale 1.5", #"set login.email "Kim Lee""#, "set /App/CounterView.state.favoritePrimes [2, 3]",
            ],
            kinds: [.keyPath, .json],
            parse: { arguments throws(CommandError) in
                let path = try arguments.word("a key path")
                return .set(path: path, value: try arguments.json("a JSON value"))
            }),
        CommandSpec(
            name: "call", arguments: "<keypath> [<json arg>...]", summary: "run an action with positional JSON arguments",
            details: "",
            examples: ["call session.start kim", "call login.login", #"call /App/CartScreen.cart.add "green apple""#],
            kinds: [.actionPath, .json],
            parse: { arguments throws(CommandError) in
                let path = try arguments.word("an action path")
                return .call(path: path, arguments: try arguments.jsonValues())
            }),
        CommandSpec(
            name: "mount", arguments: "<json declaration>", summary: "mount a view",
            details: """
                A view goes when this connection closes (quitting, or losing the daemon) unless its
                declaration says "retain": true. See protocol/SPEC.md §6 for every field.
                """,
            examples: [#"mount {"parent": "/App", "name": "Banner", "state": {"n": 1}, "body": ["n = {n}"]}"#], kinds: [.json],
            parse: { arguments throws(CommandError) in .mount(declaration: try arguments.jsonObject("a JSON view declaration")) }),
        CommandSpec(
            name: "unmount", arguments: "<path>", summary: "unmount a view and everything below it",
            details: "", examples: ["unmount /App/ContainerView"], kinds: [.viewPath],
            parse: { arguments throws(CommandError) in .unmount(path: try arguments.word("a view path")) }),
        CommandSpec(
            name: "provide", arguments: "<path> <json>", summary: "change what a view provides to its subtree",
            details: "",
            examples: [
                #"provide /App/Level1 {"environmentObjects": ["cart"]}"#, #"provide /App/Rules/Provider {"observables": ["counter"]}"#,
                #"provide /App {"environment": {"colorScheme": "dark"}}"#, #"provide /App/Level1 {"withdraw": ["Cart"]}"#,
            ],
            kinds: [.viewPath, .json],
            parse: { arguments throws(CommandError) in
                let path = try arguments.word("a view path")
                return .provide(path: path, changes: try arguments.jsonObject("a JSON object of changes"))
            }),
        CommandSpec(
            name: "tree", arguments: "[<path>] [--depth <levels>] [--dot | --svg <file> | --png <file>]",
            summary: "draw the view tree: wrappers, objects, what each view provides, bodies",
            details: """
                The tree is fetched a page at a time, so a tree of any size can be drawn; --depth
                draws that many levels below the path, and says how many children it leaves out.
                --dot prints it as Graphviz DOT; --svg and --png draw it into a file with dot
                (apt-get install graphviz): views under their parents, the objects they hold (bold
                owned, dashed observed, dotted from the environment), bindings in blue.
                """,
            examples: ["tree", "tree /App/ContainerView", "tree --depth 1", "tree --svg tree.svg"], kinds: [.viewPath],
            parse: { arguments throws(CommandError) in
                var path: String?
                var depth: Int?
                var picture: Picture?
                while let word = arguments.optionalWord() {
                    if let drawn = try arguments.picture(word) {
                        picture = drawn
                        continue
                    }
                    guard word == "--depth" else {
                        path = word
                        continue
                    }
                    guard let levels = arguments.optionalWord().flatMap({ Int($0) }), levels >= 0 else {
                        throw arguments.failure("--depth needs a number of levels, 0 or more")
                    }
                    depth = levels
                }
                return .tree(path: path, depth: depth, picture: picture)
            }),
        CommandSpec(
            name: "explain", arguments: "<version> [--dot | --svg <file> | --png <file>]",
            summary: "why a version happened: its cause, what it changed, which views re-rendered and why",
            details: """
                The cause (the request and the connection that sent it), each attribute it wrote
                with its old and new value, the views each re-rendered with their reasons, children
                re-rendered through @self under their parents, and what followed (mounts, objects
                made and destroyed). Any version the daemon's history still holds; --dot, --svg and
                --png draw it as tree does.
                """,
            examples: ["set /App/ContainerView.toggle true", "explain v11", "explain 11 --svg v11.svg"], kinds: [],
            parse: { arguments throws(CommandError) in
                var version: Int?
                var picture: Picture?
                while let word = arguments.optionalWord() {
                    if let drawn = try arguments.picture(word) {
                        picture = drawn
                    } else {
                        version = try arguments.version(word)
                    }
                }
                guard let version else { throw arguments.failure("explain needs a version, such as v12") }
                return .explain(version: version, picture: picture)
            }),
        CommandSpec(
            name: "controls", arguments: "<path>", summary: "a view's buttons, fields, toggles, steppers, pickers and links",
            details: """
                Each control the view's body shows, with its label, whether it is disabled, and what a
                bound one holds now (a secure field's value is never shown).
                """,
            examples: ["controls /App/ContainerView/LoginView1"], exampleScenes: ["seeds/000_00.swift"], kinds: [.viewPath],
            parse: { arguments throws(CommandError) in .controls(path: try arguments.word("a view path")) }),
        CommandSpec(
            name: "tap", arguments: "<path> <label>", summary: "press a button (or a navigation link) by its label",
            details: """
                The label is a bare word or a JSON string; label#2 is the second of two with one label.
                Its action is one transaction.
                """,
            examples: ["tap /App/StartView +", #"tap /App/StartView "1""#], exampleScenes: ["seeds/001_00.swift"],
            kinds: [.viewPath, .json],
            parse: { arguments throws(CommandError) in
                let path = try arguments.word("a view path")
                return .tap(path: path, label: try arguments.label())
            }),
        CommandSpec(
            name: "input", arguments: "<path> <label> <json>", summary: "type into a field, or set a toggle, stepper or picker",
            details: """
                Writes through the control's binding; the value is JSON, a bare word the string it spells.
                """,
            examples: [
                #"input /App/ContainerView/LoginView1 "이메일을 입력해 주세요..." "kim@example.com""#,
                "tap /App/ContainerView/LoginView1 로그인", #"input /App/ContainerView "토글해봅시다" true"#,
            ],
            exampleScenes: ["seeds/000_00.swift"], kinds: [.viewPath, .json, .json],
            parse: { arguments throws(CommandError) in
                let path = try arguments.word("a view path")
                let label = try arguments.label()
                return .input(path: path, label: label, value: try arguments.json("a JSON value"))
            }),
        CommandSpec(
            name: "why", arguments: "<path> [<version>]", summary: "why a view re-rendered (its chain back to the write), or why not",
            details: """
                The chain from the view back to what caused its latest re-render (or the one at the
                version given): a parent's re-render, the attribute it read, the request. A view
                that did not re-render at the version given is told why not: its parent re-rendered
                but its inputs compared equal (a @StateObject kept), or it read nothing that changed.
                """,
            examples: [
                "set /App/ContainerView.toggle true", "why /App/ContainerView/LoginView2", "why /App/ContainerView v11",
                "why /App/ContainerView/LoginView1 v11",
            ],
            kinds: [.viewPath],
            parse: { arguments throws(CommandError) in
                let path = try arguments.word("a view path")
                return .why(
                    path: path, version: try arguments.optionalWord().map { word throws(CommandError) in try arguments.version(word) })
            }),
        CommandSpec(
            name: "deps", arguments: "<path>", summary: "what a view's last evaluation read, and the reason each would give",
            details: """
                Each thing the body read — a property, a @State, a held ObservableObject, an
                environment value and who provides it — with the reasons a change to it gives,
                as a re-render reports them (_var, var.prop, env.key).
                """,
            examples: ["deps /App/ContainerView/LoginView1", "deps /App/CartScreen/CartList"], kinds: [.viewPath],
            parse: { arguments throws(CommandError) in .dependencies(path: try arguments.word("a view path")) }),
        CommandSpec(
            name: "readers", arguments: "<keypath>", summary: "which views would re-render if this changed, and why",
            details: """
                Parents first, each with its reasons: the views that read the property (or, for a
                computed one, the stored properties its getter read), and every holder of an
                ObservableObject. Through a binding, its source's readers.
                """,
            examples: ["readers login.email", "readers login.isValidEmail", "readers /App/ParentView.isOn"], kinds: [.keyPath],
            parse: { arguments throws(CommandError) in .readers(path: try arguments.word("a key path")) }),
        CommandSpec(
            name: "env", arguments: "<path> [--dot | --svg <file> | --png <file>]",
            summary: "what a view's environment holds, and which view provides each",
            details: """
                Objects from .environmentObject and .environment(object), by type, and every
                environment value: the nearest provider's, or the default. --dot, --svg and --png
                draw it as tree does: each object and value from the ancestor that provides it.
                """,
            examples: ["env /App/CartScreen/CartList", "env /App", "env /App/CartScreen --svg env.svg"], kinds: [.viewPath],
            parse: { arguments throws(CommandError) in
                var path: String?
                var picture: Picture?
                while let word = arguments.optionalWord() {
                    if let drawn = try arguments.picture(word) { picture = drawn } else { path = word }
                }
                guard let path else { throw arguments.failure("env needs a view path") }
                return .environment(path: path, picture: picture)
            }),
        CommandSpec(
            name: "watch", arguments: "[--lifecycle] [--commits] <keypath or view path>...",
            summary: "print notifications for these as they happen",
            details: """
                A key path to a value watches that value; to an object, all its properties. A view
                path watches that view and every view below it: re-renders with their reasons and
                bodies, mounts, unmounts, diagnostics and @State changes; it need not be mounted
                yet (it is shown once it is). --lifecycle adds every object creation and
                destruction; --commits every commit, with the request and the connection that made
                it. A key path resolves to its object now: when that object is destroyed (replaced,
                say), the watch says so once. With no arguments, lists the watches. From a shell,
                `milieu watch TARGET...` streams one watch's notifications until Ctrl-C, and
                `milieu monitor` every commit.
                """,
            examples: ["watch login", "watch /App/ContainerView --lifecycle", "watch theme.colorScheme /App", "watch"],
            kinds: [.keyOrViewPath],
            parse: { arguments throws(CommandError) in
                var targets: [String] = []
                var lifecycle = false
                var commits = false
                while let word = arguments.optionalWord() {
                    switch word {
                    case "--lifecycle": lifecycle = true
                    case "--commits": commits = true
                    default: targets.append(word)
                    }
                }
                return .watch(targets: targets, lifecycle: lifecycle, commits: commits)
            }),
        CommandSpec(
            name: "unwatch", arguments: "[<n>...]", summary: "stop the watches numbered n, or all of them",
            details: "", examples: ["watch login", "watch theme", "unwatch 2", "unwatch"], kinds: [.watchNumber],
            parse: { arguments throws(CommandError) in
                var numbers: [Int] = []
                while let word = arguments.optionalWord() {
                    guard let number = Int(word.hasPrefix("w") ? String(word.dropFirst()) : word), number > 0 else {
                        throw arguments.failure("\(word) is not a watch number (watch lists them)")
                    }
                    numbers.append(number)
                }
                return .unwatch(numbers: numbers)
            }),
        CommandSpec(
            name: "types", arguments: "[<name>]", summary: "list the model types, or show one",
            details: "", examples: ["types", "types Login"], kinds: [.typeName],
            parse: { arguments throws(CommandError) in .types(name: arguments.optionalWord()) }),
        CommandSpec(
            name: "info", arguments: "", summary: "which daemon this is: version, uptime, socket, state, load, memory",
            details: """
                The daemon's version and pid, how long it has run, its socket, where it keeps its
                state and how durably (or that it keeps nothing), the current version and how far
                back watches can resume, how many connections, watches, views and objects it
                serves, and its memory: resident, output its clients have not read, unfinished lines.
                """, kinds: [],
            parse: { _ throws(CommandError) in .info }),
        CommandSpec(
            name: "clients", arguments: "", summary: "who is connected: pid, uid, name, watches, views, unsent output",
            details: """
                One row per connection, in the order they connected; * marks this one. views are
                the views it mounted that go when it closes (not those mounted with "retain": true);
                unsent is output it has not read yet, which grows when a client stops reading.
                """, kinds: [],
            parse: { _ throws(CommandError) in .clients }),
        CommandSpec(
            name: "reset", arguments: "[--yes]", summary: "back to the scene's start: every mounted view goes, values as they began",
            details: """
                One transaction: every view clients mounted goes, retained ones too (scenes that
                load mounted), and the scene's views, what they provide and their values are set
                back to how the daemon started; types stay registered. At the prompt it first says
                what it would do and asks; --yes, -c and piped commands do not ask.
                """,
            examples: ["reset --yes"], kinds: [],
            parse: { arguments throws(CommandError) in
                let flag = arguments.optionalWord()
                guard flag == nil || flag == "--yes" else { throw arguments.failure("reset takes only --yes") }
                return .reset(confirmed: flag != nil)
            }),
        CommandSpec(
            name: "load", arguments: "[--replace] [<scene> | <file.json> | <file.swift>...]",
            summary: "load SwiftUI source, or a scene: register its types and mount its views",
            details: """
                SwiftUI source as an article has it: its classes become types (in the place of any of
                the same name), its #Preview (or @main App, or ContentView) is mounted under /App, and
                what Milieu cannot model is said as the compiler says it (file:line:col: warning).
                Files of one program load together; --replace unloads it first, as Xcode's preview
                reloads an edited file. The scenarios S1–S7 ship as JSON scenes, and `rules` shows the
                finer observation rules; with no argument, load lists them. A file is a scene too:
                {"description": "...", "types": [type declarations], "views": [view declarations]}.
                Views are mounted with "retain": true, so they stay after milieu quits.
                """,
            examples: [
                "load seeds/000_00.swift", "load --replace seeds/000_00.swift seeds/000_08.swift", "load s7-environment",
                "load scenes/s6-cart.json", "load s5", "load --replace s5", "load",
            ],
            exampleScenes: [], kinds: [.scene],
            parse: { arguments throws(CommandError) in
                var sources: [String] = []
                var replace = false
                while let word = arguments.optionalWord() {
                    if word == "--replace" { replace = true } else { sources.append(word) }
                }
                if replace && sources.isEmpty { throw arguments.failure("load --replace needs a scene") }
                try SceneLibrary.checkSources(sources, failure: arguments.failure)
                return .load(sources: sources, replace: replace)
            }),
        CommandSpec(
            name: "unload", arguments: "<scene> | <file.json> | <file.swift>...", summary: "unmount what a scene mounted",
            details: """
                Unmounts each view of the scene whose parent is not one of its own, with everything
                below it; its types stay registered (a later load replaces them).
                """,
            examples: ["unload s1", "unload s5"], kinds: [.scene],
            parse: { arguments throws(CommandError) in
                var sources = [try arguments.word("a scene")]
                while let word = arguments.optionalWord() { sources.append(word) }
                try SceneLibrary.checkSources(sources, failure: arguments.failure)
                return .unload(sources: sources)
            }),
        CommandSpec(
            name: "help", arguments: "[<command>]", summary: "list the commands, or explain one",
            details: "", examples: ["help", "help watch"], kinds: [.commandName],
            parse: { arguments throws(CommandError) in .help(command: arguments.optionalWord()) }),
        CommandSpec(
            name: "quit", arguments: "", summary: "leave (also exit, or Ctrl-D)", details: "", kinds: [],
            parse: { _ throws(CommandError) in .quit }),
    ]

    /// Other names a command answers to.
    static let aliases = ["exit": "quit"]

    /// `; did you mean set?` for `sett`: the commands nearest a name that is none.
    static func didYouMean(_ name: String) -> String {
        Suggestions.phrase(Suggestions.nearest(to: name, among: commands.map(\.name) + aliases.keys))
    }

    static func spec(named name: String) -> CommandSpec? {
        let resolved = aliases[name] ?? name
        return commands.first { $0.name == resolved }
    }

    /// The overview `help` prints.
    static func overview(style: Style) -> String {
        let width = commands.map(\.usage.count).max() ?? 0
        var lines = ["Commands (values are JSON):"]
        for command in commands {
            let padding = String(repeating: " ", count: width - command.usage.count + 2)
            lines.append("  \(style.bold(command.usage))\(padding)\(command.summary)")
        }
        lines.append(
            "  \(style.bold("{...} or [...]"))\(String(repeating: " ", count: max(2, width - 12)))send a raw JSON-RPC line and print the response"
        )
        lines.append("")
        lines.append("Tab completes commands, key paths, view paths, types and actions from the live graph.")
        lines.append("JSON whose brackets are still open at the end of a line goes on at the ...> prompt.")
        lines.append("Ctrl-C clears the line, or cancels a command still waiting for its answer; Ctrl-D leaves.")
        lines.append("help <command> explains one command.")
        lines.append("To watch the tree live in a browser, run milieu inspect in a shell (milieu --help).")
        return lines.joined(separator: "\n")
    }

    /// What the commands' examples assume is loaded, unless one says otherwise: every embedded scene.
    static let exampleWorld = ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "rules"]

    /// What `help <name>` prints: the usage, the summary, the details and the examples, laid out
    /// in rows of at most `width` columns (80 when not given), the prose wrapped at `width` when given.
    static func help(for name: String, style: Style, width given: Int? = nil) -> String? {
        let width = given ?? 80
        guard let spec = spec(named: name) else { return nil }
        var text = "\(style.bold(spec.usage))\n  \(spec.summary)"
        if !spec.details.isEmpty { text += "\n\n" + spec.details }
        if !spec.examples.isEmpty {
            var rows: [String] = []
            for example in spec.examples {
                if let last = rows.last, last.count + 8 + example.count <= width {
                    rows[rows.count - 1] = last + "        " + example
                } else {
                    rows.append("  " + example)
                }
            }
            text += "\n\n" + rows.joined(separator: "\n")
        }
        return given.map { TextWrap.wrap(text, width: $0) } ?? text
    }
}
