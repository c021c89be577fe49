import Foundation
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

/// milieu without a terminal: -c commands and piped ones, --json, and exit statuses.
@Suite(.serialized)
struct ScriptModeTests {
    @Test func dashCPrintsTheValueAndExitsZero() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", #"set login.email "kim@example.com""#, "-c", "get login.email"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputLines == ["ok, version 2", #""kim@example.com""#])
        #expect(!run.stdout.contains("\u{1B}["), "no colour into a pipe")
    }

    /// A value longer than one read of the socket (64 KiB) comes back whole (issue #26, item 1:
    /// every Swift client trapped on a line split across reads).
    @Test func aValueLongerThanOneReadIsPrintedWhole() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let long = String(repeating: "abcdefghij", count: 7_000)
        let writer = try LineClient(path: daemon.socketPath)
        _ = try writer.call("graph/set", ["path": "theme.accentColor", "value": .string(long)])
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "get theme.accentColor"])
        #expect(run.status == 0, "\(run.stderr)")
        let whole = run.outputLines == ["\"\(long)\""]
        #expect(whole, "printed \(run.stdout.utf8.count) bytes, not the \(long.utf8.count + 3) of the value's line")
    }

    /// A command whose request would be longer than the daemon takes (`maxLineBytes`, which
    /// `initialize` gives) is refused here and not sent: sent, it would make the daemon close the
    /// connection, and with it go the views the session mounted.
    @Test func aRequestLongerThanTheDaemonTakesIsRefusedAndNotSent() throws {
        let daemon = try Daemon(arguments: ["--max-line", "300"])
        defer { daemon.stop() }
        let long = String(repeating: "x", count: 400)
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", #"set theme.accentColor "teal""#, "-c", "set theme.accentColor \"\(long)\"",
        ])
        #expect(run.status == 1, "the command failed: \(run.stdout)")
        #expect(run.stderr.contains("longer than milieud's limit of 300; not sent"), "\(run.stderr)")
        #expect(!run.stderr.contains("MessageTooLarge") && !run.stdout.contains("MessageTooLarge"), "\(run.stdout)\(run.stderr)")
        daemon.terminate()
        #expect(!daemon.stderrText().contains("over 300; closing it"), "nothing that long reached the daemon")
    }

    /// A socket straight in /tmp is fine when its owner is you (issue #30 item 7): milieu refused it
    /// and advised `chmod go-w /tmp`.
    @Test func aSocketOfOnesOwnInTmpIsUsedAsIs() throws {
        let path = "/tmp/milieu-script-\(getpid()).sock"
        defer { unlink(path + ".lock") }
        let daemon = try Daemon(socketPath: path)
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", path, "-c", "get theme.colorScheme"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputLines == [#""light""#])
        #expect(!run.stderr.contains("chmod"))
    }

    /// Issue #30, item 4: seed 000's point is why LoginView1 keeps its text, and `why` of a view
    /// that did not re-render at a version answered with an error. It says why not.
    @Test func whyOfAViewThatDidNotReRenderSaysWhyNot() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load s1", "-c", #"set /App/ContainerView/LoginView1.loginVM.email "kim@example.com""#,
            "-c", "set /App/ContainerView.toggle true", "-c", "why /App/ContainerView/LoginView1 v4",
            "-c", "why /App/FixedContainerView/LoginView1 v4",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = Array(run.outputLines.drop { !$0.hasPrefix("/App/ContainerView/LoginView1 did not") })
        #expect(
            lines == [
                "/App/ContainerView/LoginView1 did not re-render at v4:",
                "  its parent /App/ContainerView re-rendered (_toggle) and wrote it again, but its inputs compared equal (it takes none), "
                    + "so its body was not evaluated",
                "  @StateObject loginVM kept LoginViewModel#4: a StateObject is made once for the view's identity, and the initializer "
                    + "the parent's body runs again is ignored",
                "/App/FixedContainerView/LoginView1 did not re-render at v4:",
                "  its parent /App/FixedContainerView did not re-render, and it read nothing v4 wrote",
                "    it read: LoginViewModel#6 (_loginVM)",
                "    v4 wrote: /App/ContainerView.toggle  false → true",
            ], "\(run.stdout)")
    }

    @Test func explainAndWhyTellTheChainFromTheWriteToTheViews() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath,
            "-c", #"mount {"parent": "/App", "name": "Container", "state": {"toggle": false}, "body": ["{toggle}"]}"#,
            "-c",
            #"mount {"parent": "/App/Container", "name": "LoginView2", "inputs": {"t": {"$parent": "toggle"}}, "observedObjects": {"loginVM": {"construct": "LoginViewModel"}}}"#,
            "-c", "set /App/Container.toggle true", "-c", "explain v4", "-c", "why /App/Container/LoginView2",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let text = run.stdout
        #expect(text.contains("v4  graph/set /App/Container.toggle"))
        #expect(text.contains("✎ /App/Container.toggle  false → true"))
        #expect(text.contains("↻ /App/Container  _toggle"))
        #expect(text.contains("↻ /App/Container/LoginView2  @self"))
        #expect(text.contains("+ LoginViewModel#"), "the object the re-render made, under its view")
        #expect(text.contains("/App/Container/LoginView2 re-rendered at v4 because:"))
        #expect(text.contains("@self: its parent /App/Container re-rendered"))
        #expect(text.contains("_toggle: /App/Container.toggle  false → true"))
    }

    @Test func treeAndExplainDrawWithGraphviz() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", #"mount {"parent": "/App", "name": "V", "state": {"n": 1}, "body": ["{n}"]}"#,
            "-c", "set /App/V.n 2", "-c", "tree --dot", "-c", "explain v3 --svg \(directory)/v3.svg", "-c", "tree --png \(directory)/t.png",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("digraph \"tree\""))
        #expect(run.stdout.contains("wrote \(directory)/v3.svg"))
        #expect(try String(contentsOfFile: "\(directory)/v3.svg", encoding: .utf8).contains("<svg"))
        let png = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/t.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func infoAndClientsSayWhichDaemonThisIsAndWhoIsConnected() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let dashboard = try daemon.connect()
        _ = try dashboard.call("initialize", ["client": ["name": "dashboard"]])
        _ = try dashboard.call("watch", ["paths": ["theme"]])
        _ = try dashboard.call("view/mount", ["parent": "/App", "name": "Panel"])
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "info", "-c", "clients"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.outputLines
        #expect(
            lines.first?.hasPrefix("milieud \(ProtocolInfo.serverVersion), protocol 1, pid \(daemon.process.processIdentifier), up ")
                == true)
        #expect(lines.contains("  socket    \(daemon.socketPath)"))
        #expect(lines.contains("  serving   2 connections, 1 watch, 2 views, 3 objects"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  memory    ") && $0.contains(" MiB resident, 0 B unsent") })
        let rows = lines.filter { $0.contains("dashboard") || $0.contains("milieu ") }
        #expect(rows.count == 2, "\(lines)")
        #expect(rows.first?.hasPrefix("  ") == true && rows.first?.contains("  1        1      0 B") == true, "\(rows)")
        #expect(rows.last?.hasPrefix("* ") == true && rows.last?.contains("  0        0      0 B") == true, "\(rows)")
        #expect(lines.last == "2 connections; * is this one")
    }

    @Test func aWatchSaysOnceWhenItsTargetIsGoneAndWaitsForAViewNotMountedYet() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "watch /App/Later", "-c",
            #"mount {"parent": "/App", "name": "Later", "state": {"toggle": false}}"#, "-c",
            #"mount {"parent": "/App/Later", "name": "L2", "inputs": {"t": {"$parent": "toggle"}}, "observedObjects": {"vm": {"construct": "LoginViewModel"}}}"#,
            "-c", "watch /App/Later/L2.vm.email", "-c", "set /App/Later.toggle true", "-c", "set /App/Later.toggle false",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.outputLines
        #expect(lines.contains("  not mounted yet: /App/Later  (shown once a view is mounted there)"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("v2  + /App/Later mounted") }, "\(lines)")
        let ended = lines.filter { $0.contains("is gone") }
        #expect(ended.count == 1, "said once: \(lines)")
        #expect(
            ended.first?.hasSuffix(": LoginViewModel#4 is gone (replaced): /App/Later/L2.vm.email covers nothing now; watching nothing")
                == true, "\(lines)")
    }

    @Test func resetInAScriptDoesNotAskAndSaysWhatItDid() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load s1", "-c", "set login.email kim", "-c", "reset", "-c", "reset", "-c",
            "get login.email",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let text = run.stdout
        #expect(text.contains("reset to the scene's start  version 4"))
        #expect(text.contains("  unmount     /App/ContainerView, /App/FixedContainerView (with everything below)"))
        #expect(text.contains("  write back  /App.session.token, /App.login.email, /App.login.password"))
        // The second reset has only the secure values to set back, which a reset does whatever they are.
        #expect(text.contains("reset to the scene's start  version 5\n  write back  /App.session.token, /App.login.password"))
        #expect(run.outputLines.last == #""""#)
    }

    @Test func pipedJSONMayTakeSeveralLinesUntilItsBracketsClose() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let script = """
            mount {
              "parent": "/App",
              "name": "Multi",
              "state": {"n": [1, 2]}
            }
            {"jsonrpc": "2.0", "id": 7,
             "method": "graph/get", "params": {"path": "/App/Multi.n"}}
            get /App/Multi.n
            """
        let run = try MilieuRun.run(["--socket", daemon.socketPath], input: script)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("mounted /App/Multi"))
        #expect(run.stdout.contains(#""id":7"#) || run.stdout.contains(#""id": 7"#), "\(run.stdout)")
        #expect(Array(run.outputLines.suffix(4)) == ["[", "  1,", "  2", "]"], "\(run.outputLines)")
    }

    @Test func aFailingCommandExitsOneAndSaysWhyOnStandardError() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "get login.emial"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("error: UnknownPath"))
        #expect(run.stderr.contains("login.emial"))
    }

    @Test func pipedCommandsRunInOrderAndStopAtTheFirstFailure() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let script = """
            # a comment, then a blank line

            set theme.colorScheme "dark"
            get theme.colorScheme
            set theme.colorScheme "sepia"
            get theme.fontScale
            """
        let run = try MilieuRun.run(["--socket", daemon.socketPath], input: script)
        #expect(run.status == 1)
        #expect(run.outputLines == ["ok, version 2", #""dark""#], "the command after the failure did not run")
        #expect(run.stderr.contains("error: InvalidValue"))
    }

    @Test func aMistypedCommandFailsWithItsUsage() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "set login.email kim smith"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("needs double quotes"))
        #expect(run.stderr.contains("usage: set <keypath> <json>"))
    }

    @Test func aOneShotMountSaysItGoesWhenMilieuExits() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", #"mount {"parent": "/App", "name": "Brief"}"#,
            "-c", #"mount {"parent": "/App", "name": "Kept", "retain": true}"#,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputLines.first { $0.contains("/App/Brief") }?.contains(#"unmounted when milieu exits; add "retain": true"#) == true)
        #expect(run.outputLines.first { $0.contains("/App/Kept") }?.contains("unmounted") == false)
        let after = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "get /App/Kept", "-c", "get /App/Brief"])
        #expect(after.status == 1 && after.stderr.contains("UnknownPath"), "it did go, as it said")
    }

    @Test func rawPrintsAStringValueAsItsText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "--raw", "-c", "get theme.colorScheme", "-c", "get theme.fontScale", "-c", "get theme",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputLines.prefix(2) == ["light", "1.0"], "a string bare, a number as JSON")
        #expect(run.stdout.contains("Theme#"), "an object as ever")
    }

    @Test func keepGoingRunsEveryCommandAndStillFails() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "--keep-going", "-c", "get login.emial", "-c", "get theme.colorScheme"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("UnknownPath"))
        #expect(run.outputLines == [#""light""#], "the command after the failure ran")
    }

    @Test func aDaemonThatStoppedAnsweringFailsTheRunAfterTheTimeout() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        kill(daemon.process.processIdentifier, SIGSTOP)
        defer { kill(daemon.process.processIdentifier, SIGCONT) }
        let started = ContinuousClock.now
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "--timeout", "0.5", "-c", "get theme"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no response to request 1 from milieud at \(daemon.socketPath) within 0.5 s"), "\(run.stderr)")
        #expect(ContinuousClock.now - started < .seconds(10), "it gave up, rather than waiting on")
    }

    @Test func aSceneCanBeUnloadedAndLoadedAgainFromItsStart() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let twice = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load s1", "-c", "load s1"])
        #expect(twice.status == 1 && twice.stderr.contains("DuplicateView"), "loading it again as it is clashes")
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "set /App/ContainerView.toggle true", "-c", "load --replace s1",
            "-c", "get /App/ContainerView.toggle", "-c", "unload s1", "-c", "unload s1",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("unloaded s1-login: unmounted /App/ContainerView, /App/FixedContainerView"))
        #expect(run.outputLines.contains("false"), "loaded again from its initial state")
        #expect(run.stdout.contains("s1-login: nothing of it is mounted"))
        let after = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "get /App/ContainerView"])
        #expect(after.status == 1 && after.stderr.contains("UnknownPath"))
    }

    @Test func bareWordsAreStrings() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "set theme.colorScheme dark", "-c", "call session.start kim", "-c", "get session.user",
            "-c", "get theme.colorScheme",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputLines.suffix(2) == [#""kim""#, #""dark""#])
    }

    @Test func jsonModePrintsResultsErrorsAndNotificationsOneObjectPerLine() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(
            [
                "--socket", daemon.socketPath, "--json", "-c", "watch login", "-c", #"set login.email "kim@example.com""#, "-c",
                "get login.nope",
            ])
        #expect(run.status == 1)
        let lines = try run.outputLines.map { try JSON(parsing: $0) }
        try #require(lines.count == 4, "\(run.stdout)")
        #expect(lines[0]["result"]?["number"] == 1)
        #expect(lines[1] == ["result": ["version": 2]])
        #expect(lines[2]["method"] == "graph/didChange")
        #expect(
            lines[2]["params"]?["changes"] == [
                ["path": "login.email", "value": "kim@example.com"], ["path": "login.isValidEmail", "value": true],
            ])
        #expect(lines[3]["error"]?["data"]?["kind"] == "UnknownPath")
        #expect(lines[3]["error"]?["code"] == -32001)
    }

    @Test func notificationsHaveCompactReadableForms() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(
            [
                "--socket", daemon.socketPath, "-c", "load s2", "-c", "watch /App/StartView --lifecycle", "-c",
                "set /App/StartView.selectedNum 11",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let output = run.stdout
        #expect(output.contains("v3  /App/StartView.selectedNum = 11"), "a change")
        #expect(output.contains("v3  ↻ /App/StartView  _selectedNum\n      │ selected: 11"), "a re-render, its reasons and body")
        #expect(output.contains("v3  ↻ /App/StartView/StateObjectChild  @self\n      │ num: 10"))
        #expect(output.contains("v3  + /App/StartView/IdentifiedChild[11] mounted (identity)\n      │ num: 11"), "a mount")
        #expect(output.contains("v3  − /App/StartView/IdentifiedChild[10] unmounted (identity)"), "an unmount")
        #expect(output.contains("created (construct)  owner /App/StartView/ObservedChild.viewModel"), "an object created")
        #expect(
            output.contains("v3  − ViewModel#4 destroyed (replaced)  owner /App/StartView/ObservedChild.viewModel"), "an object destroyed")
        #expect(output.contains("v3  ⚠ StateObjectInitIgnored /App/StartView/StateObjectChild"), "a diagnostic")
        #expect(output.contains(#"      ignored: {"num":11}"#))
    }

    /// The `rules` scene, as a person would try it: each of the finer observation rules shows.
    @Test func theRulesSceneShowsTheFinerObservationRules() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load rules", "-c", "watch /App/Rules --lifecycle", "-c", #"set login.email "kim@""#,
            "-c", #"set /App/Rules.form.title """#, "-c", #"set /App/Rules.form.draft "notes""#,
            "-c", "call /App/Rules.form.objectWillChange.send",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let output = run.stdout
        #expect(output.contains("v4  ↻ /App/Rules/LoginReader  login.email\n      │ valid: false"), "rule 12: the getter's read")
        #expect(output.contains("v5  ↻ /App/Rules  _form\n      │ n: 1\n      │ title: \n      │ draft: \n"), "rule 9: @Published, equal")
        #expect(output.contains("v5  + ViewModel#9 created (stateInitial)  owner /App/Rules/Child.vm"), "rule 18")
        #expect(output.contains("v5  − ViewModel#9 destroyed (discarded)  owner /App/Rules/Child.vm"), "rule 18")
        #expect(output.contains("ok, version 6\nok, version 7"), "rule 19: a plain var re-renders nobody")
        #expect(
            output.contains("v7  ↻ /App/Rules  _form\n      │ n: 1\n      │ title: \n      │ draft: notes"), "rule 19: objectWillChange")
    }

    /// The rest of the `rules` scene: a reference read through but not heard (the nested-object
    /// pitfall), an optional `@Environment(T.self)` and environment defaults, and a wrapper that
    /// refuses an `@Observable` type.
    @Test func theRulesSceneShowsReferencesEnvironmentAndWrapperConstraints() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load rules", "-c", "watch /App/Rules", "-c", #"set /App/Rules/Staff.person.name "Bo""#,
            "-c", "get /App/Rules/Staff/TeamCard.team.manager.name", "-c", #"provide /App/Rules/Provider {"observables": ["counter"]}"#,
            "-c", #"mount {"parent": "/App", "name": "Wrong", "observedObjects": {"login": {"$parent": "login"}}}"#,
        ])
        #expect(run.status == 1, "the refused mount fails the script")
        let output = run.stdout
        #expect(output.contains("v4  ↻ /App/Rules/Staff  _person\n      │ person: Bo\n\"Bo\""), "heard by its holder, read through")
        #expect(!output.contains("↻ /App/Rules/Staff/TeamCard"), "the nested-object pitfall")
        #expect(output.contains("v5  ↻ /App/Rules/Provider/Settings  _counter\n      │ scheme: light, tone: warm, counter: 0"))
        #expect(run.stderr.contains("Login is @Observable, and @ObservedObject takes an ObservableObject"))
    }

    /// `types` lists the model types, then every environment key with the default a view reads
    /// when nobody provides it, the scene's declared ones included.
    @Test func typesListsTypesAndEnvironmentKeysWithTheirDefaults() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load rules", "-c", "types"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\nLogin (observable, built-in)  email, password, isUserLoggedIn, isValidEmail; login(), logout()\n"))
        let keys = try #require(run.outputLines.first { $0.hasPrefix("environment keys  ") })
        #expect(keys.contains(#"colorScheme = "light""#))
        #expect(keys.contains(#"tone = "warm""#))
    }

    @Test func afterUnwatchNothingMoreIsPrinted() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "watch login", "-c", "unwatch 1", "-c", #"set login.email "kim@example.com""#, "-c",
            "watch",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.outputLines == [
                "w1 watching login  from version 1  (ends when milieu exits; milieu watch login streams until Ctrl-C)", "stopped w1",
                "ok, version 2",
                "no watches (watch <keypath or view path>... starts one)",
            ])
    }

    @Test func aRawJSONRPCLinePrintsTheResponse() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let request = #"{"jsonrpc":"2.0","id":"mine","method":"graph/get","params":{"path":"theme.accentColor"}}"#
        let notification = #"{"jsonrpc":"2.0","method":"graph/set","params":{"path":"theme.accentColor","value":"red"}}"#
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "--json", "-c", request, "-c", notification, "-c", request])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.outputLines.map { try JSON(parsing: $0) }
        #expect(
            lines == [
                ["result": ["jsonrpc": "2.0", "id": "mine", "result": "blue"]], ["result": .null],
                ["result": ["jsonrpc": "2.0", "id": "mine", "result": "red"]],
            ])
    }

    @Test func aRawLineThatFailsExitsOne() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", #"{"jsonrpc":"2.0","id":1,"method":"graph/gte"}"#])
        #expect(run.status == 1)
        #expect(run.stderr.contains("MethodNotFound"))
    }

    /// A notification with a member the daemon does not know is refused, with an error of id
    /// null: milieu waits for it and shows it, where it took it for the next raw line's answer.
    @Test func aNotificationTheDaemonRefusesShowsItsErrorNotTheNextLines() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "--keep-going", "-c", #"{"jsonrpc":"2.0","method":"graph/get","extra":1}"#, "-c",
            #"{"jsonrpc":"2.0","id":"second","method":"graph/get","params":{"path":"theme.colorScheme"}}"#,
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains(#"unknown member \"extra\""#), "\(run.stderr)")
        #expect(run.stdout.contains(#""id": "second""#) && run.stdout.contains(#""result": "light""#), "\(run.stdout)")
    }

    @Test func withoutADaemonItSaysHowToStartOneAndExitsThree() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = "\(directory)/milieu.sock"
        let run = try MilieuRun.run(["--socket", socket, "-c", "get login.email"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("no milieud is answering at \(socket)"))
        #expect(run.stderr.contains("milieud --socket \(socket) &"))
        #expect(run.stderr.contains("milieu --spawn"))
    }

    @Test func theSocketCanComeFromTheEnvironment() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["-c", "get theme.colorScheme"], environment: ["MILIEU_SOCKET": daemon.socketPath])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\"light\"\n")
    }

    @Test func spawnStartsADaemonWhenNoneAnswers() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = "\(directory)/milieu.sock"
        // XDG_STATE_HOME: a daemon started this way keeps its state there, in the test's directory.
        let run = try MilieuRun.run(
            ["--socket", socket, "--spawn", "-c", "get theme.colorScheme"],
            environment: ["MILIEUD": Daemon.binary, "XDG_STATE_HOME": directory])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\"light\"\n")
        #expect(run.stderr.contains("started milieud"))
        // The daemon outlives milieu; stop it, and wait until it has gone.
        let client = try MilieuClient(socketPath: socket)
        try client.request(ShutdownRequest(), timeout: 5)
        #expect(throws: MilieuClientError.self) { try client.nextNotification(timeout: 5) }
        #expect(!client.isConnected)
    }

    @Test func spawnEphemeralStartsADaemonThatKeepsNothing() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = "\(directory)/milieu.sock"
        let run = try MilieuRun.run(
            ["--socket", socket, "--spawn", "--ephemeral", "-c", "set theme.colorScheme dark"],
            environment: ["MILIEUD": Daemon.binary, "XDG_STATE_HOME": directory])
        #expect(run.status == 0, "\(run.stderr)")
        let client = try MilieuClient(socketPath: socket)
        try client.request(ShutdownRequest(), timeout: 5)
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/milieu"), "no data directory was made")
        #expect(try MilieuRun.run(["--ephemeral", "-c", "get theme"]).status == 2, "--ephemeral alone is a mistake")
    }

    @Test func spawnWithNoDaemonBinarySaysHowToBuildOne() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // milieu alone, as `swift run milieu` builds it: no milieud beside it, none on PATH. A link,
        // not a copy: a copy's descriptor, open for writing, can leak into a child another test
        // spawns meanwhile, and the copy then cannot be run (ETXTBSY).
        let lonely = "\(directory)/milieu"
        try FileManager.default.createSymbolicLink(atPath: lonely, withDestinationPath: MilieuRun.binary)
        let environment = ChildProcess.environment(
            removing: ["MILIEUD", "MILIEU_SOCKET", "NO_COLOR"], adding: ["PATH": "/usr/bin:/bin", "XDG_STATE_HOME": directory])
        let run = try ChildProcess.run(
            [lonely, "--socket", "\(directory)/milieu.sock", "--spawn", "-c", "get theme"], environment: environment)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("cannot start milieud: there is none beside milieu (\(directory)/milieud) or on PATH"))
        #expect(run.stderr.contains("swift build --product milieud"))
    }

    @Test func aMistakeOnTheCommandLineExitsTwoWithOneLineAndWhereToLook() throws {
        let run = try MilieuRun.run(["--sockte", "/tmp/x"])
        #expect(run.status == 2)
        #expect(run.stderr == "milieu: unknown option --sockte; milieu --help lists the options\n")
    }

    @Test func treeDrawsWrappersObjectsProvidedObjectsAndBodies() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load s1", "-c", "tree"])
        #expect(run.status == 0, "\(run.stderr)")
        let tree = run.stdout.components(separatedBy: "\n").drop { !$0.hasPrefix("/App") }.joined(separator: "\n")
        #expect(tree.hasPrefix("/App  evaluated once, last v1, retained"))
        #expect(
            tree.contains(
                """
                │   @State session: Session#1
                │   @State theme: Theme#2
                │   @State login: Login#3
                │   provides .environment(Login#3)
                │   provides .environment(Session#1)
                │   provides .environment(Theme#2)
                ├── ContainerView  evaluated once, last v2, retained
                │   │   @State toggle = false
                │   │   body │ toggle: false
                │   ├── LoginView1  evaluated once, last v2, retained
                │   │       @StateObject loginVM: LoginViewModel#4
                │   │       body │ email: 
                │   │            │ valid: false
                """), "\(tree)")
        #expect(tree.contains("@ObservedObject loginVM: LoginViewModel#5"))
    }

    /// S6's cart screen: `CartScreen` owns and provides a `Cart` and reads `login.isValidEmail`;
    /// `CartList` reads the cart from the environment.
    private static let cartScreen = [
        "-c",
        #"mount {"parent": "/App", "name": "CartScreen", "stateObjects": {"cart": {"type": "Cart"}}, "environment": {"login": {"type": "Login"}}, "provide": {"environmentObjects": ["cart"], "environment": {"colorScheme": "dark"}}, "body": ["{login.isValidEmail}"]}"#,
        "-c", #"mount {"parent": "/App/CartScreen", "name": "CartList", "environmentObjects": {"cart": "Cart"}, "body": ["{cart.items}"]}"#,
    ]

    @Test func depsListsWhatAViewReadWithItsReasons() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath] + Self.cartScreen + ["-c", "deps /App/CartScreen"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("/App/CartScreen read in its last evaluation  version 3"), "\(run.stdout)")
        #expect(run.stdout.contains("  _cart        Cart#4, any announced change (Cart is an ObservableObject)"), "\(run.stdout)")
        #expect(run.stdout.contains("  login.email  Login#3.email"), "\(run.stdout)")
    }

    @Test func readersSaysWhichViewsWouldReRenderAndWhy() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(
            ["--socket", daemon.socketPath] + Self.cartScreen + [
                "-c", "readers /App/CartScreen/CartList.cart.items", "-c", "readers login.isValidEmail", "-c", "readers theme.fontScale",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                """
                if /App/CartScreen/CartList.cart.items changed, these would re-render  version 3
                  /App/CartScreen           _cart
                  /App/CartScreen/CartList  _cart
                """), "\(run.stdout)")
        #expect(run.stdout.contains("  /App/CartScreen  login.email"), "\(run.stdout)")
        #expect(run.stdout.contains("no view would re-render if theme.fontScale changed"), "\(run.stdout)")
    }

    @Test func envShowsEachObjectAndValueWithItsProvider() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath] + Self.cartScreen + ["-c", "env /App/CartScreen/CartList"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("/App/CartScreen/CartList sees  version 3"), "\(run.stdout)")
        #expect(run.stdout.contains(".environmentObject(Cart)  Cart#4 from /App/CartScreen"), "\(run.stdout)")
        #expect(run.stdout.contains(".environment(Session)     Session#1 from /App"), "\(run.stdout)")
        #expect(run.stdout.contains(#"\.colorScheme  "#) && run.stdout.contains(#""dark" from /App/CartScreen"#), "\(run.stdout)")
        #expect(run.stdout.contains(#""en_US" (default)"#), "\(run.stdout)")
    }

    @Test func treeWithADepthSaysHowManyChildrenItLeavesOut() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let run = try MilieuRun.run(["--socket", daemon.socketPath, "-c", "load s1", "-c", "tree --depth 1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("ContainerView  evaluated once, last v2, retained, 2 children not shown"), "\(run.stdout)")
        #expect(!run.stdout.contains("── LoginView1"))
    }
}
