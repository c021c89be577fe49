import Testing

@testable import MilieuInspector

@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String) -> HTTPParseOutcome { HTTPRequestParser.parse(Array(text.utf8)[...]) }

    private func refusal(_ text: String) -> HTTPStatus? {
        if case .refused(let status, _) = parse(text) { return status }
        return nil
    }

    @Test func aGetWithItsQueryIsRead() throws {
        let text = "GET /events?token=abc%20d&x=1&token=second HTTP/1.1\r\nHost: 127.0.0.1:8\r\nAccept:  text/event-stream \r\n\r\n"
        guard case .complete(let request, let consumed) = parse(text) else {
            Issue.record("not complete")
            return
        }
        #expect(consumed == text.utf8.count)
        #expect(request.method == "GET")
        #expect(request.path == "/events")
        #expect(request.query == ["token": "abc d", "x": "1"])
        #expect(request.headers["accept"] == "text/event-stream")
        #expect(request.body.isEmpty)
    }

    /// The token is judged from the request line alone (issue #26, item 8).
    @Test func theRequestLinesQueryIsReadBeforeTheHeadEnds() {
        let query = { (text: String) in HTTPRequestParser.query(ofRequestLineIn: Array(text.utf8)[...]) }
        #expect(query("GET /?token=abc HTTP/1.1") == nil, "the line is not finished")
        #expect(query("GET /?token=abc HTTP/1.1\r\nHost: x") == .success(["token": "abc"]))
        #expect(query("POST /rpc HTTP/1.1\n") == .success([:]))
        #expect(query("GET / HTTP/2\r\n") == .failure(HTTPRefusal(status: .versionNotSupported, reason: "HTTP/2 is not HTTP/1.1")))
        #expect(query("GET /?token=%zz HTTP/1.1\r\n") == .failure(HTTPRefusal(status: .badRequest, reason: "a malformed query string")))
        #expect(
            query("GET /?" + String(repeating: "a", count: 9000))
                == .failure(HTTPRefusal(status: .headersTooLarge, reason: "the request head passes 8192 bytes")))
    }

    @Test func aPostWaitsForItsWholeBody() {
        let text = "POST /rpc?token=t HTTP/1.1\r\nContent-Length: 7\r\n\r\n{\"a\":1}"
        #expect(parse(String(text.dropLast())) == .incomplete)
        guard case .complete(let request, _) = parse(text) else {
            Issue.record("not complete")
            return
        }
        #expect(request.body == Array("{\"a\":1}".utf8))
    }

    @Test func bytesArrivingOneAtATimeMakeOneRequestOnlyAtTheEnd() {
        let bytes = Array("POST /rpc HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}".utf8)
        for end in 0..<bytes.count { #expect(HTTPRequestParser.parse(bytes[..<end]) == .incomplete) }
        if case .complete(_, let consumed) = HTTPRequestParser.parse(bytes[...]) {
            #expect(consumed == bytes.count)
        } else {
            Issue.record("the whole request was not read")
        }
    }

    @Test func aHeadPastTheBoundIsRefusedWithoutItsEnd() {
        let text = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: HTTPRequestParser.maxHeadBytes)
        #expect(refusal(text) == .headersTooLarge)
    }

    @Test func aBodyPastTheBoundIsRefusedBeforeItArrives() {
        #expect(refusal("POST /rpc HTTP/1.1\r\nContent-Length: \(HTTPRequestParser.maxBodyBytes + 1)\r\n\r\n") == .payloadTooLarge)
    }

    @Test func tooManyHeadersAreRefused() {
        let headers = (0...HTTPRequestParser.maxHeaders).map { "X-\($0): 1\r\n" }.joined()
        #expect(refusal("GET / HTTP/1.1\r\n\(headers)\r\n") == .headersTooLarge)
    }

    @Test func malformedRequestLinesAreBadRequests() {
        for line in ["GET /\r\n\r\n", "get / HTTP/1.1\r\n\r\n", "GET http://x/ HTTP/1.1\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n"] {
            #expect(refusal(line) == .badRequest, "\(line)")
        }
        #expect(refusal("GET / HTTP/2.0\r\n\r\n") == .versionNotSupported)
    }

    @Test func malformedHeadersAreBadRequests() {
        #expect(refusal("GET / HTTP/1.1\r\nno colon\r\n\r\n") == .badRequest)
        #expect(refusal("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n") == .badRequest)
        #expect(refusal("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n") == .badRequest)
    }

    @Test func contentLengthMustBeOneNumber() {
        #expect(refusal("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == .badRequest)
        #expect(refusal("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == .badRequest)
    }

    @Test func chunkedBodiesAreNotTaken() {
        #expect(refusal("POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == .notImplemented)
    }

    @Test func aBadEscapeInTheQueryIsABadRequest() {
        #expect(refusal("GET /?token=%zz HTTP/1.1\r\n\r\n") == .badRequest)
        #expect(refusal("GET /?token=%ff HTTP/1.1\r\n\r\n") == .badRequest)
    }
}
