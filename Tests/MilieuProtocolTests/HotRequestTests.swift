import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

/// The hot path (`HotRequest`) against the general one (`IncomingMessage` + `Methods.decode`):
/// it takes the plain shapes clients send, and whatever it takes decodes to the same request
/// the general path makes of the line.
@Suite struct HotRequestTests {
    private func hot(_ text: String) -> HotRequest? {
        Array(text.utf8).withUnsafeBytes { HotRequest.read($0) }
    }

    /// The request the general path makes of `line`, as a hot request; nil when it makes an
    /// error, a batch, a notification or another method of it.
    private func general(_ line: [UInt8]) -> HotRequest? {
        guard case .success(.single(.request(let request))) = line.withUnsafeBytes({ IncomingMessage.parse($0) }),
            let id = request.id, request.paramsError == nil
        else { return nil }
        switch request.method {
        case GraphSetRequest.name:
            return (try? Methods.decode(GraphSetRequest.self, params: request.params)).map { .set(id: id, $0) }
        case GraphGetRequest.name:
            return (try? Methods.decode(GraphGetRequest.self, params: request.params)).map { .get(id: id, $0) }
        default: return nil
        }
    }

    /// Whether both paths read `line` as the same request, or the hot path leaves it alone.
    private func agree(_ line: [UInt8]) -> Bool {
        guard let fast = line.withUnsafeBytes({ HotRequest.read($0) }) else { return true }
        guard let slow = general(line) else { return false }
        switch (fast, slow) {
        case (.set(let a, let x), .set(let b, let y)): return a == b && x.path == y.path && x.value == y.value && x.ifVersion == y.ifVersion
        case (.get(let a, let x), .get(let b, let y)): return a == b && x.path == y.path
        default: return false
        }
    }

