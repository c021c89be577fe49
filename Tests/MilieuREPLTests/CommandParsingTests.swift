import MilieuJSON
import Testing

@testable import milieu

/// How typed lines become commands: JSON values, words that keep brackets and quotes
/// together, and errors that say what to type instead.
struct CommandParsingTests {
    @Test func setTakesTheRestOfTheLineAsOneJSONValue() throws {
        #expect(
            try Command.parse(#"set /App/Counter.state.favoritePrimes [2, 3]"#)
                == .set(path: "/App/Counter.state.favoritePrimes", value: [2, 3]))
        #expect(try Command.parse(#"set login.email "kim@example.com""#) == .set(path: "login.email", value: "kim@example.com"))
    }

    @Test func callTakesSpaceSeparatedJSONArguments() throws {
        #expect(try Command.parse(#"call x.f "a b" [1, 2] {"k": 1} 7"#) == .call(path: "x.f", arguments: ["a b", [1, 2], ["k": 1], 7]))
        #expect(try Command.parse("call login.login") == .call(path: "login.login", arguments: []))
    }

    @Test func aPathWithAQuotedIdIsOneWord() throws {
        #expect(try Command.parse(#"get /App/List/Row["a b"].title"#) == .get(path: #"/App/List/Row["a b"].title"#))
    }

    @Test func aLineStartingWithABraceOrBracketIsRawJSONRPC() throws {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"login.email"}}"#
        #expect(try Command.parse("  " + line) == .raw(line: line))
        #expect(try Command.parse("[]") == .raw(line: "[]"))
    }

    @Test func depsReadersAndEnvTakeOnePath() throws {
        #expect(try Command.parse("deps /App/Shop") == .dependencies(path: "/App/Shop"))
        #expect(try Command.parse("readers login.isValidEmail") == .readers(path: "login.isValidEmail"))
        #expect(try Command.parse("env /App/Shop/CartList") == .environment(path: "/App/Shop/CartList", picture: nil))
        #expect(try Command.parse("env /App --dot") == .environment(path: "/App", picture: .dot))
        #expect(throws: CommandError.self) { try Command.parse("deps") }
        #expect(throws: CommandError.self) { try Command.parse("readers a b") }
    }

    @Test func watchSeparatesTheLifecycleFlagFromTargets() throws {
        #expect(try Command.parse("watch login /App --lifecycle") == .watch(targets: ["login", "/App"], lifecycle: true, commits: false))
        #expect(try Command.parse("watch --commits") == .watch(targets: [], lifecycle: false, commits: true))
    }

    @Test func treeTakesAPathAndADepthInEitherOrder() throws {
        #expect(try Command.parse("tree") == .tree(path: nil, depth: nil, picture: nil))
        #expect(try Command.parse("tree /App/List --depth 2") == .tree(path: "/App/List", depth: 2, picture: nil))
        #expect(try Command.parse("tree --depth 0 /App") == .tree(path: "/App", depth: 0, picture: nil))
        #expect(throws: CommandError.self) { try Command.parse("tree --depth -1") }
        #expect(throws: CommandError.self) { try Command.parse("tree --depth") }
    }

    @Test func treeAndExplainDrawAsDOTOrIntoAFile() throws {
        #expect(try Command.parse("tree --dot") == .tree(path: nil, depth: nil, picture: .dot))
        #expect(try Command.parse("tree /App --svg t.svg") == .tree(path: "/App", depth: nil, picture: .file(path: "t.svg", format: "svg")))
        #expect(try Command.parse("explain v12") == .explain(version: 12, picture: nil))
        #expect(try Command.parse("explain --png v.png 3") == .explain(version: 3, picture: .file(path: "v.png", format: "png")))
        #expect(throws: CommandError.self) { try Command.parse("explain") }
        #expect(throws: CommandError.self) { try Command.parse("explain vx") }
        #expect(throws: CommandError.self) { try Command.parse("tree --svg") }
    }

    @Test func whyTakesAViewPathAndMaybeAVersion() throws {
        #expect(try Command.parse("why /App/Greeting") == .why(path: "/App/Greeting", version: nil))
        #expect(try Command.parse("why /App/Greeting v7") == .why(path: "/App/Greeting", version: 7))
        #expect(throws: CommandError.self) { try Command.parse("why") }
    }

    @Test func blankLinesAndCommentsAreNotCommands() throws {
        #expect(try Command.parse("   ") == nil)
        #expect(try Command.parse("# set up the cart") == nil)
    }

    @Test func aBareWordIsTheStringItSpellsAndJSONStaysJSON() throws {
        #expect(try Command.parse("set theme.colorScheme dark") == .set(path: "theme.colorScheme", value: "dark"))
        #expect(try Command.parse("set login.email kim@example.com") == .set(path: "login.email", value: "kim@example.com"))
        #expect(try Command.parse("call session.start kim") == .call(path: "session.start", arguments: ["kim"]))
        #expect(try Command.parse("set /App/V.on true") == .set(path: "/App/V.on", value: true))
        #expect(try Command.parse("set /App/V.n 12") == .set(path: "/App/V.n", value: 12))
        #expect(try Command.parse(#"set /App/V.s "true""#) == .set(path: "/App/V.s", value: "true"))
        // Not a word: a mistyped number, or text with spaces or other signs.
        for line in ["set /App/V.n 1.2.3", "set login.email kim smith", "set /App/V.o {a: 1}"] {
            let error = #expect(throws: CommandError.self) { try Command.parse(line) }
            #expect(error?.message.contains("needs double quotes") == true, "\(line)")
            #expect(error?.usage == "set <keypath> <json>")
        }
    }

    /// Issue #27.3: every command the catalog lists parses the examples its help shows (a command
    /// listed but not parsed used to parse as quit), and an unknown name is an error, never quit.
    @Test func everyCommandInTheCatalogParsesTheExamplesItsHelpShows() throws {
        var parsed = 0
        for spec in CommandCatalog.commands {
            for example in spec.examples {
                let command = try Command.parse(example)
                #expect(command != nil && (command != .quit || spec.name == "quit"), "\(example): \(String(describing: command))")
                parsed += 1
            }
        }
        #expect(parsed > 40)
        #expect(throws: CommandError.self) { try Command.parse("sett login.email x") }
    }

    @Test func anUnknownCommandPointsToHelp() {
        #expect(throws: CommandError(message: "unknown command gte; did you mean get?; help lists the commands", usage: nil)) {
            try Command.parse("gte login")
        }
    }

    @Test func missingArgumentsShowTheUsage() {
        #expect(throws: CommandError(message: "set needs a JSON value", usage: "set <keypath> <json>")) {
            try Command.parse("set login.email")
        }
    }
}

