import Testing

@testable import milieu

@Suite struct InspectOptionsTests {
    private let environment = ["MILIEU_SOCKET": "/tmp/m/milieu.sock"]

    @Test func inspectTakesTheSocketAndAPort() throws {
        guard
            case .inspect(let socketPath, let port) = try Options.parse(
                ["inspect", "--socket", "/s", "--port", "8080"], environment: environment)
        else {
            Issue.record("not inspect")
            return
        }
        #expect(socketPath == "/s")
        #expect(port == 8080)
    }

    @Test func inspectDefaultsToTheUsualSocketAndAFreePort() throws {
        guard case .inspect(let socketPath, let port) = try Options.parse(["inspect"], environment: environment) else {
            Issue.record("not inspect")
            return
        }
        #expect(socketPath == "/tmp/m/milieu.sock")
        #expect(port == 0)
    }

    @Test func aPortMustBeOneTo65535() {
        for bad in ["0", "65536", "http", "-1"] {
            #expect(throws: Options.Mistake.self) { try Options.parse(["inspect", "--port", bad], environment: environment) }
        }
        #expect(throws: Options.Mistake.self) { try Options.parse(["inspect", "--spawn"], environment: environment) }
    }

    /// Issue #30, item 8: `milieu --socket S watch theme` said `unknown option watch`.
    @Test func optionsBeforeASubcommandGoToIt() throws {
        guard case .inspect(let socketPath, _) = try Options.parse(["--socket", "/s", "inspect"], environment: environment) else {
            Issue.record("not inspect")
            return
        }
        #expect(socketPath == "/s")
        guard case .watch(let watch) = try Options.parse(["--socket", "/w", "--json", "watch", "theme"], environment: environment) else {
            Issue.record("not watch")
            return
        }
        #expect(watch.socketPath == "/w" && watch.json && watch.targets == ["theme"])
        guard case .watch(let monitor) = try Options.parse(["--socket", "/m", "monitor"], environment: environment) else {
            Issue.record("not monitor")
            return
        }
        #expect(monitor.socketPath == "/m" && monitor.commits)
        // -c's value is a command, not a subcommand; an option the subcommand lacks is its error.
        guard case .run(let options) = try Options.parse(["-c", "watch", "--socket", "/r"], environment: environment) else {
            Issue.record("not run")
            return
        }
        #expect(options.commands == ["watch"] && options.socketPath == "/r")
        let mistake = #expect(throws: Options.Mistake.self) { try Options.parse(["--spawn", "inspect"], environment: environment) }
        #expect(mistake?.message.contains("--spawn") == true)
    }

    @Test func theUsageMentionsInspect() {
        #expect(Options.usage.contains("milieu inspect [--socket PATH] [--port N]"))
    }
}