    @Test func theShapesClientsSendAreTaken() throws {
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"theme.accentColor","value":"red"}}"#,
            #"{"jsonrpc": "2.0", "id": "a-1", "method": "graph/set", "params": {"path": "/App/V.count", "value": {"x": [1, 2.5, null]}}}"#,
            #"{"method":"graph/set","params":{"value":true,"path":"login.isUserLoggedIn","ifVersion":12},"id":-3,"jsonrpc":"2.0"}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"graph/set","params":{"path":"p","value":"é \u00e9","ifVersion":null}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"graph/get","params":{"path":"theme"}}"#,
            " \t{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"graph/get\",\"params\":{\"path\":\"theme\"}}\r ",
        ]
        for line in lines {
            #expect(hot(line) != nil, "\(line)")
            #expect(agree(Array(line.utf8)), "\(line)")
        }
        guard case .set(let id, let set)? = hot(lines[2]) else {
            Issue.record("not a graph/set")
            return
        }
        #expect(id == .int(-3))
        #expect(set.path == "login.isUserLoggedIn" && set.value == .bool(true) && set.ifVersion == 12)
    }

    @Test func whatOnlyTheGeneralPathCanAnswerGoesThere() {
        let lines = [
            #"[{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme"}}]"#,  // a batch
            #"{"jsonrpc":"2.0","method":"graph/get","params":{"path":"theme"}}"#,  // a notification
            #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme"},"id":2}"#,  // a repeated member
            #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"pat\u0068":"theme"}}"#,  // an escaped key
            #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme","extra":1}}"#,  // an unknown param
            #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme","value":1}}"#,  // a param get does not take
            #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"theme"}}"#,  // no value
            #"{"jsonrpc":"2.0","id":1.5,"method":"graph/get","params":{"path":"theme"}}"#,  // an id echoed as written
            #"{"jsonrpc":"2.0","id":-0,"method":"graph/get","params":{"path":"theme"}}"#,
            #"{"jsonrpc":"2.0","id":9223372036854775808,"method":"graph/get","params":{"path":"theme"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"theme","value":1,"ifVersion":1.0}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"theme","value":01}}"#,  // invalid JSON
            #"{"jsonrpc":"2.0","id":1,"method":"graph/call","params":{"path":"login.login"}}"#,  // not hot
            #"{"jsonrpc":"1.0","id":1,"method":"graph/get","params":{"path":"theme"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme"}} x"#,  // trailing bytes
            #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme"}"#,  // unfinished
            "\u{FEFF}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"graph/get\",\"params\":{\"path\":\"theme\"}}",  // a byte order mark
        ]
        for line in lines { #expect(hot(line) == nil, "\(line)") }
        // Invalid UTF-8 in a value, and a key outside ASCII.
        var badUTF8 = Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"p","value":"_"}}"#.utf8)
        badUTF8[badUTF8.count - 4] = 0xC0
        #expect(badUTF8.withUnsafeBytes { HotRequest.read($0) } == nil)
        #expect(hot(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"päth":"theme"}}"#) == nil)
    }

    /// Keys and strings are scanned eight bytes at a time: a byte that ends a plain run (and DEL,
    /// which does not), at every position of a path around those words, is read as it is byte
    /// by byte.
    @Test func aByteThatEndsAPlainRunIsFoundAnywhereInIt() {
        let stops: [UInt8] = [0x00, 0x1F, UInt8(ascii: "\\"), 0x7F, 0x80, 0xC3, 0xFF]
        for length in 1..<20 {
            for position in 0..<length {
                for stop in stops {
                    var path = Array(repeating: UInt8(ascii: "a"), count: length)
                    path[position] = stop
                    for key in ["path", "value"] {
                        let line =
                            Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"#.utf8)
                            + (key == "path" ? [] : Array(#""path":"p","#.utf8))
                            + [UInt8(ascii: "\"")] + path + Array(#"":"#.utf8) + Array(#""x"}}"#.utf8)
                        // As a key: never plain, so left to the general path.
                        #expect(line.withUnsafeBytes { HotRequest.read($0) } == nil)
                    }
                    let line =
                        Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":""#.utf8) + path
                        + Array(#"","value":"v"}}"#.utf8)
                    #expect(agree(line), "\(path)")
                    // A control character or a byte that is no UTF-8 on its own is refused by both.
                    if stop < 0x20 || stop >= 0x80 { #expect(line.withUnsafeBytes { HotRequest.read($0) } == nil) }
                }
            }
        }
        let plain = Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"abcdefghijklmnopq","value":"v"}}"#.utf8)
        guard case .set(_, let request)? = plain.withUnsafeBytes({ HotRequest.read($0) }) else {
            Issue.record("a plain line was not taken")
            return
        }
        #expect(request.path == "abcdefghijklmnopq")
    }

    /// Paths read again come from `RecentPaths`: each still reads as written, among paths of
    /// the same length, past the number held, too long to hold, and after a longer one that
    /// begins with it.
    @Test func recentPathsReadEachPathAsWritten() {
        var recent = RecentPaths()
        func expectRead(_ path: String) {
            let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"\#(path)","value":1}}"#.utf8)
            guard case .set(_, let request)? = line.withUnsafeBytes({ HotRequest.read($0, recentPaths: &recent) }) else {
                Issue.record("\(path) was not read")
                return
            }
            #expect(request.path == path)
        }
        expectRead("/App/View0.value0.more")
        expectRead("/App/View0.value0")
        // Twelve of one length (more than are held), one held inline, one too long to hold.
        let paths = (0..<12).map { "/App/View\($0 % 10).value\($0 / 10)" } + ["theme.accent", "/App/" + String(repeating: "v", count: 300)]
        for round in 0..<60 { expectRead(paths[(round * 7) % paths.count]) }
    }

    @Test func aValueTooDeepForTheLimitIsLeftToTheGeneralPath() {
        let limits = JSONLimits(maxDepth: 4)
        let fits = #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"p","value":[[]]}}"#
        let deeper = #"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"p","value":[[[]]]}}"#
        #expect(Array(fits.utf8).withUnsafeBytes { HotRequest.read($0, limits: limits) } != nil)
        #expect(Array(deeper.utf8).withUnsafeBytes { HotRequest.read($0, limits: limits) } == nil)
        #expect(Array(deeper.utf8).withUnsafeBytes { IncomingMessage.parse($0, limits: limits) }.isFailure)
        // The params themselves are too deep for a limit of 1, in the clients' order too.
        let get = Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"p"}}"#.utf8)
        #expect(get.withUnsafeBytes { HotRequest.read($0, limits: JSONLimits(maxDepth: 1)) } == nil)
        #expect(get.withUnsafeBytes { IncomingMessage.parse($0, limits: JSONLimits(maxDepth: 1)) }.isFailure)
        #expect(get.withUnsafeBytes { HotRequest.read($0, limits: JSONLimits(maxDepth: 2)) } != nil)
    }

    /// Lines in the order and spacing the clients write them are read by comparing their fixed
    /// parts: every edit of one byte of such a line (a byte gone, doubled or replaced, the line
    /// cut short) is read as the general path reads it, or left to it.
    @Test func everyOneByteEditOfALineInTheClientsOrderIsReadAlikeOrLeftAlone() {
        let seeds = [
            #"{"jsonrpc":"2.0","id":12,"method":"graph/set","params":{"path":"a.b","value":{"k":[1,"x\n",true]}}}"#,
            #"{"jsonrpc":"2.0","id":"s","method":"graph/get","params":{"path":"theme.colorScheme"}}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"graph/set","params":{"path":"/App/V[\"a\"].n","value":"é"}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"graph/set","params":{"path":"p","value":[],"ifVersion":17}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"graph/set","params":{"path":"p","value":0,"ifVersion":null}}"#,
        ].map { Array($0.utf8) }
        let replacements = Array(#"{}[]":,\ 09.-e"tsgp/"#.utf8) + [0x00, 0x7F, 0xC3]
        var taken = 0
        for seed in seeds {
            #expect(seed.withUnsafeBytes { HotRequest.read($0) } != nil, "\(String(decoding: seed, as: UTF8.self))")
            var edits = (0...seed.count).map { Array(seed.prefix($0)) }
            for at in seed.indices {
                var gone = seed
                gone.remove(at: at)
                var doubled = seed
                doubled.insert(seed[at], at: at)
                edits += [gone, doubled]
                for byte in replacements where byte != seed[at] {
                    var replaced = seed
                    replaced[at] = byte
                    edits.append(replaced)
                }
            }
            for line in edits {
                if line.withUnsafeBytes({ HotRequest.read($0) }) != nil { taken += 1 }
                #expect(agree(line), "\(String(decoding: line, as: UTF8.self))")
            }
        }
        // Edits of the id, the path and the value keep a request both paths read.
        #expect(taken > 100)
    }

    /// Random edits of hot lines: every one the hot path takes, the general path reads the same.
    @Test func mutatedLinesAreReadAlikeOrLeftAlone() {
        let seeds = [
            #"{"jsonrpc":"2.0","id":12,"method":"graph/set","params":{"path":"a.b","value":{"k":[1,"x\n",true]},"ifVersion":3}}"#,
            #"{"jsonrpc":"2.0","id":"s","method":"graph/get","params":{"path":"theme.colorScheme"}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"graph/set","params":{"path":"theme.accentColor","value":"c00001-a"}}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,\ u0123456789.-+eE"tfnlrsaidpvmhgj/"#.utf8) + [0x00, 0x7F, 0xC3, 0xA9, 0xFF, 0x09]
        var generator = SeededGenerator(seed: 0x5EED)
        var taken = 0
        for round in 0..<20_000 {
            var line = seeds[round % seeds.count]
            for _ in 0...Int(generator.next() % 3) {
                let at = Int(generator.next() % UInt64(line.count))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0: line[at] = byte
                case 1: line.insert(byte, at: at)
                default: line.remove(at: at)
                }
            }
            if line.withUnsafeBytes({ HotRequest.read($0) }) != nil { taken += 1 }
            #expect(agree(line), "\(String(decoding: line, as: UTF8.self))")
        }
        // Many edits keep a valid hot request (another id, path or value): both paths saw those.
        #expect(taken > 1000)
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
