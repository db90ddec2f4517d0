/// Reading the command line being completed, for shell completions that ask
/// PipeWire (stream names, app keys).
public enum CompletionWords {
    /// The value of `-r`/`--remote` among the words typed so far, if any.
    public static func remote(in words: [String]) -> String? {
        for (index, word) in words.enumerated() {
            if (word == "-r" || word == "--remote"), index + 1 < words.count { return words[index + 1] }
            if word.hasPrefix("--remote=") { return String(word.dropFirst("--remote=".count)) }
            if word.hasPrefix("-r"), word.count > 2, !word.hasPrefix("--") { return String(word.dropFirst(2)) }
        }
        return nil
    }

    /// What to offer for a stream: ids and app names, those starting with `prefix`.
    public static func streams(_ candidates: [StreamCandidate], prefix: String) -> [String] {
        var names = candidates.map { String($0.id) }
        for candidate in candidates where !names.contains(candidate.app) { names.append(candidate.app) }
        return names.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }
    }

    /// What to offer for `--app`: the app keys of running streams and of overrides.
    public static func apps(_ candidates: [StreamCandidate], overrides: [String], prefix: String) -> [String] {
        var keys: [String] = []
        for key in candidates.map(\.appKey) + overrides.sorted() where !keys.contains(key) { keys.append(key) }
        return keys.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }
    }
}
