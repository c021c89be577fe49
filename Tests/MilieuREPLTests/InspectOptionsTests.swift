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

    @Test func theUsageMentionsInspect() {
        #expect(Options.usage.contains("milieu inspect [--socket PATH] [--port N]"))
    }
}
