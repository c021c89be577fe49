import CMilieuRegex
import Synchronization

/// Whole-string matching of declared `pattern`s and the `matches` operator (SPEC §5.3) with
/// RE2: time linear in the text whatever the pattern, a pattern's length and compiled size
/// bounded.
///
/// Linear, with a factor that grows with the compiled program: where RE2's DFA would need more
/// states than its memory allows it falls back to its NFA, which steps every live instruction
/// per byte, and RE2 offers no way to know beforehand which it will run. So one match may cost at
/// most `maxWork` bytes × instructions, refused before it starts past that (`WorkExceeded`).
/// Measured (2026-12-02, this project's shared 2-core machine, RE2 2022-06-01): the NFA costs
/// 2–8 ns per byte × instruction on long texts, and on a text about as long as the program is
/// large the DFA first builds a state per byte before it gives up, so the worst grows faster than
/// the product: 47 ms at 2^20 (`[ab]*a[ab]{700}` on 1485 `a`s), 2.8 ms at 2^18, 0.9 ms at 2^17.
/// The DFA, when it copes, takes about 1.5 ms per MiB whatever the pattern.
/// Patterns are compiled when they are declared (a property's `pattern`, a `matches` in an
/// expression) and kept as long as a declaration holds them (`DeclaredPattern`): matching never
/// compiles, so no sequence of writes can make the daemon compile again and again (cycling
/// through more patterns than a cache holds cost 30 ms a write). At most `maxDeclaredPatterns`
/// distinct patterns are held at once, each at most `maxProgramBytes`.
enum WholeMatch {
    /// The longest pattern, in UTF-8 bytes (SPEC §5.3).
    static let maxPatternBytes = 1024
    /// The most memory one compiled pattern may take, RE2's matching caches included (SPEC §5.3).
    static let maxProgramBytes = 1 << 20
    /// The most work one match may take: UTF-8 bytes of text × instructions of the compiled
    /// program (SPEC §5.3): a few milliseconds at worst. The seed's e-mail pattern (23
    /// instructions) matches strings of up to 11397 bytes; `(.*){1000}` (9003), of up to 29.
    static let maxWork = 1 << 18
    /// How many distinct patterns declarations may hold at once (SPEC §5.3): with
    /// `maxProgramBytes`, what compiled patterns can take at most. A refused pattern is never kept.
    static let maxDeclaredPatterns = 128

    /// The patterns declarations hold, in this process.
    static let declared = PatternTable(capacity: maxDeclaredPatterns)

    /// Matching would cost more than `maxWork`: `bytes` of text × the program's `instructions`.
    struct WorkExceeded: Error {
        let bytes: Int
        let instructions: Int
    }

    /// Whether the whole of `text` matches `pattern`, looked up among the declared patterns
    /// (a property's `pattern` is kept as text in its `Constraints`, a `matches` one in its
    /// expression); a pattern nobody declared is compiled for this match alone, and a refused one
    /// matches nothing. Refuses, without matching, a text whose match could cost more than `maxWork`.
    static func matches(_ text: String, pattern: String) throws(WorkExceeded) -> Bool {
        if let held = declared.compiled(pattern) { return try matches(text, compiled: held) }
        guard case .success(let compiled) = compile(pattern) else { return false }
        return try matches(text, compiled: compiled)
    }

    private static func matches(_ text: String, compiled: CompiledPattern) throws(WorkExceeded) -> Bool {
        let bytes = text.utf8.count
        let (work, overflow) = bytes.multipliedReportingOverflow(by: compiled.instructions)
        guard !overflow, work <= maxWork else {
            throw WorkExceeded(bytes: bytes, instructions: compiled.instructions)
        }
        return compiled.matches(text)
    }

    /// Declares `pattern` in the process's table (`declared`).
    static func declare(_ pattern: String) -> Result<DeclaredPattern, Refusal> { declared.declare(pattern) }

    /// Why a pattern cannot be used.
    struct Refusal: Error {
        let reason: String
    }

    fileprivate static func compile(_ pattern: String) -> Result<CompiledPattern, Refusal> {
        let length = pattern.utf8.count
        guard length <= maxPatternBytes else {
            return .failure(Refusal(reason: "a pattern has at most \(maxPatternBytes) UTF-8 bytes; this one has \(length) UTF-8 bytes"))
        }
        var error = MILIEU_REGEX_OK
        let capacity = 256
        var message = [UInt8](repeating: 0, count: capacity)
        var text = pattern
        let regex = text.withUTF8 { bytes in
            milieu_regex_compile(bytes.baseAddress, bytes.count, Int64(maxProgramBytes), &error, &message, capacity)
        }
        if let regex { return .success(CompiledPattern(regex)) }
        let detail = String(decoding: message.prefix { $0 != 0 }, as: UTF8.self)
        return .failure(Refusal(reason: explanation(of: error) + ": " + detail))
    }

