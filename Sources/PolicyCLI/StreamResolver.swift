import PolicyCore

/// Finds the stream a user means by `ID|NAME`: a node id, or a name matching
/// (case-insensitively) its app name, `node.name`, `application.process.binary`
/// or `media.name`. Failures are one line, with a suggestion when the name
/// looks like a typo.
public enum StreamResolver {
    public static func resolve(_ query: String, among candidates: [StreamCandidate], graph: Graph,
                               ambiguityHint: String? = nil) throws(CLIFailure) -> StreamCandidate {
        let trimmed = query.trimmingSpaces
        guard !trimmed.isEmpty else { throw CLIFailure(.usage, "an empty name matches no stream; give a node id or an app name") }
        if let id = UInt32(trimmed) {
            if let match = candidates.first(where: { $0.id == id }) { return match }
            if let node = graph.nodes[id] {
                let what = [node.mediaClass, node.name.map { "'\($0)'" }].compactMap { $0 }.joined(separator: " ")
                throw CLIFailure(.notFound, "node \(id) is not an audio stream (it is \(what.isEmpty ? "another kind of node" : what))")
            }
            throw CLIFailure(.notFound, "no stream with id \(id)" + listHint(candidates))
        }
        let wanted = trimmed.lowercased()
        let matches = candidates.filter { candidate in candidate.names.contains { $0.lowercased() == wanted } }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            let listed = matches.prefix(5).map(\.shortDescription).joined(separator: ", ")
            let more = matches.count > 5 ? " and \(matches.count - 5) more" : ""
            throw CLIFailure(.notFound, "'\(trimmed)' matches \(matches.count) streams: \(listed)\(more); give the id"
                                        + (ambiguityHint.map { ", \($0)" } ?? ""))
        }
        throw CLIFailure(.notFound, "no stream matches '\(trimmed)'" + suggestion(for: trimmed, among: candidates))
    }

    /// `; did you mean 'spotify' (id 57)?`, or a pointer to `status`.
    static func suggestion(for query: String, among candidates: [StreamCandidate]) -> String {
        var nameToStream: [(name: String, id: UInt32)] = []
        for candidate in candidates {
            for name in candidate.names { nameToStream.append((name, candidate.id)) }
            // media.name is often a path or a title: its last component is what people remember.
            if let media = candidate.props["media.name"], let last = media.split(separator: "/").last, String(last) != media {
                nameToStream.append((String(last), candidate.id))
            }
        }
        if let name = EditDistance.closest(to: query, in: nameToStream.map(\.name)),
           let match = nameToStream.first(where: { $0.name == name }) {
            return "; did you mean '\(name)' (id \(match.id))?"
        }
        return listHint(candidates)
    }

    private static func listHint(_ candidates: [StreamCandidate]) -> String {
        candidates.isEmpty ? " (no audio streams exist right now)" : " (see 'pw-policy status' for the streams)"
    }

    /// The app key `--app APP` means: the key of the running streams whose app
    /// is called that, else an existing override's key, else APP itself (an
    /// override may be set before the app first runs).
    public static func appKey(for query: String, among candidates: [StreamCandidate],
                              existingOverrides: [String]) throws(CLIFailure) -> (key: String, streams: [StreamCandidate]) {
        let trimmed = query.trimmingSpaces
        guard !trimmed.isEmpty else { throw CLIFailure(.usage, "--app needs an application name") }
        let wanted = trimmed.lowercased()
        let matching = candidates.filter { candidate in candidate.appNames.contains { $0.lowercased() == wanted } }
        var keys: [String] = []
        for candidate in matching where !keys.contains(candidate.appKey) { keys.append(candidate.appKey) }
        if keys.count > 1 {
            throw CLIFailure(.notFound, "'\(trimmed)' names \(keys.count) apps: "
                                        + keys.map { "'\($0)'" }.joined(separator: ", ") + "; give one of these keys")
        }
        if let key = keys.first { return (key, candidates.filter { $0.appKey == key }) }
        if let key = existingOverrides.first(where: { $0.lowercased() == wanted }) { return (key, []) }
        return (trimmed, [])
    }
}

extension String {
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}
