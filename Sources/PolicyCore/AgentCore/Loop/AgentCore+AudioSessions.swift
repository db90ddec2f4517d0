/// The audio sessions apps declare on the session bus, in the control loop
/// (docs/API.md): their calls are handled here, purely; each reconcile
/// finds the streams each session governs, lets their declarations
/// classify them, ends the debounce of a session deactivated with "notify
/// others", and tells every session what the decision did to it.
extension AgentCore {
    // MARK: calls

    /// One method call from `caller` (a unique bus name): the reply, and
    /// what to log. `token` is a fresh random token, used if a session is
    /// made. The adapter reconciles after a call that changed something.
    public mutating func audioSessionCall(_ call: AudioSessionTable.Call, from caller: String, token: String,
                                          now: Double) -> (reply: AudioSessionTable.Reply, effects: [AgentEffect]) {
        let reply = audioSessions.handle(call, from: caller, token: token, now: now)
        var effects: [AgentEffect] = []
        switch reply {
        case .created(let path):
            if let id = AudioSessionAPI.id(of: path), let session = audioSessions.sessions[id] {
                // What a Get answers until the next reconcile: its changes are news.
                audioNews.introduce(id, audioScene.properties(of: id, in: audioSessions))
                effects.append(.log(.info, "audio sessions: \(caller) declared \(path): \(session.declaration.description)"))
            }
        case .done:
            switch call {
            case .setCategory(let path, _, _, _):
                if let session = AudioSessionAPI.id(of: path).flatMap({ audioSessions.sessions[$0] }) {
                    effects.append(.log(.info, "audio sessions: \(path) of \(caller) now declares \(session.declaration.description)"))
                }
            case .deactivate(let path, let notifyOthers):
                effects.append(.log(.info, "audio sessions: \(path) of \(caller) deactivated"
                    + (notifyOthers ? ", notifying the sessions it interrupted" : "")))
            case .close(let path):
                effects.append(.log(.info, "audio sessions: \(path) of \(caller) closed"))
            case .create:
                break
            }
        case .flooding(_, _, let log):
            effects.append(.log(.notice, log))
        case .error(let name, let message):
            effects.append(.log(.debug, "audio sessions: refused a call of \(caller): \(name): \(message)"))
        }
        return (reply, effects)
    }

    /// A session's owner and properties now (for the adapter's Get and
    /// GetAll, which only its owner may read); nil when `path` names no session.
    public func audioSessionProperties(path: String) -> (owner: String, properties: [AudioSessionProperty: AudioSessionValue])? {
        guard let id = AudioSessionAPI.id(of: path), let session = audioSessions.sessions[id],
              let properties = audioScene.properties(of: id, in: audioSessions) else { return nil }
        return (session.owner, properties)
    }

    /// The adapter found who a caller is (its pid from the bus, its Flatpak app).
    public mutating func audioSessionOwnerIdentified(_ owner: String, pid: Int32?, flatpakAppID: String?) {
        audioSessions.identified(owner, pid: pid, flatpakAppID: flatpakAppID)
    }

    /// A caller left the bus: its sessions end.
    public mutating func audioSessionOwnerLeft(_ owner: String) -> [AgentEffect] {
        let gone = audioSessions.ownerLeft(owner)
        return gone.isEmpty ? [] : [.log(.info, "audio sessions: \(owner) left the bus; \(gone.joined(separator: ", ")) ended")]
    }

    /// Every session ends: the service was turned off or lost its bus.
    public mutating func audioSessionsEnded(_ why: String) -> [AgentEffect] {
        guard !audioSessions.isEmpty else { return [] }
        let count = audioSessions.sessions.count
        audioSessions.removeAll()
        return [.log(.notice, "audio sessions: \(count) \(count == 1 ? "session" : "sessions") ended: \(why)")]
    }

    // MARK: the reconcile

    /// The session that governs each stream (AudioSessionClaims).
    mutating func claimAudioSessionStreams(_ observation: Observation) -> [UInt32: UInt32] {
        audioSessionsUnavailable = config.config.settings.audioSessionService
            ? observation.audioSessionsUnavailable : "off (\(SettingsSchema.key(\Settings.audioSessionService)) = false)"
        return AudioSessionClaims.claim(audioSessions, graph: observation.graph, ancestry: observation.audioSessionAncestry)
    }

