/// How far apart two names are, for "did you mean …?" suggestions.
public enum EditDistance {
    /// Insertions, deletions, substitutions and swaps of adjacent characters
    /// (optimal string alignment), compared case-insensitively.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }

    /// The most edits a suggestion may need: a typo or two, fewer for short words.
    public static func tolerance(for query: String) -> Int {
        max(1, min(3, query.count / 3))
    }

    /// The candidate closest to `query` within the tolerance, if any; a
    /// candidate that starts with the query counts as close too.
    public static func closest(to query: String, in candidates: [String]) -> String? {
        let limit = tolerance(for: query)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            var distance = between(query, candidate)
            if query.count >= 3, candidate.lowercased().hasPrefix(query.lowercased()) { distance = min(distance, 1) }
            guard distance <= limit else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.name
    }
}
