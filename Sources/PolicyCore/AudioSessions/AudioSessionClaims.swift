/// Which audio session each stream belongs to (docs/API.md, "Which streams
/// a session governs"): a caller's declaration applies to its own streams
/// only.
///
/// 1. A stream that carries a session's token as `policy.session` is that
///    session's: the app put it there (several sessions, or a stream from a
///    process outside its tree).
/// 2. A Flatpak app's stream (its app id, not a pid of this namespace) is
///    the oldest session of a connection from the same Flatpak app.
/// 3. Otherwise the stream's process (`application.process.id`) and its
///    ancestors are walked up: the first that owns sessions claims it for
///    its oldest session, so an app that declares for itself wins over the
///    launcher that started it.
///
/// A stream no session claims keeps today's classification.
public enum AudioSessionClaims {
    /// How far up the process tree a stream is followed.
    static let generations = 32

    /// Session id by node id.
    public static func claim(_ table: AudioSessionTable, graph: Graph, ancestry: [Int32: Int32]) -> [UInt32: UInt32] {
        guard !table.isEmpty else { return [:] }
        var byToken: [String: UInt32] = [:]
        var oldest: [String: UInt32] = [:]
        for session in table.sessions.values {
            byToken[session.token] = session.id
            if oldest[session.owner].map({ session.id < $0 }) ?? true { oldest[session.owner] = session.id }
        }
        var byPID: [Int32: String] = [:]
        var byFlatpak: [String: String] = [:]
        for (name, owner) in table.owners.sorted(by: { $0.key < $1.key }) where oldest[name] != nil {
            if let pid = owner.pid, pid > 1, byPID[pid] == nil { byPID[pid] = name }
            if let app = owner.flatpakAppID, byFlatpak[app] == nil { byFlatpak[app] = name }
        }
        var claims: [UInt32: UInt32] = [:]
        for node in graph.streams {
            let clientProps = node.clientID.flatMap { graph.clients[$0]?.props } ?? [:]
            func prop(_ key: String) -> String? { node.props[key] ?? clientProps[key] }
            if let token = prop(AudioSessionAPI.streamTokenKey), let id = byToken[token] {
                claims[node.id] = id
            } else if let app = AppIdentity.sandboxAppID(nodeProps: node.props, clientProps: clientProps) {
                if let owner = byFlatpak[app], let id = oldest[owner] { claims[node.id] = id }
            } else if let pid = prop(PlayerMatching.processIDKey).flatMap({ Int32($0) }), pid > 1,
                      let owner = nearestOwner(of: pid, byPID: byPID, ancestry: ancestry), let id = oldest[owner] {
                claims[node.id] = id
            }
        }
        return claims
    }

    /// The owner of `pid`'s process or its nearest ancestor's.
    static func nearestOwner(of pid: Int32, byPID: [Int32: String], ancestry: [Int32: Int32]) -> String? {
        var current = pid
        for _ in 0..<generations {
            if let owner = byPID[current] { return owner }
            guard let parent = ancestry[current], parent > 1, parent != current else { return nil }
            current = parent
        }
        return nil
    }

    /// The processes the streams of `graph` name, both directions: what the
    /// adapter reads the ancestry of while there are sessions.
    public static func streamProcessIDs(in graph: Graph) -> Set<Int32> {
        PlayerMatching.streamProcessIDs(in: graph, direction: nil)
    }
}
