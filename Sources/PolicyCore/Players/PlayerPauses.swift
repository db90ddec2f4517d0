/// A player the agent paused, remembered (and journaled) until it is played
/// again or given up on (docs/PLAYERS.md, "Pausing and resuming").
public struct PausedPlayer: Sendable, Equatable, Codable {
    /// Why it was paused, which decides whether it may be played again.
    public enum Cause: Sendable, Equatable, Codable {
        /// Another session interrupted it (or it waits for one); `resumable`
        /// from the interaction rule. Played again when that session is over.
        case interruption(by: SessionKey, resumable: Bool)
        /// Its output went away (the headphones unplugged): played again only
        /// by `pw-policy resume`, or by `route.resume-on-return`.
        case routeLost(output: String)
    }

    /// Where the pause stands.
    public enum State: String, Sendable, Equatable, Codable {
        /// Pause was sent; the player has not said Paused yet.
        case pausing
        /// The player said Paused after our Pause: ours to play again.
        case paused
        /// The player changed on its own after our Pause (the user played,
        /// stopped or skipped it): never played by us; forgotten when the
        /// hold ends.
        case takenOver = "taken-over"
    }

    /// The bus connection that got our Pause: a new owner of the name is a
    /// new player that we did not pause.
    public var owner: String
    public var cause: Cause
    public var state: State
    /// The session of the held stream it controls.
    public var session: SessionKey
    /// When Pause was sent (monotonic seconds).
    public var since: Double

    public init(owner: String, cause: Cause, state: State, session: SessionKey, since: Double) {
        self.owner = owner; self.cause = cause; self.state = state; self.session = session; self.since = since
    }
}

/// A call to a player.
public enum PlayerCommand: Sendable, Equatable {
    case pause(busName: String)
    case play(busName: String)
    /// A media key the user pressed on pw-policy's proxy, forwarded to the
    /// player it went to (docs/PLAYERS.md, "Media keys").
    case mediaKey(MediaKey, busName: String)
}

/// Decides which players to pause and which to play again, from the
/// holds the engine decided and what the players say: pause a `Playing`
/// player whose stream is held; play again only a player we paused that
/// nobody touched since, and only when its hold is over for a reason that
/// resumes (docs/PLAYERS.md). Level-triggered like the planner: the same
/// inputs give no new commands.
public enum PlayerPauses {
    public struct Plan: Sendable, Equatable {
        public var commands: [PlayerCommand]
        public var paused: [String: PausedPlayer]
        /// One line per command, for the log.
        public var reasons: [String]
    }

    /// - `resumed`: players whose stream the user resumed (`pw-policy
    ///   resume`), or whose output came back with `route.resume-on-return`.
    public static func plan(players: PlayerSet, matches: [UInt32: PlayerMatch], decisions: [UInt32: StreamDecision],
                            sessions: [UInt32: SessionKey], memory: EngineMemory, names: DecisionNames, resumed: Set<UInt32>,
                            paused: [String: PausedPlayer], now: Double) -> Plan {
        var plan = Plan(commands: [], paused: paused, reasons: [])
        // The streams each player controls, and whether any of them is held now.
        var heldStream: [String: (stream: UInt32, hold: HoldReason)] = [:]
        var controls: [String: [UInt32]] = [:]
        for (stream, match) in matches.sorted(by: { $0.key < $1.key }) {
            controls[match.busName, default: []].append(stream)
            if heldStream[match.busName] == nil, let hold = decisions[stream]?.hold {
                heldStream[match.busName] = (stream, hold)
            }
        }

        for (name, entry) in paused.sorted(by: { $0.key < $1.key }) {
            guard let player = players[name], player.uniqueName == entry.owner else {
                // Gone, or another process owns the name now: not ours to play.
                plan.paused[name] = nil
                continue
            }
            var entry = entry
            switch (entry.state, player.status) {
            case (.pausing, .paused): entry.state = .paused
            case (.paused, .playing), (.paused, .stopped), (.pausing, .stopped): entry.state = .takenOver
            default: break
            }
            let userResumed = controls[name]?.contains(where: resumed.contains) ?? false
            let holdOver = heldStream[name] == nil
            if entry.state == .paused, userResumed || (holdOver && resumes(entry, memory: memory)) {
                plan.commands.append(.play(busName: name))
                plan.reasons.append("play \(name): \(userResumed ? "resumed" : "its interruption is over")")
                plan.paused[name] = nil
            } else if holdOver, !keepsWaiting(entry, memory: memory) {
                plan.paused[name] = nil
            } else {
                plan.paused[name] = entry
            }
        }

        for (name, held) in heldStream.sorted(by: { $0.key < $1.key }) where plan.paused[name] == nil {
            guard let player = players[name], let session = sessions[held.stream] else { continue }
            if case .routeLost(let output) = held.hold, player.status == .paused,
               let lostAt = memory.streams[held.stream]?.routeLostAt, now - lostAt <= adoptsPauseWithin {
                // Paused as its output went away, by someone else: WirePlumber
                // 0.5.11+ pauses the players of a removed sink itself. One
                // Pause is enough; ours to play again as if we had sent it
                // (docs/PLAYERS.md, "Beside WirePlumber's own pause").
                plan.paused[name] = PausedPlayer(owner: player.uniqueName, cause: .routeLost(output: output), state: .paused,
                                                 session: session, since: now)
                continue
            }
            guard player.status == .playing, player.canPause != false else { continue }
            let cause: PausedPlayer.Cause
            let why: String
            switch held.hold {
            case .interrupted(let by, _, let resumable):
                cause = .interruption(by: by, resumable: resumable)
                why = "interrupted by \(names.session(by))\(resumable ? ", resumes after it" : "")"
            case .waiting(let by, _):
                cause = .interruption(by: by, resumable: true)
                why = "waiting for \(names.session(by)) to end"
            case .routeLost(let output):
                cause = .routeLost(output: output)
                why = "\(output) went away"
            }
            plan.commands.append(.pause(busName: name))
            plan.reasons.append("pause \(name): stream \(held.stream) is held (\(why))")
            plan.paused[name] = PausedPlayer(owner: player.uniqueName, cause: cause, state: .pausing,
                                             session: session, since: now)
        }
        return plan
    }

    /// How soon after its stream lost its output a player found paused is
    /// taken for paused by the unplug (WirePlumber pauses it at once; its
    /// status reaches us within a few hundred milliseconds).
    static let adoptsPauseWithin = 2.0

    /// Whether a paused player whose hold is over may be played: only after
    /// a resumable interruption whose interrupting session is over.
    static func resumes(_ entry: PausedPlayer, memory: EngineMemory) -> Bool {
        guard case .interruption(let by, let resumable) = entry.cause, resumable else { return false }
        return memory.sessions[by] == nil
    }

    /// Whether a pause is still remembered once no stream of the player is
    /// held: only a resumable interruption's, while the interrupting session
    /// is still around (its stream may have gone in a debounce gap, or the
    /// paused player closed its own stream). A route-lost pause is played
    /// again only through a hold (`pw-policy resume` acts on a held stream),
    /// so without one it is forgotten and the player stays paused.
    static func keepsWaiting(_ entry: PausedPlayer, memory: EngineMemory) -> Bool {
        guard entry.state == .paused, case .interruption(let by, true) = entry.cause else { return false }
        return memory.sessions[by] != nil
    }
}
