/// What the agent must remember across restarts and crashes, written
/// atomically whenever it changes: the user's settings (silent mode,
/// persistent app overrides) and every change it made to a stream, so the
/// next start can undo or re-apply them even after SIGKILL. The files are
/// the agent's (`JournalFiles` in PolicyFiles): the whole journal under
/// `$XDG_RUNTIME_DIR`, what outlives the session under `$XDG_STATE_HOME`
/// (docs/ARCHITECTURE.md, "The journal's two files").
public struct AgentJournal: Codable, Sendable, Equatable {
    public var version: Int = 1
    /// The user's silent switch (`pw-policy silent on|off|follow`).
    public var silentChoice: SilentChoice = .follow {
        didSet { silentMode = silentChoice == .on }
    }
    /// The switch as an older agent reads it, still written: on, or not.
    private var silentMode = false
    /// Do Not Disturb as last read (nil: never read): a change of it ends
    /// an explicit choice, also one that happened while no agent ran.
    public var doNotDisturbSeen: Bool?
    /// `pw-policy set --app … --persist`, by app key.
    public var appOverrides: [String: AppOverrideRequest] = [:]
    /// Streams we changed, by node id (with their serial, ids are reused).
    public var applied: [UInt32: AppliedStream] = [:]
    /// The engine's memory (interruptions in progress, where streams played).
    public var memory: EngineMemory = .empty
    /// Media players we paused, by bus name: a restart neither forgets to
    /// play them again nor plays one we did not pause (docs/PLAYERS.md).
    public var pausedPlayers: [String: PausedPlayer] = [:]
    /// WirePlumber's stream-state keys under which it may have saved a
    /// policy gain, with the user's own values saved there: corrected once
    /// no stream of the key holds one, at the latest at exit
    /// (WirePlumberStreamState; docs/POLICY.md, "WirePlumber's memory").
    public var wirePlumberKeys: [String: WirePlumberStreamState.UserVolumes] = [:]
    /// WirePlumber's `linking.role-based.duck-level` as the agent found it
    /// (its text) while the agent ducks in its place: written back at exit
    /// (RoleDuckTakeover; docs/POLICY.md, "Beside WirePlumber's role policy").
    public var wirePlumberDuckLevel: String?

    public init() {}

    /// `$XDG_STATE_HOME/pw-policy/state.json`, else `~/.local/state/pw-policy/state.json`:
    /// what outlives the session (`outlivingTheSession`). Empty or relative
    /// values count as unset (the XDG base directory spec).
    public static func path(environment: [String: String]) -> String {
        let base = absolute("XDG_STATE_HOME", in: environment)
            ?? ((absolute("HOME", in: environment) ?? "/tmp") + "/.local/state")
        return base + "/pw-policy/state.json"
    }

    /// `$XDG_RUNTIME_DIR/pw-policy/journal.json`: the whole journal, on the
    /// session's tmpfs; nil without a runtime directory.
    public static func runtimePath(environment: [String: String]) -> String? {
        absolute("XDG_RUNTIME_DIR", in: environment).map { $0 + "/pw-policy/journal.json" }
    }

