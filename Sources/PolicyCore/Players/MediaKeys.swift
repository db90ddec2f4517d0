/// A media key, as the MPRIS `org.mpris.MediaPlayer2.Player` method a
/// desktop (or playerctl) calls on pw-policy's proxy player
/// (docs/PLAYERS.md, "Media keys").
public enum MediaKey: String, Sendable, Equatable, Hashable, CaseIterable {
    case play = "Play", pause = "Pause", playPause = "PlayPause", next = "Next", previous = "Previous", stop = "Stop"
}

/// Where the media keys go now, and why: the player a person means.
public struct MediaKeyTarget: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// It says Playing and one of its streams plays (running, not held,
        /// not silenced) — or none of its streams is known (a player that
        /// plays through a daemon), so its word is taken.
        case audible(streamKnown: Bool)
        /// pw-policy paused it, and nobody played or stopped it since;
        /// `why` says what paused it.
        case pausedByAgent(why: String)
        /// The player that became Playing last (nil: none was seen playing;
        /// the first by bus name).
        case mostRecentlyActive(since: Double?)
    }

    public var busName: String
    public var reason: Reason
    /// A call (a play-and-record session) that holds it, or holds other
    /// music: a key that would start it does nothing while it lasts.
    public var callHolds: SessionKey?
    /// Its streams held (their output went away, or another session
    /// interrupted them): Play releases them, as `pw-policy resume` does —
    /// the resumed session becomes the newest — before the player plays.
    public var heldStreams: [UInt32]

    public init(busName: String, reason: Reason, callHolds: SessionKey? = nil, heldStreams: [UInt32] = []) {
        self.busName = busName; self.reason = reason; self.callHolds = callHolds; self.heldStreams = heldStreams
    }
}

/// What a key press does to the target.
public struct MediaKeyOutcome: Sendable, Equatable {
    /// The player it concerns (nil: there is none).
    public var busName: String?
    /// The method sent to the player, if any (after the release below).
    public var command: MediaKey?
    /// Streams to resume first: the user's resume, releasing the hold.
    public var release: [UInt32]
    /// Why nothing was done, when nothing was.
    public var refusal: String?

    public init(busName: String?, command: MediaKey?, release: [UInt32] = [], refusal: String? = nil) {
        self.busName = busName; self.command = command; self.release = release; self.refusal = refusal
    }
}

/// What the media-key proxy remembers between decisions: when each player
/// last became Playing, and which players pw-policy paused (kept after the
/// pause itself is forgotten, until the player plays, stops or leaves).
/// Not journaled: after a restart, the journal's paused players still
/// count (`PlayerPauses`), and "most recently active" starts afresh.
public struct MediaKeyMemory: Sendable, Equatable {
    public struct Mark: Sendable, Equatable {
        /// The bus connection it was seen on: a new owner is a new player.
        public var owner: String
        /// Monotonic seconds.
        public var at: Double
        public var why: String
        public init(owner: String, at: Double, why: String = "") {
            self.owner = owner; self.at = at; self.why = why
        }
    }

    public var lastPlaying: [String: Mark] = [:]
    public var pausedByAgent: [String: Mark] = [:]
    /// The players as last observed (for the transitions to Playing).
    var previous: PlayerSet?

    public init() {}

    /// Follows the players: a player that became Playing (or is Playing
    /// when first seen) is the most recently active from `now`; one that
    /// plays or stops is no longer "paused by pw-policy" (the user took
    /// over); players that left, or have a new owner, are forgotten.
    public mutating func observe(_ players: PlayerSet, now: Double) {
        for player in players.sorted {
            let before = previous?[player.busName]
            let sameOwner = before?.uniqueName == player.uniqueName
            if player.status == .playing, !sameOwner || before?.status != .playing {
                lastPlaying[player.busName] = Mark(owner: player.uniqueName, at: now)
            }
            if let mark = pausedByAgent[player.busName], mark.owner == player.uniqueName,
               player.status == .stopped || (player.status == .playing && before?.status != .playing) {
                pausedByAgent[player.busName] = nil
            }
        }
        lastPlaying = lastPlaying.filter { players[$0.key]?.uniqueName == $0.value.owner }
        pausedByAgent = pausedByAgent.filter { players[$0.key]?.uniqueName == $0.value.owner }
        previous = players
    }

