/// The media keys' room (docs/PLAYERS.md, "Media keys"): what they
/// remember, where they go as of the latest reconcile and what that one saw,
/// what a key pressed does, and what `status` says of them. `AgentCore`
/// asks it once per reconcile (`follow`) and on each key (`press`); the
/// effects stay the loop's.
struct MediaKeysRoom: Sendable {
    private var memory = MediaKeyMemory()
    private var target: MediaKeyTarget?
    private var players = PlayerSet.empty
    private var names = DecisionNames()
    /// Why the keys go nowhere (the proxy is off or not on the bus).
    private var unavailable: String?
    /// What the last key did, for `status`.
    private var lastKey: String?
    /// Streams a media key resumes in the next reconcile (the user's resume).
    private var resumes: Set<UInt32> = []
    /// The player the proxy mirrors (`AgentEffect.mediaKeysTarget`).
    private(set) var mirror: MediaPlayer?

    /// Follows the players (nil: not watched) and decides where the keys go
    /// now; returns the player the proxy is to mirror when that changed.
    mutating func follow(players watched: PlayerSet?, now: Double, enabled: Bool, unavailable why: String?,
                         matches: [UInt32: PlayerMatch], sessions: [UInt32: SessionKey], graph: Graph,
                         decision: PolicyDecision, paused: PlayerPauses.Plan) -> MediaPlayer?? {
        names = decision.names
        unavailable = enabled ? why : "off (\(SettingsSchema.key(\Settings.mediaKeys)) = false)"
        let next: MediaPlayer?
        if let watched {
            players = watched
            memory.observe(watched, now: now)
            for case .pause(let name) in paused.commands {
                guard let player = watched[name] else { continue }
                let why: String
                switch paused.paused[name]?.cause {
                case .interruption(let by, _)?: why = "interrupted by \(decision.names.session(by))"
                case .routeLost(let output)?: why = "\(output) went away"
                case nil: why = ""
                }
                memory.paused(player, at: now, why: why)
            }
            target = MediaKeys.target(players: watched, matches: matches, sessions: sessions,
                                      decisions: decision.streams, graph: graph,
                                      memory: memory, paused: paused.paused, engineMemory: decision.memory)
            next = enabled ? target.flatMap { watched[$0.busName] } : nil
        } else {
            players = .empty
            target = nil
            unavailable = unavailable ?? "players are not watched"
            next = nil
        }
        guard next != mirror else { return .none }
        mirror = next
        return .some(next)
    }

    /// What `key` does now, and one line saying so (log, event, `status`);
    /// the streams it releases wait for the next reconcile (`takeResumes`).
    mutating func press(_ key: MediaKey, pausedPlayers: [String: PausedPlayer]) -> (outcome: MediaKeyOutcome, text: String) {
        let outcome = MediaKeys.press(key, target: target, players: players, paused: pausedPlayers, names: names)
        let done: String
        if let refusal = outcome.refusal {
            done = "nothing: \(refusal)"
        } else if !outcome.release.isEmpty {
            done = "the user's resume: \(outcome.release.map { "stream \($0)" }.joined(separator: ", ")) released, then Play"
        } else {
            done = "sent \(outcome.command?.rawValue ?? key.rawValue)"
        }
        let to = outcome.busName.map { " to \($0)" } ?? ""
        lastKey = "\(key.rawValue)\(to): \(done)"
        resumes = Set(outcome.release)
        return (outcome, "media key \(key.rawValue)\(to): \(done)")
    }

    /// The streams the last key resumes, once.
    mutating func takeResumes() -> Set<UInt32> {
        defer { resumes = [] }
        return resumes
    }

    /// `status`: where the keys go and why.
    var status: MediaKeysStatus {
        if let unavailable {
            return MediaKeysStatus(target: nil, reason: "off", text: unavailable, lastKey: lastKey)
        }
        let reason: String
        switch target?.reason {
        case .audible?: reason = "audible"
        case .pausedByAgent?: reason = "paused-by-pw-policy"
        case .mostRecentlyActive?: reason = "most-recently-active"
        case nil: reason = "none"
        }
        return MediaKeysStatus(target: target?.busName, reason: reason,
                               text: MediaKeys.describe(target, players: players, names: names), lastKey: lastKey)
    }
}
