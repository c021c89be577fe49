import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// Hostile lines, each with the answer it must get; after each the daemon is alive and, where
/// the contract says so, the same connection still works.
@Suite(.serialized) struct HostileInputTests {
    struct Hostile: Sendable, CustomStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// The error code expected, nil for a success, or no answer at all when `silent`.
        let code: Int?
        var silent = false
        var description: String { name }
    }

    static let valid = #"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"login.email"}}"#

    static func line(_ text: String) -> [UInt8] { Array(text.utf8) + [10] }

    static let cases: [Hostile] = [
        Hostile(
            name: "invalid UTF-8",
            bytes: Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","x":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8) + [10],
            code: -32700),
        Hostile(
            name: "overlong UTF-8", bytes: Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8) + [10],
            code: -32700),
        Hostile(
            name: "deep nesting", bytes: line(String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)), code: -32700),
        Hostile(
            name: "huge number", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"value":1e400}}"#),
            code: -32700),
        Hostile(
            name: "huge integer id",
            bytes: line(#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"graph/get","params":{"path":"login.email"}}"#),
            code: nil),
        Hostile(name: "duplicate keys", bytes: line(#"{"jsonrpc":"2.0","id":1,"id":2,"method":"graph/get"}"#), code: -32700),
        Hostile(
            name: "NUL byte", bytes: Array(#"{"jsonrpc":"2.0","id":1,"#.utf8) + [0] + Array(#""method":"x"}"#.utf8) + [10], code: -32700),
        Hostile(
            name: "lone surrogate", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"\ud800"}}"#), code: -32700),
        Hostile(name: "unescaped control character", bytes: line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}"), code: -32700),
        Hostile(name: "byte order mark", bytes: [0xEF, 0xBB, 0xBF] + line(valid), code: -32700),
        Hostile(name: "trailing garbage", bytes: line(valid + " x"), code: -32700),
        Hostile(name: "CRLF", bytes: Array(valid.utf8) + [13, 10], code: nil),
        Hostile(name: "empty lines", bytes: [10, 13, 10, 32, 32, 10], code: nil, silent: true),
        Hostile(name: "a string, not a request", bytes: line(#""hello""#), code: -32600),
        Hostile(name: "null", bytes: line("null"), code: -32600),
        Hostile(name: "params as a number", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":3}"#), code: -32600),
        Hostile(
            name: "params by position", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":["login.email"]}"#),
            code: -32602),
        Hostile(name: "method as a number", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":7}"#), code: -32600),
        Hostile(name: "wrong jsonrpc", bytes: line(#"{"jsonrpc":"1.0","id":1,"method":"graph/get"}"#), code: -32600),
        Hostile(
            name: "path of the wrong type", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":[]}}"#),
            code: -32602),
        Hostile(
            name: "unknown path", bytes: line(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"/App/No/Such.view"}}"#),
            code: -32001),
        Hostile(
            name: "a catastrophic pattern checking its default",
            bytes: line(
                #"{"jsonrpc":"2.0","id":1,"method":"schema/register","params":{"types":[{"name":"T","style":"observable","properties":{"s":{"type":"string","pattern":"(a|a)*b","default":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}}]}}"#
            ), code: -32008),
        Hostile(
            name: "nested repetition counts",
            bytes: line(
                #"{"jsonrpc":"2.0","id":1,"method":"schema/register","params":{"types":[{"name":"T","style":"observable","properties":{"s":{"type":"string","pattern":"(((a{0,1000}){0,1000}){0,1000}){0,1000}"}}}]}}"#
            ), code: -32008),
        Hostile(
            name: "a pattern past 1024 bytes",
            bytes: line(
                #"{"jsonrpc":"2.0","id":1,"method":"schema/register","params":{"types":[{"name":"T","style":"observable","properties":{"s":{"type":"string","pattern":""#
                    + String(repeating: "a?", count: 513) + #""}}}]}}"#), code: -32008),
        Hostile(
            name: "a default of nearly a line against a pattern of 9003 instructions",
            bytes: line(
                #"{"jsonrpc":"2.0","id":1,"method":"schema/register","params":{"types":[{"name":"T","style":"observable","properties":{"s":{"type":"string","pattern":"(.*){1000}","default":""#
                    + String(repeating: "a", count: 1_000_000) + #""}}}]}}"#), code: -32014),
        Hostile(
            name: "a backreference in matches",
            bytes: line(
                #"{"jsonrpc":"2.0","id":1,"method":"schema/register","params":{"types":[{"name":"T","style":"observable","properties":{"s":{"type":"string"}},"computed":{"c":{"type":"bool","get":{"matches":[{"get":"s"},"(a)\\1"]}}}}]}}"#
            ), code: -32602),
        Hostile(
            name: "a notification that fails", bytes: line(#"{"jsonrpc":"2.0","method":"graph/set","params":{"path":"x"}}"#), code: nil,
            silent: true),
    ]

    @Test(arguments: cases)
    func aHostileLineGetsItsErrorAndTheConnectionGoesOn(_ hostile: Hostile) throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.sendRaw(hostile.bytes)
        if hostile.silent {
            #expect(try client.isQuiet(for: 0.2))
        } else {
            let reply = try #require(try client.readMessage())
            if let code = hostile.code {
                #expect(reply["error"]?["code"] == .int(code), "\(reply.jsonText)")
                #expect(reply["error"]?["data"]?["kind"]?.stringValue != nil)
            } else {
                #expect(reply["result"] != nil, "\(reply.jsonText)")
            }
        }
        #expect(try client.call("graph/get", ["path": "login.email"]) == "")
        #expect(daemon.process.isRunning)
    }

    @Test func aPartialLineWaitsForTheRestAcrossReads() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let bytes = Array((Self.valid + "\n").utf8)
        for byte in bytes {
            try client.sendRaw([byte])
        }
        #expect(try client.readMessage()?["result"] == "")
    }

    @Test func aLineOverTheLimitClosesOnlyThatConnection() throws {
        let daemon = try Daemon(arguments: ["--max-line", "1024"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 4096))
        let reply = try client.readMessage()
        #expect(reply?["error"]?["data"]?["kind"] == "MessageTooLarge")
        #expect(reply?["error"]?["data"]?["limit"] == 1024)
        #expect(try client.readMessage() == nil)
        #expect(try daemon.connect().call("graph/get", ["path": "login.email"]) == "")
    }

    @Test func aBatchOfManyInvalidElementsIsAnsweredElementByElement() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.sendLine("[" + Array(repeating: "1", count: 1000).joined(separator: ",") + "]")
        let reply = try client.readMessage()
        #expect(reply?.arrayValue?.count == 1000)
        #expect(reply?.arrayValue?.allSatisfy { $0["error"]?["code"] == -32600 } == true)
    }

    /// One line: a batch of `count` mounts of `/App/R[i]`, each with the state `n` = i.
    private func batchOfMounts(_ count: Int) -> String {
        let mounts = (0..<count).map { i in
            #"{"jsonrpc":"2.0","id":\#(i),"method":"view/mount","params":{"parent":"/App","name":"R","id":\#(i),"state":{"n":\#(i)}}}"#
        }
        return "[" + mounts.joined(separator: ",") + "]"
    }

    /// 8,000 mounts in one line (just under the 1 MiB line limit), then the connection goes: its views all go with it, and
    /// another client is served throughout (issue #15 item 3).
    @Test func aHugeBatchOfMountsIsAnsweredAndGoesWithItsConnection() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let observer = try daemon.connect()
        do {
            let client = try daemon.connect()
            try client.sendLine(batchOfMounts(8_000))
            let reply = try client.readMessage(timeout: 60)
            #expect(reply?.arrayValue?.count == 8_000)
            #expect(reply?.arrayValue?.allSatisfy { $0["result"] != nil } == true)
            #expect(try observer.call("graph/get", ["path": "/App/R[7999].n"]) == 7999)
        }
        // The client is gone: its close takes every view it mounted, and nothing else.
        var gone = false
        for _ in 0..<500 where !gone {
            gone = try observer.request("graph/get", ["path": "/App/R[7999]"])["error"]?["data"]?["kind"] == "UnknownPath"
            if !gone { usleep(10_000) }
        }
        #expect(gone)
        #expect(try observer.failure("graph/get", ["path": "/App/R[0]"])["data"]?["kind"] == "UnknownPath")
        #expect(try observer.call("graph/get", ["path": "login.email"]) == "")
    }

    /// A close of 5,000 views is spread over turns, one commit each, so that other clients are
    /// answered in between: a watcher sees the unmounts under several versions.
    @Test func aLargeCloseIsSpreadOverSeveralVersions() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let watcher = try daemon.connect()
        do {
            let client = try daemon.connect()
            try client.sendLine(batchOfMounts(5_000))
            #expect(try client.readMessage(timeout: 60)?.arrayValue?.count == 5_000)
            _ = try watcher.call("watch", ["views": ["/App"]])
        }
        var versions: Set<Int> = []
        for _ in 0..<5_000 {
            let note = try watcher.nextNotification(timeout: 30)
            #expect(note["method"] == "view/didUnmount")
            if let version = note["params"]?["version"]?.intValue { versions.insert(version) }
        }
        #expect(versions.count >= 5, "\(versions.count) versions")
    }

    @Test func randomBytesNeverStopTheDaemon() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        var generator = SeededGenerator(seed: 20_261_130)
        let seeds = [
            Self.valid,
            #"{"jsonrpc":"2.0","id":2,"method":"view/mount","params":{"parent":"/App","name":"V","state":{"a":[1,{"b":null}]},"body":["{a}"]}}"#,
        ]
        for _ in 0..<300 {
            let client = try daemon.connect()
            var bytes = Array(seeds.randomElement(using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                default: bytes.remove(at: position)
                }
            }
            try client.sendRaw(bytes + [10])
        }
        #expect(try daemon.connect().call("graph/get", ["path": "login.email"]) == "")
    }
}