    /// What a pattern refused with `error` needs to change, before RE2's own words.
    private static func explanation(of error: milieu_regex_error) -> String {
        switch error {
        case MILIEU_REGEX_BACKREFERENCE:
            "backreferences are not supported: patterns are RE2 syntax, which matches in time linear in the text"
        case MILIEU_REGEX_UNSUPPORTED_GROUP:
            "patterns are RE2 syntax, which has no lookaround ((?=, (?!, (?<=, (?<!) and no backreferences; "
                + "a named group is (?P<name>…)"
        case MILIEU_REGEX_REPEAT_SIZE:
            "a repetition count is at most 1000, counts nested inside one another multiplied"
        case MILIEU_REGEX_TOO_LARGE:
            "the pattern compiles to more than \(maxProgramBytes / 1024) KiB, the most one pattern may take"
        default:
            "not a regular expression (RE2 syntax)"
        }
    }
}

/// Compiled patterns that declarations hold, each compiled once however many hold it, at most
/// `capacity` distinct ones at a time.
final class PatternTable: Sendable {
    let capacity: Int
    /// Each declared pattern and how many declarations hold it.
    private let entries = Mutex([String: (pattern: CompiledPattern, holders: Int)]())

    init(capacity: Int) { self.capacity = capacity }

    /// Declares `pattern`: compiles it, unless a declaration already holds it, and keeps it while
    /// the returned value lives; or why it cannot be used, for a declaration's `reason`.
    func declare(_ pattern: String) -> Result<DeclaredPattern, WholeMatch.Refusal> {
        if let held = hold(pattern, compiled: nil) { return .success(held) }
        // Compiled outside the lock: a slow compilation holds up no other thread's match.
        switch WholeMatch.compile(pattern) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let compiled):
            guard let held = hold(pattern, compiled: compiled) else {
                return .failure(
                    WholeMatch.Refusal(
                        reason: "at most \(capacity) distinct patterns can be declared at once, and that many are: "
                            + "reuse one of them, or constrain the value with oneOf, min and max"))
            }
            return .success(held)
        }
    }

    /// The program of `pattern`, if a declaration holds it.
    fileprivate func compiled(_ pattern: String) -> CompiledPattern? { entries.withLock { $0[pattern]?.pattern } }

    /// How many distinct patterns are held.
    var count: Int { entries.withLock { $0.count } }

    /// Whether a declaration holds `pattern`.
    func holds(_ pattern: String) -> Bool { entries.withLock { $0[pattern] != nil } }

    /// A hold on `pattern`, already declared or now `compiled`; nil when it is not declared and
    /// `compiled` is nil, or there is no room for another.
    private func hold(_ pattern: String, compiled: CompiledPattern?) -> DeclaredPattern? {
        entries.withLock { table -> DeclaredPattern? in
            if let entry = table[pattern] {
                table[pattern] = (entry.pattern, entry.holders + 1)
                return DeclaredPattern(pattern, in: self)
            }
            guard let compiled, table.count < capacity else { return nil }
            table[pattern] = (compiled, 1)
            return DeclaredPattern(pattern, in: self)
        }
    }

    /// Lets go of one hold on `pattern`: the last one drops its program.
    fileprivate func release(_ pattern: String) {
        entries.withLock { table in
            guard let entry = table[pattern] else { return }
            table[pattern] = entry.holders > 1 ? (entry.pattern, entry.holders - 1) : nil
        }
    }
}

/// A declared pattern, compiled, held by the declaration that uses it (a type, an environment key,
/// an expression): while one holds it, matches use its program, and the last to go frees it.
final class DeclaredPattern: Sendable {
    let text: String
    private let table: PatternTable

    fileprivate init(_ text: String, in table: PatternTable) {
        self.text = text
        self.table = table
    }

    deinit { table.release(text) }
}

/// One compiled RE2 program, freed when the declarations and every match using it have let go of it.
/// Unchecked Sendable: the program is never changed after it is compiled, and RE2 matches
/// through one program from several threads at once safely.
private final class CompiledPattern: @unchecked Sendable {
    private let regex: OpaquePointer
    /// The program's size: at most what each byte of text costs.
    let instructions: Int

    init(_ regex: OpaquePointer) {
        self.regex = regex
        instructions = Int(milieu_regex_program_size(regex))
    }

    deinit { milieu_regex_free(regex) }

    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in milieu_regex_full_match(regex, bytes.baseAddress, bytes.count) != 0 }
    }
}
