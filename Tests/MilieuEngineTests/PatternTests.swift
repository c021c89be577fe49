import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Declared `pattern`s and the `matches` operator: RE2 syntax, matched in linear time, with the
/// pattern's length and compiled size bounded, and what RE2 lacks refused at registration.
/// Serialized: the cache tests count entries of the one cache the suite shares.
@Suite(.serialized) struct PatternTests {
    /// A type `T` whose string `s` has `pattern` (and `default`, which must match it).
    private func declaration(name: String = "T", pattern: String, default value: String = "b") -> JSON {
        [
            "name": .string(name), "style": "observableObject",
            "properties": ["s": ["type": "string", "pattern": .string(pattern), "default": .string(value)]],
        ]
    }

    /// A type `T` whose computed `c` is `matches [s, pattern]`.
    private func matching(_ pattern: String) -> JSON {
        [
            "name": "T", "style": "observableObject", "properties": ["s": ["type": "string"]],
            "computed": ["c": ["type": "bool", "get": ["matches": [["get": "s"], .string(pattern)]]]],
        ]
    }

    /// The refusal of registering `declaration`, which must be `kind`.
    private func refusal(
        _ declaration: JSON, _ kind: EngineError.Kind, sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> (field: String, reason: String)
    {
        let graph = try makeGraph()
        let error = expectError(kind, sourceLocation: sourceLocation) { _ = try graph.register(declaration: declaration) }
        #expect(graph.registry["T"] == nil, sourceLocation: sourceLocation)
        return (error?.data["field"]?.stringValue ?? "", error?.data["reason"]?.stringValue ?? "")
    }

    /// `(a|a)*b` takes a backtracking engine 2^n steps on n `a`s; RE2 answers in one pass.
    @Test func aCatastrophicPatternRefusesAWritePromptly() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: declaration(pattern: "(a|a)*b"))
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["t": ["type": "T"]]])
        let error = expectError(.invalidValue) { try graph.set("/App/V.t.s", .string(String(repeating: "a", count: 48))) }
        #expect(error?.data["constraint"] == "pattern")
        try graph.set("/App/V.t.s", .string(String(repeating: "a", count: 48) + "b"))
    }

    @Test func aCatastrophicPatternInMatchesAnswersPromptly() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: matching("(a|a)*b"))
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["t": ["type": "T"]]])
        try graph.set("/App/V.t.s", .string(String(repeating: "a", count: 48)))
        #expect(try graph.get("/App/V.t.c").wire == false)
    }

    /// RE2's NFA steps every instruction of `(.*){1000}` (9003) per byte: 64 KiB would take
    /// about 1 s, 1 MiB 13 s. Refused before matching, naming the property, the length and the budget.
    @Test func aLongStringAgainstALargePatternIsRefusedBeforeMatching() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: declaration(pattern: "(.*){1000}"))
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["t": ["type": "T"]]])
        let error = expectError(.limitExceeded) { try graph.set("/App/V.t.s", .string(String(repeating: "a", count: 65_536))) }
        #expect(error?.data["limit"] == "patternWork")
        #expect(error?.data["max"] == .int(WholeMatch.maxWork))
        let message = error?.message ?? ""
        #expect(message.contains("/App/V.t.s") && message.contains("65536 UTF-8 bytes"), "\(message)")
        #expect(message.contains("\(WholeMatch.maxWork)") && message.contains("shorter string"), "\(message)")
        #expect(try graph.get("/App/V.t.s").wire == "b")
        try graph.set("/App/V.t.s", .string(String(repeating: "a", count: 29)))
    }

    /// Rule 13: even a secure value's length stays in the daemon.
    @Test func aRefusedSecureValueIsNotDescribed() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: [
            "name": "T", "style": "observableObject",
            "properties": ["s": ["type": "string", "pattern": "(.*){1000}", "secure": true]],
        ])
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["t": ["type": "T"]]])
        let error = expectError(.limitExceeded) { try graph.set("/App/V.t.s", .string(String(repeating: "a", count: 65_536))) }
        #expect(error?.data["limit"] == "patternWork")
        #expect(error?.message.contains("/App/V.t.s") == true && error?.message.contains("65536") == false, "\(error?.message ?? "")")
    }

    @Test func anInitialValueAgainstALargePatternIsRefusedBeforeMatching() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: declaration(pattern: "(.*){1000}"))
        let long = JSON.string(String(repeating: "a", count: 65_536))
        let error = expectError(.limitExceeded) {
            try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["t": ["type": "T", "init": ["s": long]]]])
        }
        #expect(error?.data["limit"] == "patternWork")
        #expect(error?.message.contains("T.s") == true, "\(error?.message ?? "")")
    }

    @Test func aDefaultAgainstALargePatternIsRefusedBeforeMatching() throws {
        let graph = try makeGraph()
        let error = expectError(.limitExceeded) {
            _ = try graph.register(declaration: declaration(pattern: "(.*){1000}", default: String(repeating: "a", count: 65_536)))
        }
        #expect(error?.data["limit"] == "patternWork")
        #expect(error?.message.contains("properties.s.default") == true, "\(error?.message ?? "")")
        #expect(graph.registry["T"] == nil)
    }

    /// The seed's e-mail pattern (23 instructions) is checked on strings of up to 11397 bytes.
    @Test func theSeedEmailPatternChecksLongStrings() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: declaration(pattern: Login.emailPattern, default: "a@b.co"))
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["t": ["type": "T"]]])
        let local = String(repeating: "a", count: 11_000)
        try graph.set("/App/V.t.s", .string(local + "@b.co"))
        let error = expectError(.invalidValue) { try graph.set("/App/V.t.s", .string(local + "@b")) }
        #expect(error?.data["constraint"] == "pattern")
        expectError(.limitExceeded) { try graph.set("/App/V.t.s", .string(local + String(repeating: "a", count: 1000) + "@b.co")) }
    }

    /// A 39-byte pattern whose nested counts multiply to 10^12 is refused before anything is built.
    @Test func nestedRepetitionCountsPastAThousandAreRefused() throws {
        let (field, reason) = try refusal(declaration(pattern: "(((a{0,1000}){0,1000}){0,1000}){0,1000}", default: ""), .invalidDeclaration)
        #expect(field == "properties.s.pattern")
        #expect(reason.contains("at most 1000"), "\(reason)")
    }

    @Test func aPatternCompilingPastTheMemoryBoundIsRefused() throws {
        let (field, reason) = try refusal(declaration(pattern: "\\p{L}{1000}", default: ""), .invalidDeclaration)
        #expect(field == "properties.s.pattern")
        #expect(reason.contains("\(WholeMatch.maxProgramBytes / 1024) KiB"), "\(reason)")
    }

    @Test func aPatternPastTheLengthLimitIsRefused() throws {
        let (field, reason) = try refusal(declaration(pattern: String(repeating: "b?", count: 513)), .invalidDeclaration)
        #expect(field == "properties.s.pattern")
        #expect(reason.contains("1026 UTF-8 bytes") && reason.contains("at most 1024"), "\(reason)")
        let graph = try makeGraph()
        _ = try graph.register(declaration: declaration(pattern: String(repeating: "b?", count: 512)))
    }

    @Test func aMatchesPatternPastTheLengthLimitIsRefused() throws {
        let (field, reason) = try refusal(matching(String(repeating: "b?", count: 513)), .invalidParams)
        #expect(field == "/computed/c/get/matches/1")
        #expect(reason.contains("at most 1024"), "\(reason)")
    }

    @Test func aBackreferenceIsRefusedSayingWhy() throws {
        let (field, reason) = try refusal(declaration(pattern: "(b)\\1?", default: "b"), .invalidDeclaration)
        #expect(field == "properties.s.pattern")
        #expect(reason.contains("backreferences"), "\(reason)")
        let (pointer, why) = try refusal(matching("(b)\\1"), .invalidParams)
        #expect(pointer == "/computed/c/get/matches/1")
        #expect(why.contains("backreferences"), "\(why)")
    }

    @Test func lookaroundIsRefusedSayingWhy() throws {
        for pattern in ["(?=b)b", "(?!a)b", "a(?<=a)b?"] {
            let (field, reason) = try refusal(declaration(pattern: pattern, default: "b"), .invalidDeclaration)
            #expect(field == "properties.s.pattern")
            #expect(reason.contains("lookaround"), "\(pattern): \(reason)")
        }
    }

    /// Issue #26.7: a declared pattern is compiled once and kept while its declaration lives, so no
    /// sequence of writes can make the daemon compile again (cycling 100 types through a 64-entry
    /// cache compiled at every write: 30 ms a write).
    @Test func aDeclaredPatternIsKeptWhileItsTypeIsAndMatchingNeverEvictsIt() throws {
        let graph = try makeGraph()
        let patterns = (0..<(2 * 64)).map { "(z\($0)|)[a-z]{0,9}" }
        for (index, pattern) in patterns.enumerated() {
            try graph.register(ModelType(declaration: declaration(name: "Cycled\(index)", pattern: pattern, default: "")))
        }
        for _ in 0..<3 {
            for (index, pattern) in patterns.enumerated() {
                try graph.mount(["parent": "/App", "name": "V", "state": ["t": ["$new": ["type": .string("Cycled\(index)")]]]])
                try graph.set("/App/V.t.s", "abc")
                try graph.unmount("/App/V")
                #expect(WholeMatch.declared.holds(pattern))
            }
        }
        #expect(patterns.allSatisfy(WholeMatch.declared.holds))
    }

    @Test func aTableHoldsEachPatternOnceAndAtMostItsCapacity() throws {
        let table = PatternTable(capacity: 2)
        var holds = [try table.declare("a+").get(), try table.declare("a+").get()]
        let second = try table.declare("b+").get()
        #expect(table.count == 2)
        guard case .failure(let refusal) = table.declare("c+") else {
            Issue.record("a third pattern was held")
            return
        }
        #expect(refusal.reason.contains("at most 2 distinct patterns"))
        // A pattern stays while anyone holds it; its last holder frees its room.
        holds.removeLast()
        #expect(table.holds("a+"))
        holds.removeLast()
        #expect(!table.holds("a+"))
        #expect(throws: Never.self) { _ = try table.declare("c+").get() }
        #expect(table.holds("b+") && second.text == "b+")
    }

    @Test func aRefusedOrFailedDeclarationHoldsNoPattern() throws {
        let pattern = "(refused"
        guard case .failure = WholeMatch.declare(pattern) else {
            Issue.record("\(pattern) was declared")
            return
        }
        #expect(!(try WholeMatch.matches("(refused", pattern: pattern)))
        #expect(!WholeMatch.declared.holds(pattern))
        // A registration that fails after its pattern was checked lets go of the pattern.
        let graph = try makeGraph()
        let held = "held-only-by-a-failed-type[0-9]"
        expectError(.invalidDeclaration) {
            try graph.register(
                ModelType(declaration: declaration(name: "Login", pattern: held, default: "held-only-by-a-failed-type1")))
        }
        #expect(!WholeMatch.declared.holds(held))
    }
}
