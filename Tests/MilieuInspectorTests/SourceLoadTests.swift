import MilieuJSON
import MilieuProtocol
import MilieuSwift
import Testing

@testable import MilieuInspector

@Suite struct SourceLoadTests {
    private static let counter = """
        import SwiftUI
        class Counter: ObservableObject { @Published var count = 0 }
        struct CounterView: View {
            @StateObject var counter = Counter()
            var body: some View { Button("+") { counter.count += 1 } }
        }
        #Preview { CounterView() }
        """

    private func load(_ text: String) throws(SourceLoad.Refusal) -> SourceLoad { try SourceLoad(source: Array(text.utf8)) }

    /// As `milieu load --replace` does: the roots unmounted (when there), the types registered in
    /// the place of any of the same name, the views mounted and retained in one transaction.
    @Test func sourceBecomesUnmountRegisterAndOneRetainedMount() throws {
        let requests = try load(Self.counter).requests
        #expect(requests.map(\.method) == ["view/unmount", "schema/register", "graph/transaction"])
        #expect(requests.map(\.unknownPathIsFine) == [true, false, false])
        let params = try requests.map { try JSON(parsing: $0.paramsText) }
        #expect(params[0] == ["path": "/App/CounterView"])
        #expect(params[1]["replace"] == true)
        #expect(params[1]["types"]?.arrayValue?.first?["name"] == "Counter")
        #expect(params[2]["ops"]?.arrayValue?.first?["params"]?["retain"] == true)
        #expect(params[2]["ops"]?.arrayValue?.first?["params"]?["name"] == "CounterView")
    }

    @Test func aRootThatWasNotMountedIsFineAnyOtherErrorIsTheAnswer() throws {
        let load = try load(Self.counter)
        let unknown: JSONObject = ["error": ["code": -32001, "message": "no view", "data": ["kind": "UnknownPath"]]]
        let registered: JSONObject = ["result": ["types": ["Counter"], "environmentKeys": []]]
        let mounted: JSONObject = ["result": ["results": [["path": "/App/CounterView"]], "version": 4]]
        let (ok, text) = load.answer([unknown, registered, mounted])
        #expect(ok)
        let answer = try JSON(parsing: text)
        #expect(answer["views"] == ["/App/CounterView"])
        #expect(answer["types"] == ["Counter"])
        #expect(answer["version"] == 4)

        let refused: JSONObject = ["error": ["code": -32602, "message": "bad", "data": ["kind": "InvalidParams"]]]
        let (failedOK, failedText) = load.answer([["result": ["version": 3]], refused, mounted])
        #expect(!failedOK)
        #expect(try JSON(parsing: failedText)["method"] == "schema/register")
    }

    @Test func sourceWithErrorsOrNotUTF8IsRefusedWithTheDiagnostics() {
        #expect(throws: SourceLoad.Refusal.self) { try SourceLoad(source: [0xFF, 0xFE]) }
        do {
            _ = try load("struct Broken: View { var body: some View { Text(\"a\" } }")
            Issue.record("a source with a syntax error was accepted")
        } catch {
            #expect(error.error == "the source cannot be loaded")
            #expect(error.diagnostics.contains { $0.severity == .error && $0.file == "pasted.swift" && $0.line == 1 })
        }
    }

    @Test func aRequestPastTheDaemonsLineLimitIsRefusedBeforeAnyIsSent() throws {
        let load = try load(Self.counter)
        #expect(load.refusal(lineLimit: 1 << 20) == nil)
        #expect(load.refusal(lineLimit: 200)?.error.contains("would pass milieud's line limit of 200 bytes") == true)
    }
}