/// Paths, hints and raw lines: the small decisions the REPL makes about text.
struct TextDecisionTests {
    @Test func viewPathsHaveNoMemberOutsideIds() {
        #expect(PathSyntax.isViewPath("/App/Container"))
        #expect(PathSyntax.isViewPath(#"/App/List/Row["a.b"]"#))
        #expect(!PathSyntax.isViewPath("/App/Container.toggle"))
        #expect(!PathSyntax.isViewPath("login.email"))
    }

    @Test func syntaxHintShowsTheArgumentsStillToType() {
        #expect(SyntaxHint.hint(for: "set") == " <keypath> <json>")
        #expect(SyntaxHint.hint(for: "set ") == "<keypath> <json>")
        #expect(SyntaxHint.hint(for: "set login.email ") == "<json>")
        #expect(SyntaxHint.hint(for: "call login.login ") == "[<json arg>...]")
        #expect(SyntaxHint.hint(for: "set login.em") == nil)
        #expect(SyntaxHint.hint(for: "quit") == nil)
        #expect(SyntaxHint.hint(for: "settle") == nil)
    }

    @Test func completionListsShowTheLastSegment() {
        #expect(LineEditor.lastSegment("/App/Container/LoginView1.loginVM.email") == "email")
        #expect(LineEditor.lastSegment("/App/Container/LoginView1") == "LoginView1")
        #expect(LineEditor.lastSegment(#"/App/List/Row["a.b"]"#) == #"Row["a.b"]"#)
        #expect(LineEditor.lastSegment("get") == "get")
    }
}