    private static func absolute(_ key: String, in environment: [String: String]) -> String? {
        environment[key].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    /// What must outlive the session, not only the agent: the user's
    /// settings, and what the agent left in WirePlumber's own files (the
    /// volumes it saved under the agent's gains, its role-duck level),
    /// which a reboot keeps. The streams, the engine's memory and the
    /// players paused end with the session.
    public var outlivingTheSession: AgentJournal {
        var part = AgentJournal()
        part.silentChoice = silentChoice
        part.doNotDisturbSeen = doNotDisturbSeen
        part.appOverrides = appOverrides
        part.wirePlumberKeys = wirePlumberKeys
        part.wirePlumberDuckLevel = wirePlumberDuckLevel
        return part
    }

    /// The journal as the agent writes it (sorted keys: a diff of two reads well).
    public func encoded() throws -> [UInt8] {
        try JSONValueEncoder.text(self)
    }

    /// Fields added after version 1 may be missing from a journal an older
    /// agent wrote: they take their defaults rather than making the journal
    /// unreadable (which would lose the user's settings). Before
    /// `silentChoice`, off was the default and on the only choice.
    public static func decoded<Bytes: Sequence<UInt8>>(from data: Bytes) throws -> AgentJournal {
        var journal = try JSONParser.parse(data)
        if case .object(var members) = journal {
            for (key, value) in defaultMembers where members[key] == nil { members[key] = value }
            if members["silentMode"] == .bool(true) { members["silentChoice"] = .string(SilentChoice.on.rawValue) }
            journal = .object(members)
        }
        return try JSONValueDecoder.decode(AgentJournal.self, from: journal)
    }

    private static let defaultMembers = (try? JSONValueEncoder.encode(AgentJournal()).members) ?? [:]

    /// Whether `other` differs in anything worth a write. The decision's time
    /// and when each active session was last seen active change on every
    /// decision; an older snapshot of them is as consistent (they are written
    /// together) and they matter only for the debounce, shorter than a restart.
    /// Likewise the steps of a fade: while a stream's ramp is the same, the
    /// gain last sent on its way is not worth a write (at hundreds of streams
    /// each write encodes the whole journal, every 25 ms step). The ramp is
    /// written when it starts and when it ends, and a restart goes on from
    /// the ramp, or restores gain 1, whichever step was last written
    /// (docs/PERFORMANCE.md, "Limits found"). Nor is the daemon's
    /// confirmation of a command, or when it was sent: the journal is written
    /// before the command with it unconfirmed, and a restarted agent
    /// confirms it from the graph or sends it again, as it does any command
    /// not reported back (ReconcilePlanner.confirm). At 500 streams every
    /// duck's confirmations were another two or three writes of the whole
    /// journal.
    public func differsDurably(from other: AgentJournal) -> Bool {
        // Compared part by part, not on copies with the clock taken out:
        // at hundreds of streams those copies were a good part of every
        // reconcile (docs/PERFORMANCE.md, "Limits found").
        guard !differsBeyondStreams(from: other), applied.count == other.applied.count,
              memory.sessions.count == other.memory.sessions.count else { return true }
        var mine = memory, theirs = other.memory
        mine.sessions = [:]
        theirs.sessions = [:]
        mine.time = mine.time.map { _ in 0 }
        theirs.time = theirs.time.map { _ in 0 }
        guard mine == theirs else { return true }
        for (key, session) in memory.sessions {
            guard var otherSession = other.memory.sessions[key] else { return true }
            otherSession.lastActive = session.lastActive
            if otherSession != session { return true }
        }
        func durable(_ stream: AppliedStream) -> AppliedStream {
            var stream = stream
            stream.commandedAt = 0
            stream.confirmed = true
            stream.overtaken = nil
            stream.sentAgainEarly = nil
            stream.reportsWhenCommanded = nil
            if stream.ramp != nil { stream.commandedGain = nil }
            return stream
        }
        for (id, stream) in applied {
            guard let otherStream = other.applied[id], durable(otherStream) == durable(stream) else { return true }
        }
        return false
    }

    /// Whether `other` differs in what is written at once, whether or not
    /// the turn acts: the user's settings, the players the agent paused and
    /// the keys of WirePlumber's memory it tainted (what a restart must not
    /// lose, though it was not a command to the graph). What is left — the
    /// engine's memory and the streams' entries — changes on its own only
    /// when a stream comes or goes, and waits for the turn that acts, or
    /// for the agent to settle (`AgentCore.settled`).
    public func differsBeyondStreams(from other: AgentJournal) -> Bool {
        version != other.version || settingsDiffer(from: other) || pausedPlayers != other.pausedPlayers
            || wirePlumberKeys != other.wirePlumberKeys || wirePlumberDuckLevel != other.wirePlumberDuckLevel
    }

    /// Whether the user's settings differ (silent mode, persistent app
    /// overrides): those must outlive the machine, not only the agent.
    public func settingsDiffer(from other: AgentJournal) -> Bool {
        silentChoice != other.silentChoice || doNotDisturbSeen != other.doNotDisturbSeen || appOverrides != other.appOverrides
    }
}
