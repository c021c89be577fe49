import Foundation
import MilieuJSON
import MilieuProtocol
import Testing

/// JSON-RPC 2.0 envelopes and Milieu's method params, decoded without a server.
@Suite struct MessageTests {
    private func parse(_ text: String) -> Result<IncomingMessage, RPCError> {
        Array(text.utf8).withUnsafeBytes { IncomingMessage.parse($0) }
    }

    private func single(_ text: String) -> RequestOrError? {
        if case .success(.single(let message)) = parse(text) { return message }
        return nil
    }

    @Test func aVersionResultFromItsTemplateIsTheGenericLine() {
        for id in [RequestID.int(-7), .string("a\"b"), .number("1e400"), .null] {
            var generic = JSONWriter()
            Envelope.result(id: id, VersionResult(version: 123_456).wire, into: &generic)
            var template = JSONWriter()
            Envelope.versionResult(id: id, version: 123_456, into: &template)
            #expect(template.text == generic.text)
        }
    }

    @Test func aParamPastTheSixtyFourthIsCheckedByName() throws {
        let params = JSONObject((0..<70).map { ("k\($0)", JSON.int($0)) })
        var readAll = ParamsReader(params)
        for index in 0..<70 { #expect(readAll.optional("k\(index)") == .int(index)) }
        try readAll.rejectUnknown()
        var readSome = ParamsReader(params)
        for index in 0..<70 where index != 66 { _ = readSome.optional("k\(index)") }
        #expect(throws: RPCError.self) { try readSome.rejectUnknown() }
        var readFirst = ParamsReader(params)
        for index in 1..<70 { _ = readFirst.optional("k\(index)") }
        #expect(throws: RPCError.self) { try readFirst.rejectUnknown() }
    }

    @Test func notJSONIsAParseError() {
        guard case .failure(let error) = parse("{oops") else { Issue.record("parsed"); return }
        #expect(error.code == -32700 && error.kind == "ParseError")
    }

    @Test func anEmptyBatchIsOneInvalidRequest() {
        guard case .failure(let error) = parse("[]") else { Issue.record("parsed"); return }
        #expect(error.code == -32600)
    }

    @Test func envelopeRules() {
        let cases: [(String, Int?)] = [
            (#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"x"}}"#, nil),
            (#"{"jsonrpc":"2.0","method":"graph/get"}"#, nil),
            (#"{"jsonrpc":"1.0","id":1,"method":"x"}"#, -32600),
            (#"{"jsonrpc":"2.0","id":1}"#, -32600),
            (#"{"jsonrpc":"2.0","id":{},"method":"x"}"#, -32600),
            (#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#, -32600),
            ("5", -32600),
        ]
        for (text, code) in cases {
            switch single(text) {
            case .request?: #expect(code == nil, "\(text)")
            case .invalid(_, let error)?: #expect(error.code == code, "\(text)")
            case nil: Issue.record("no message for \(text)")
            }
        }
    }

    @Test func anInvalidRequestKeepsItsIDWhenItHasAValidOne() {
        guard case .invalid(let id, _)? = single(#"{"jsonrpc":"2.0","id":"abc","method":7}"#) else { Issue.record("valid"); return }
        #expect(id == .string("abc"))
    }

    /// Writes the response to `text`'s request and returns its id as written.
    private func echoedID(_ text: String) -> String? {
        guard case .request(let request)? = single(text), let id = request.id else { return nil }
        var writer = JSONWriter()
        Envelope.result(id: id, .null, into: &writer)
        let line = writer.text
        guard let start = line.range(of: #""id":"#)?.upperBound, let end = line.range(of: #","result""#)?.lowerBound else { return nil }
        return String(line[start..<end])
    }

    @Test(arguments: ["9223372036854775808", "1e400", "1.50", "-0", "-1E-400", "12345678901234567890123", "0.1e+2"])
    func aNumericIDIsEchoedAsItWasWritten(id: String) {
        #expect(echoedID(#"{"jsonrpc":"2.0","id":"# + id + #","method":"graph/get","params":{"path":"x"}}"#) == id)
    }

    @Test func aSmallIntegerIDIsKeptAsAnInteger() {
        guard case .request(let request)? = single(#"{"jsonrpc":"2.0","id":42,"method":"x"}"#) else { Issue.record("invalid"); return }
        #expect(request.id == .int(42))
    }

    @Test func theIDsOfABatchAreEachEchoedAsWritten() {
        let text =
            #"[{"jsonrpc":"2.0","id":1.50,"method":"a"},{"jsonrpc":"2.0","id":7,"method":"b"},"#
            + #"{"jsonrpc":"1.0","id":2e400,"method":"c"},{"jsonrpc":"2.0","id":-0,"method":"d","params":{"id":1.0}}]"#
        guard case .success(.batch(let items)) = parse(text) else { Issue.record("not a batch"); return }
        let ids = items.map { item -> RequestID? in
            switch item {
            case .request(let request): request.id
            case .invalid(let id, _): id
            }
        }
        #expect(ids == [.number("1.50"), .int(7), .number("2e400"), .number("-0")])
    }

    @Test func aNumberOutOfRangeOutsideTheIDIsStillAParseError() {
        guard case .failure(let error) = parse(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"id":1e400}}"#) else {
            Issue.record("parsed"); return
        }
        #expect(error.code == -32700)
    }

    @Test func positionalParamsAreInvalidParams() {
        guard case .request(let request)? = single(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":["x"]}"#) else {
            Issue.record("not a request"); return
        }
        #expect(request.paramsError?.code == -32602)
    }

    @Test func batchElementsAreCheckedOneByOne() {
        guard case .success(.batch(let items)) = parse(#"[{"jsonrpc":"2.0","id":1,"method":"a"},1,{"jsonrpc":"2.0","method":"b"}]"#) else {
            Issue.record("not a batch"); return
        }
        #expect(items.count == 3)
        if case .invalid = items[1] {} else { Issue.record("element 1 should be invalid") }
    }

    @Test func methodParamsAreDecodedAndCheckedByName() throws {
        let set = try #require(
            try Methods.decode(method: "graph/set", params: ["path": "a.b", "value": [1], "ifVersion": 3]) as? GraphSetRequest)
        #expect(set.path == "a.b" && set.value == [1] && set.ifVersion == 3)
        let failures: [(String, JSONObject, String)] = [
            ("graph/set", ["path": "a"], "/value"),
            ("graph/get", ["path": 1], "/path"),
            ("graph/get", ["path": "x", "extra": true], "/extra"),
            ("watch", ["paths": ["a", 2]], "/paths/1"),
            ("graph/transaction", ["ops": [["method": "shutdown"]]], "/ops/0/method"),
            ("graph/transaction", ["ops": [["method": "graph/set", "params": ["path": "a"]]]], "/ops/0/params/value"),
        ]
        for (method, params, field) in failures {
            #expect(throws: RPCError.self) { try Methods.decode(method: method, params: params) }
            do {
                _ = try Methods.decode(method: method, params: params)
            } catch {
                #expect(error.code == -32602)
                #expect(error.data["field"] == .string(field), "\(method) \(params)")
            }
        }
    }

    @Test func unknownMethodsAreMethodNotFound() {
        do {
            _ = try Methods.decode(method: "graph/delete", params: [:])
            Issue.record("decoded")
        } catch {
            #expect(error.code == -32601 && error.data["method"] == "graph/delete")
        }
    }

    /// Every kind's code as `error.schema.json` states it (its `if kind … then code` branches), and
    /// every kind the schema knows is one of ours: the Swift enum and the schema cannot drift.
    @Test func everyErrorCodeIsTheOneTheSchemaStates() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../protocol/schemas/error.schema.json")
        let schema = try JSON(parsing: String(contentsOf: url, encoding: .utf8))
        var stated: [String: Int] = [:]
        for branch in schema["properties"]?["error"]?["allOf"]?.arrayValue ?? [] {
            guard let kind = branch["if"]?["properties"]?["data"]?["properties"]?["kind"]?["const"]?.stringValue,
                let code = branch["then"]?["properties"]?["code"]?["const"]?.intValue
            else { continue }
            stated[kind] = code
        }
        let listed = (schema["properties"]?["error"]?["properties"]?["data"]?["properties"]?["kind"]?["enum"]?.arrayValue ?? [])
            .compactMap(\.stringValue)
        #expect(Set(listed) == Set(ErrorKind.allCases.map(\.rawValue)))
        #expect(stated.count == ErrorKind.allCases.count)
        for kind in ErrorKind.allCases {
            #expect(stated[kind.rawValue] == kind.code, "\(kind.rawValue)")
            #expect(RPCError(kind, message: "m").code == kind.code)
        }
        #expect(Set(ErrorKind.allCases.map(\.code)).count == ErrorKind.allCases.count, "each kind has its own code")
    }

    @Test func envelopesAreSingleLinesOfJSON() throws {
        var writer = JSONWriter()
        Envelope.result(id: .int(7), ["version": 2], into: &writer)
        #expect(writer.text == #"{"jsonrpc":"2.0","id":7,"result":{"version":2}}"#)
        let line = Envelope.errorLine(id: .null, .methodNotFound("x"))
        let parsed = try JSON(parsing: Array(line.dropLast()))
        #expect(parsed["error"]?["data"]?["kind"] == "MethodNotFound")
        #expect(line.last == 10 && !line.dropLast().contains(10))
    }
}
