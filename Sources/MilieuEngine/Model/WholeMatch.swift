import CMilieuRegex
import Synchronization

/// Whole-string matching of declared `pattern`s and the `matches` operator (SPEC §5.3) with
/// RE2: time linear in the text whatever the pattern, a pattern's length and compiled size
/// bounded, compiled patterns kept in a least-recently-used cache of fixed size.
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
enum WholeMatch {
    /// The longest pattern, in UTF-8 bytes (SPEC §5.3).
    static let maxPatternBytes = 1024
    /// The most memory one compiled pattern may take, RE2's matching caches included (SPEC §5.3):
    /// with `cacheCapacity`, what the cache can hold at most.
    static let maxProgramBytes = 1 << 20
    /// The most work one match may take: UTF-8 bytes of text × instructions of the compiled
    /// program (SPEC §5.3): a few milliseconds at worst. The seed's e-mail pattern (23
    /// instructions) matches strings of up to 11397 bytes; `(.*){1000}` (9003), of up to 29.
    static let maxWork = 1 << 18
    /// How many compiled patterns are kept. A refused pattern is never kept, so patterns that
    /// fail cost nothing once answered.
    static let cacheCapacity = 64

    private static let cache = Mutex(LeastRecentlyUsed<String, CompiledPattern>(capacity: cacheCapacity))

    /// Matching would cost more than `maxWork`: `bytes` of text × the program's `instructions`.
    struct WorkExceeded: Error {
        let bytes: Int
        let instructions: Int
    }

    /// Whether the whole of `text` matches `pattern`; false for a pattern that is refused (which
    /// a declaration never holds: it is checked with `refusal(of:)` when registered). Refuses,
    /// without matching, a text whose match could cost more than `maxWork`.
    static func matches(_ text: String, pattern: String) throws(WorkExceeded) -> Bool {
        guard case .success(let compiled) = compiled(pattern) else { return false }
        let bytes = text.utf8.count
        let (work, overflow) = bytes.multipliedReportingOverflow(by: compiled.instructions)
        guard !overflow, work <= maxWork else {
            throw WorkExceeded(bytes: bytes, instructions: compiled.instructions)
        }
        return compiled.matches(text)
    }

    /// Why `pattern` cannot be used, for a declaration's `reason`; nil if it can.
    static func refusal(of pattern: String) -> String? {
        guard case .failure(let refusal) = compiled(pattern) else { return nil }
        return refusal.reason
    }

    /// How many compiled patterns the cache holds (for tests).
    static var cachedCount: Int { cache.withLock { $0.count } }

    /// Whether the cache holds `pattern`, without counting as a use (for tests).
    static func isCached(_ pattern: String) -> Bool { cache.withLock { $0.contains(pattern) } }

    private struct Refusal: Error {
        let reason: String
    }

    /// Compiles outside the lock, so a slow compilation holds up no other thread's match.
    private static func compiled(_ pattern: String) -> Result<CompiledPattern, Refusal> {
        if let hit = cache.withLock({ $0.value(for: pattern) }) { return .success(hit) }
        let result = compile(pattern)
        if case .success(let compiled) = result { cache.withLock { $0.insert(compiled, for: pattern) } }
        return result
    }

    private static func compile(_ pattern: String) -> Result<CompiledPattern, Refusal> {
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

/// One compiled RE2 program, freed when the cache and every match using it have let go of it.
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
