import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuInspector

@Suite struct ForwardedCallTests {
    private func call(_ text: String) throws(ForwardedCall.Refusal) -> ForwardedCall { try ForwardedCall(body: Array(text.utf8)) }

    private func refusal(_ text: String) -> ForwardedCall.Refusal? {
        do {
            _ = try call(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsWritesAndCallsArePassedOnWithTheirParams() throws {
        for method in ["graph/get", "view/tree", "graph/set", "graph/call", "schema/types", "initialize", "rpc.discover"] {
            let forwarded = try call(#"{"jsonrpc":"2.0","id":7,"method":"\#(method)","params":{"path":"login"}}"#)
            #expect(forwarded.method == method)
            #expect(forwarded.params == ["path": "login"])
            #expect(forwarded.id == 7)
        }
    }

    /// The allow-list is derived from each method's effect: every read method passes, so a read
    /// added to the protocol is one the page can use without another list to keep.
    @Test func everyReadMethodIsPassedOn() throws {
        for method in Methods.all where method.effect == .read {
            #expect(try call(#"{"method":"\#(method.name)"}"#).method == method.name)
        }
        #expect(Methods.all.filter { $0.effect == .read }.count >= 11)
    }

    @Test func methodsThatChangeTheTreeOrTheDaemonAreForbidden() {
        for method in [
            "shutdown", "schema/register", "view/mount", "view/unmount", "view/provide", "graph/transaction", "graph/reset", "watch",
            "unwatch",
        ] {
            let refused = refusal(#"{"jsonrpc":"2.0","id":"x","method":"\#(method)","params":{}}"#)
            #expect(refused?.error.errorKind == .forbidden, "\(method)")
            #expect(refused?.id == "x")
        }
    }

    @Test func onlyOneRequestObjectIsTaken() {
        #expect(refusal("[]")?.error.errorKind == .invalidRequest)
        #expect(refusal(#"{"id":1}"#)?.error.errorKind == .invalidRequest)
        #expect(refusal("{")?.error.errorKind == .parseError)
        #expect(refusal(#"{"method":"graph/get","params":[1]}"#)?.error.errorKind == .invalidParams)
    }

    /// What the daemon reads is what the page wrote (issue #26, item 9: `1e2` was passed on as `100.0`).
    @Test func paramsArePassedOnAsWrittenOnOneLine() throws {
        let written = #"{"id": 1,"params" : {"path":"xs","value":[1e2, -0, 1.50,"a\nb"]}, "method":"graph/set"}"#
        #expect(String(decoding: try call(written).paramsText, as: UTF8.self) == #"{"path":"xs","value":[1e2, -0, 1.50,"a\nb"]}"#)
        let pretty = "{\"method\":\"graph/get\",\r\n\"params\":{\n  \"path\": \"login\"\n}}"
        #expect(String(decoding: try call(pretty).paramsText, as: UTF8.self) == #"{   "path": "login" }"#)
        #expect(try call(#"{"method":"graph/get"}"#).paramsText == Array("{}".utf8))
    }

    @Test func theDaemonsAnswerGoesBackWithThePagesID() throws {
        let forwarded = try call(#"{"jsonrpc":"2.0","id":"page-3","method":"graph/get","params":{"path":"theme.fontScale"}}"#)
        let answer = forwarded.answer(["jsonrpc": "2.0", "id": 41, "result": 1.0])
        #expect(try JSON(parsing: answer) == ["jsonrpc": "2.0", "id": "page-3", "result": 1.0])
    }
}