    /// What the claiming sessions declare for their streams.
    func declarations(_ claims: [UInt32: UInt32]) -> [UInt32: AppDeclaration] {
        claims.compactMapValues { id in
            audioSessions.sessions[id].map { session in
                let owner = audioSessions.owners[session.owner]
                let pid = owner?.pid.map { ", pid \($0)" } ?? ""
                // Named as AppIdentity names an instance, so the owner's own streams are the same app.
                let instance = owner?.flatpakAppID.map { "app:\($0)" } ?? owner?.pid.map { "pid:\($0)" } ?? "bus:\(session.owner)"
                return AppDeclaration(category: session.declaration.category, options: session.declaration.options,
                                      mode: session.declaration.mode,
                                      label: "audio session \(session.path) of \(session.owner)\(pid) (declared by the app)",
                                      instance: instance)
            }
        }
    }

    /// The engine sessions of the audio sessions deactivated with "notify
    /// others" and not active again since: no debounce keeps them.
    mutating func endedAudioSessions(claims: [UInt32: UInt32], classified: [UInt32: ClassifiedStream],
                                     graph: Graph) -> Set<SessionKey> {
        guard !audioSessions.isEmpty else { return [] }
        var running: [UInt32: Set<UInt32>] = [:]
        for (node, session) in claims where graph.nodes[node]?.state == .running { running[session, default: []].insert(node) }
        var ended: Set<SessionKey> = []
        for id in audioSessions.followDeactivations(running: running) {
            for (node, session) in claims where session == id {
                if let key = classified[node]?.session { ended.insert(key) }
            }
            ended.formUnion(audioScene.sessions[id]?.engineKeys ?? [])
        }
        return ended
    }

    /// What the decision did to each session, to be told (after the graph
    /// actions and the players' commands: a session told "ended, should
    /// resume" finds its streams released).
    mutating func tellAudioSessions(_ decision: PolicyDecision, classified: [UInt32: ClassifiedStream], graph: Graph,
                                    claims: [UInt32: UInt32], silentMode: Bool, now: Double) -> [AgentEffect] {
        let previous = audioScene
        audioScene = AudioScene.after(decision, classified: classified, graph: graph, claims: claims, table: audioSessions,
                                      silentMode: silentMode, config: config.config, previous: previous)
        guard !audioSessions.isEmpty else {
            // Nothing to tell, nor to remember for sessions that ended.
            audioNews = AudioSessionNews()
            return []
        }
        let messages = audioNews.tell(decision, scene: audioScene, previous: previous, table: audioSessions,
                                      classified: classified, now: now)
        audioSessions.toldDeclarations()
        return messages.isEmpty || identity.dryRun ? [] : [.tellAudioSessions(messages)]
    }

    /// `status`: the service and its sessions.
    var audioSessionsStatus: AudioSessionsStatus {
        let sessions = audioSessions.sessions.values.sorted { $0.id < $1.id }.map { session in
            let state = audioScene.sessions[session.id] ?? AudioScene.SessionState()
            var words: [String] = []
            if state.active { words.append("active") }
            if state.interrupted { words.append("interrupted") }
            if state.ducked { words.append("ducked") }
            if state.silenced { words.append("silenced") }
            if let deactivation = session.deactivation {
                words.append(deactivation.notifyOthers ? "deactivated (notifying others)" : "deactivated")
            }
            if !state.output.isEmpty { words.append("on \(state.output)") }
            return AudioSessionsStatus.Session(path: session.path, owner: session.owner,
                                               pid: audioSessions.owners[session.owner]?.pid,
                                               declared: session.declaration.description, streams: state.streams,
                                               state: words.isEmpty ? "idle" : words.joined(separator: ", "))
        }
        let text = audioSessionsUnavailable.map { "not on the session bus: \($0)" }
            ?? "\(AudioSessionAPI.busName) on the session bus"
        return AudioSessionsStatus(busName: AudioSessionAPI.busName, available: audioSessionsUnavailable == nil,
                                   text: text, sessions: sessions)
    }
}