    /// pw-policy sent Pause to this player.
    public mutating func paused(_ player: MediaPlayer, at now: Double, why: String) {
        pausedByAgent[player.busName] = Mark(owner: player.uniqueName, at: now, why: why)
    }
}

/// Which player the media keys go to, and what a key does there
/// (docs/PLAYERS.md, "Media keys"). Pure: the players, which streams they
/// control, the engine's decision, pw-policy's pauses.
///
/// 1. The player that is audible now (the most recently active first);
/// 2. else the player pw-policy paused most recently — a Play then is the
///    user's resume: its hold (a lost output's) is released, then it plays;
/// 3. else the most recently active player.
///
/// A key that would start a player does nothing while a call holds it or
/// other music: starting it would only have it held (and paused) again, or
/// heard over the call. Any other hold is released by the user's Play.
public enum MediaKeys {
    ///
    /// A player that controls a call in progress (a stream of an active
    /// play-and-record session: a browser in a web call) is never a target:
    /// a media key must not pause a call.
    public static func target(players allPlayers: PlayerSet, matches: [UInt32: PlayerMatch], sessions: [UInt32: SessionKey],
                              decisions: [UInt32: StreamDecision], graph: Graph, memory: MediaKeyMemory,
                              paused: [String: PausedPlayer], engineMemory: EngineMemory) -> MediaKeyTarget? {
        var streams: [String: [UInt32]] = [:]
        var players = allPlayers
        for (stream, match) in matches.sorted(by: { $0.key < $1.key }) {
            streams[match.busName, default: []].append(stream)
            if let session = sessions[stream], engineMemory.sessions[session]?.category == .playAndRecord {
                players[match.busName] = nil
            }
        }
        guard !players.isEmpty else { return nil }
        func lastPlaying(_ player: MediaPlayer) -> Double? {
            memory.lastPlaying[player.busName].flatMap { $0.owner == player.uniqueName ? $0.at : nil }
        }
        /// Latest first, then by bus name.
        func byRecency(_ a: MediaPlayer, _ b: MediaPlayer) -> Bool {
            let (x, y) = (lastPlaying(a) ?? -.infinity, lastPlaying(b) ?? -.infinity)
            return x != y ? x > y : a.busName < b.busName
        }
        func plays(_ stream: UInt32) -> Bool {
            guard graph.nodes[stream]?.state == .running else { return false }
            let decision = decisions[stream] ?? .untouched
            return decision.hold == nil && !decision.silenced && decision.gain > 0
        }

        var chosen: (MediaPlayer, MediaKeyTarget.Reason)?
        let audible = players.sorted.filter { player in
            guard player.status == .playing else { return false }
            guard let own = streams[player.busName] else { return true }
            return own.contains(where: plays)
        }
        if let player = audible.sorted(by: byRecency).first {
            chosen = (player, .audible(streamKnown: streams[player.busName] != nil))
        }
        if chosen == nil {
            // Paused by us: the journal's pauses the player confirmed or has
            // yet to, and those remembered after the pause was forgotten.
            var candidates: [(player: MediaPlayer, at: Double, why: String)] = []
            for player in players.sorted where player.status != .playing {
                if let entry = paused[player.busName], entry.owner == player.uniqueName, entry.state != .takenOver {
                    candidates.append((player, entry.since, memory.pausedByAgent[player.busName]?.why ?? ""))
                } else if let mark = memory.pausedByAgent[player.busName], mark.owner == player.uniqueName {
                    candidates.append((player, mark.at, mark.why))
                }
            }
            if let latest = candidates.max(by: { $0.at != $1.at ? $0.at < $1.at : $0.player.busName > $1.player.busName }) {
                chosen = (latest.player, .pausedByAgent(why: latest.why))
            }
        }
        if chosen == nil, let player = players.sorted.sorted(by: byRecency).first {
            chosen = (player, .mostRecentlyActive(since: lastPlaying(player)))
        }
        guard let (player, reason) = chosen else { return nil }

        var target = MediaKeyTarget(busName: player.busName, reason: reason)
        func isCall(_ session: SessionKey) -> Bool { engineMemory.sessions[session]?.category == .playAndRecord }
        for stream in streams[player.busName] ?? [] {
            guard let hold = decisions[stream]?.hold else { continue }
            target.heldStreams.append(stream)
            switch hold {
            case .interrupted(let by, _, _), .waiting(let by, _):
                if target.callHolds == nil, isCall(by) { target.callHolds = by }
            case .routeLost:
                break
            }
        }
        if target.callHolds == nil, let entry = paused[player.busName], entry.owner == player.uniqueName,
           case .interruption(let by, true) = entry.cause, isCall(by) {
            // Its stream may have gone while it waits for the call to end.
            target.callHolds = by
        }
        if target.callHolds == nil {
            // A call that holds other music holds this one too, once started.
            target.callHolds = decisions.values.compactMap { decision -> SessionKey? in
                switch decision.hold {
                case .interrupted(let by, _, _)?, .waiting(let by, _)?: isCall(by) ? by : nil
                default: nil
                }
            }.min()
        }
        return target
    }

