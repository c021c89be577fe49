import MilieuJSON

/// The known names nearest a mistyped one — `email` for `emial`, `App` for `app`, `set` for
/// `sett` — for "did you mean" in the daemon's errors (`data.suggestions`) and the REPL's.
/// Case is ignored; a name is near when its edit distance (insertions, deletions, changes and
/// swaps of two neighbours) is at most a quarter of its length, and at least 1.
public enum Suggestions {
    /// At most this many names are suggested, nearest first.
    public static let maxSuggestions = 3
    /// At most this many candidates are compared, so that a request naming a path among a
    /// hundred thousand views costs no more than one among a few.
    public static let maxCandidates = 512
    /// Names longer than this are not compared: a mistyped name is short.
    public static let maxLength = 64

    public static func nearest(to name: String, among candidates: some Sequence<String>) -> [String] {
        let wanted = Array(name.lowercased().unicodeScalars)
        guard !wanted.isEmpty, wanted.count <= maxLength else { return [] }
        let limit = max(1, wanted.count / 4)
        var found: [(name: String, distance: Int)] = []
        for candidate in candidates.prefix(maxCandidates) where candidate != name {
            let scalars = Array(candidate.lowercased().unicodeScalars)
            guard scalars.count <= maxLength, abs(scalars.count - wanted.count) <= limit else { continue }
            let distance = editDistance(wanted, scalars)
            if distance <= limit, !found.contains(where: { $0.name == candidate }) { found.append((candidate, distance)) }
        }
        return found.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }.prefix(maxSuggestions).map(\.name)
    }

    /// `data` with `suggestions` listed, as every error that suggests carries them; `data` as it
    /// is when there are none.
    public static func listed(_ suggestions: [String], in data: JSONObject) -> JSONObject {
        guard !suggestions.isEmpty else { return data }
        var data = data
        data["suggestions"] = .array(suggestions.map(JSON.string))
        return data
    }

    /// `; did you mean a, b or c?`, or nothing when there is nothing near.
    public static func phrase(_ suggestions: [String]) -> String {
        guard let last = suggestions.last else { return "" }
        let listed = suggestions.count == 1 ? last : suggestions.dropLast().joined(separator: ", ") + " or " + last
        return "; did you mean \(listed)?"
    }

    /// The optimal string alignment distance between `a` and `b`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, before[j - 2] + 1) }
                current[j] = best
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
