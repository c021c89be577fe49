import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Declared `pattern`s and the `matches` operator: RE2 syntax, matched in linear time, with the
/// pattern's length and compiled size bounded, and what RE2 lacks refused at registration.
/// Serialized: the cache tests count entries of the one cache the suite shares.
@Suite(.serialized) struct PatternTests {
    /// A type `T` whose string `s` has `pattern` (and `default`, which must match it).
    private func declaration(pattern: String, default value: String = "b") -> JSON {
        [
            "name": "T", "style": "observableObject",
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

    @Test func theCacheHoldsAtMostItsBound() {
        for index in 0..<(3 * WholeMatch.cacheCapacity) {
            #expect(WholeMatch.matches("x\(index)", pattern: "x\(index)"))
            #expect(WholeMatch.cachedCount <= WholeMatch.cacheCapacity)
        }
    }

    @Test func theCacheKeepsTheMostRecentlyUsedPattern() {
        let kept = "kept[0-9]+"
        #expect(WholeMatch.matches("kept1", pattern: kept))
        for index in 0..<(2 * WholeMatch.cacheCapacity) {
            _ = WholeMatch.matches("", pattern: "y\(index)")
            if index.isMultiple(of: 8) { _ = WholeMatch.matches("kept2", pattern: kept) }
        }
        #expect(WholeMatch.isCached(kept))
    }

    @Test func aRefusedPatternIsNotCached() {
        let pattern = "(refused"
        #expect(WholeMatch.refusal(of: pattern) != nil)
        #expect(!WholeMatch.matches("(refused", pattern: pattern))
        #expect(!WholeMatch.isCached(pattern))
    }
}