    /// What `key` does to `target` (the player as observed now).
    public static func press(_ key: MediaKey, target: MediaKeyTarget?, players: PlayerSet,
                             paused: [String: PausedPlayer], names: DecisionNames) -> MediaKeyOutcome {
        guard let target, let player = players[target.busName] else {
            return MediaKeyOutcome(busName: nil, command: nil, refusal: "no media player on the session bus")
        }
        let starts = key == .play || (key == .playPause && player.status != .playing)
        guard starts else { return MediaKeyOutcome(busName: target.busName, command: key) }
        if let call = target.callHolds {
            return MediaKeyOutcome(busName: target.busName, command: nil,
                                   refusal: "\(key.rawValue) does nothing to the music: a call (\(names.session(call))) holds the music")
        }
        // Starting: Play, not PlayPause, so a status that changes meanwhile
        // cannot turn the user's resume into a pause.
        guard !target.heldStreams.isEmpty else { return MediaKeyOutcome(busName: target.busName, command: .play) }
        // The user's resume: the hold goes first. A pause of ours the player
        // confirmed is played by PlayerPauses once the stream is resumed.
        let playsOnResume = paused[target.busName].map { $0.owner == player.uniqueName && $0.state == .paused } ?? false
        return MediaKeyOutcome(busName: target.busName, command: playsOnResume ? nil : .play, release: target.heldStreams)
    }

    /// The status line: where the keys go and why.
    public static func describe(_ target: MediaKeyTarget?, players: PlayerSet, names: DecisionNames) -> String {
        guard let target else { return "nowhere: no media player on the session bus" }
        let identity = players[target.busName]?.identity.map { " (\"\($0)\")" } ?? ""
        var text = target.busName + identity + ": "
        switch target.reason {
        case .audible(let known): text += known ? "audible now" : "playing now (no stream of it is known)"
        case .pausedByAgent(let why): text += "paused by pw-policy" + (why.isEmpty ? "" : " (\(why))")
        case .mostRecentlyActive(let since): text += since == nil ? "the only choice (none was seen playing)" : "most recently active"
        }
        if let call = target.callHolds {
            text += "; Play does nothing while a call (\(names.session(call))) holds the music"
        } else if !target.heldStreams.isEmpty {
            text += "; Play resumes it (releases its hold)"
        } else if case .pausedByAgent = target.reason {
            text += "; Play plays it"
        }
        return text
    }
}
