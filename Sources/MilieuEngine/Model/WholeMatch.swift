import Synchronization

/// Whole-string regular expression matching with compiled patterns cached,
/// for validation `pattern`s and `Login.isValidEmail`.
enum WholeMatch {
    /// Compiled expressions by pattern. `Regex` is not marked Sendable, but a compiled
    /// expression is never mutated after it is stored; the mutex guards the dictionary.
    private struct Cache: @unchecked Sendable {
        var compiled: [String: Regex<AnyRegexOutput>] = [:]
    }

    private static let cache = Mutex(Cache())

    static func matches(_ text: String, pattern: String) -> Bool {
        guard let regex = compiled(pattern) else { return false }
        return (try? regex.wholeMatch(in: text)) != nil
    }

    /// Whether `pattern` is a regular expression this engine can compile.
    static func isValid(_ pattern: String) -> Bool { compiled(pattern) != nil }

    private static func compiled(_ pattern: String) -> Regex<AnyRegexOutput>? {
        if let hit = cache.withLock({ $0.compiled[pattern] }) { return hit }
        guard let regex = try? Regex(pattern) else { return nil }
        cache.withLock { $0.compiled[pattern] = regex }
        return regex
    }
}
