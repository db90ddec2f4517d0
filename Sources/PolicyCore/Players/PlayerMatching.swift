/// Which MPRIS player controls which playback stream: a pure function of the
/// players, the graph and a process-ancestry table the adapter read from
/// /proc. What is matched, what is not, and why: docs/PLAYERS.md.
public enum PlayerMatching {
    /// Stream node props (or its client's) that identify a Flatpak app.
    /// PipeWire sets them on the client of a sandboxed app (module-access for
    /// native clients, pipewire-pulse for Pulse clients; the instance only
    /// from PipeWire 1.5.81).
    public static let appIDKey = "pipewire.access.portal.app_id"
    public static let instanceIDKey = "pipewire.access.portal.instance_id"
    public static let processIDKey = "application.process.id"

    /// How far up the process tree a stream is followed: deeper than any
    /// browser's process tree, and a bound if the table has a cycle.
    static let maximumGenerations = 32

    /// For every playback stream with info: the player that controls it, if any.
    ///
    /// - A Flatpak stream (it carries an app id) is matched by app id only:
    ///   its `application.process.id` is a pid in the app's own namespace.
    ///   Two players of the same app that no instance id tells apart match
    ///   neither (pausing the wrong one is worse than pausing none).
    /// - Any other stream is matched by process: the player whose bus
    ///   connection's pid is the stream's, else its parent's, and so on up;
    ///   the nearest wins; players in one process tie-break by bus name.
    /// - `ancestry` maps a pid to its parent's; missing pids end the walk.
    public static func match(players: PlayerSet, graph: Graph, ancestry: [Int32: Int32]) -> [UInt32: PlayerMatch] {
        guard !players.isEmpty else { return [:] }
        let sortedPlayers = players.sorted
        var byPID: [Int32: MediaPlayer] = [:]
        for player in sortedPlayers {
            guard let pid = player.pid, pid > 1, byPID[pid] == nil else { continue }
            byPID[pid] = player  // the first by bus name wins a shared process
        }
        var matches: [UInt32: PlayerMatch] = [:]
        for node in graph.nodes.values where node.streamDirection == .playback && node.hasInfo && !node.isAgentsOwn {
            let client = node.clientID.flatMap { graph.clients[$0] }
            func prop(_ key: String) -> String? {
                node.props[key].flatMap { $0.isEmpty ? nil : $0 } ?? client?.props[key].flatMap { $0.isEmpty ? nil : $0 }
            }
            if let appID = prop(appIDKey) {
                if let match = flatpakMatch(appID: appID, instanceID: prop(instanceIDKey), players: sortedPlayers) {
                    matches[node.id] = match
                }
            } else if let pid = prop(processIDKey).flatMap({ Int32($0) }), pid > 1,
                      let match = processMatch(streamPID: pid, byPID: byPID, ancestry: ancestry) {
                matches[node.id] = match
            }
        }
        return matches
    }

    static func processMatch(streamPID: Int32, byPID: [Int32: MediaPlayer], ancestry: [Int32: Int32]) -> PlayerMatch? {
        var pid = streamPID
        for generation in 0...maximumGenerations {
            if let player = byPID[pid] {
                return PlayerMatch(busName: player.busName,
                                   reason: generation == 0 ? .sameProcess(pid: pid)
                                       : .descendant(streamPID: streamPID, playerPID: pid, generations: generation))
            }
            guard let parent = ancestry[pid], parent > 1, parent != pid else { return nil }
            pid = parent
        }
        return nil
    }

    static func flatpakMatch(appID: String, instanceID: String?, players: [MediaPlayer]) -> PlayerMatch? {
        var candidates = players.filter { $0.flatpakAppID == appID }
        if let instanceID {
            // A player of another instance is not this stream's; one that
            // names the same instance beats one that does not say.
            candidates.removeAll { $0.flatpakInstanceID != nil && $0.flatpakInstanceID != instanceID }
            let exact = candidates.filter { $0.flatpakInstanceID == instanceID }
            if !exact.isEmpty { candidates = exact }
        }
        guard candidates.count == 1, let player = candidates.first else { return nil }
        let instance = instanceID != nil && player.flatpakInstanceID == instanceID ? instanceID : nil
        return PlayerMatch(busName: player.busName, reason: .flatpakApp(appID: appID, instanceID: instance))
    }

    /// The process ids the streams of `graph` name (of `direction`, or both):
    /// what the adapters read the ancestry of — a player's streams are
    /// playback; an audio session claims both.
    public static func streamProcessIDs(in graph: Graph, direction: StreamDirection? = .playback) -> Set<Int32> {
        var pids = Set<Int32>()
        for node in graph.streams where direction == nil || node.streamDirection == direction {
            let client = node.clientID.flatMap { graph.clients[$0] }
            if let pid = (node.props[processIDKey] ?? client?.props[processIDKey]).flatMap({ Int32($0) }), pid > 1 {
                pids.insert(pid)
            }
        }
        return pids
    }
}
