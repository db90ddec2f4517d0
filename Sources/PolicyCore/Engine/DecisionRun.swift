/// The working state of one `PolicyEngine.decide` call. Each stage (activity,
/// routes, interactions, output, events) lives in its own file as an extension.
struct DecisionRun {
    let config: PolicyConfig
    let matrix: InteractionMatrix
    let input: PolicyInput
    let memory: EngineMemory
    /// The debounce in seconds (never negative).
    let debounce: Double
    /// How long a metered stream gone quiet still counts as playing (seconds).
    let quietHold: Double
    /// The input's time; a time that is not a number counts as the previous
    /// decision's, so bad input cannot scramble the activation order.
    let now: Double

    /// Input streams by ascending id, duplicates dropped: decisions do not
    /// depend on the order the caller listed them in.
    var streams: [StreamInput] = []
    /// Per stream: its session's index, or nil when the stream is exempt.
    var streamSession: [Int?] = []
    /// Per stream: held because its private output went away (the output's name).
    var routeLost: [String?] = []
    /// Per stream: the route loss was found in this decision.
    var routeLostNow: [Bool] = []
    /// Per stream: its last output went away while it was not playing; forget it.
    var forgetRoute: [Bool] = []
    /// Per stream: the output where the user switched ports under it, now
    /// or in an earlier decision, while it still plays there.
    var portPickedOn: [String?] = []
    /// Per stream: the user asked to resume it and it was held (or its lost
    /// output came back, with `route.resume-on-return`).
    var resumeRequested: [Bool] = []
    /// Per stream: the output that came back for it (`route.resume-on-return`).
    var returnedTo: [UInt32?] = []
    /// Per stream: `memory.streams[id]`, looked up once.
    var rememberedStreams: [EngineMemory.StreamMemory?] = []

    /// Every session of the input plus sessions that only live on in a debounce gap.
    var sessions: [WorkingSession] = []
    /// Sessions the memory knew that have neither streams nor debounce left.
    var vanished: [(key: SessionKey, remembered: EngineMemory.SessionMemory)] = []
    /// Where each session is in `sessions`.
    var sessionIndexByKey: [SessionKey: Int] = [:]
    /// Active sessions taking part in interactions, in activation order.
    var activationOrder: [Int] = []

    var outputs: [UInt32: OutputInput] = [:]
    /// Outputs usable now: present and available.
    var usableOutputs: Set<UInt32> = []
    var privateOutputs: Set<UInt32> = []
    /// Private outputs the user switched to a public port of theirs (a port
    /// picked, not a jack pulled): what played there goes on.
    var portsPickedByUser: Set<UInt32> = []
    var routeEvents: [PolicyEvent] = []

    init(config: PolicyConfig, matrix: InteractionMatrix, input: PolicyInput, memory: EngineMemory) {
        self.config = config; self.matrix = matrix; self.input = input; self.memory = memory
        let seconds = Double(config.settings.debounceMs) / 1000
        debounce = seconds.isFinite && seconds > 0 ? seconds : 0
        quietHold = max(0, Double(config.settings.duckQuietHoldMs) / 1000)
        now = input.now.isFinite ? input.now : memory.time ?? 0
    }

    func sessionIndex(of key: SessionKey) -> Int? {
        sessionIndexByKey[key]
    }
}

/// One application session as the engine works on it.
struct WorkingSession {
    let key: SessionKey
    var appName: String
    var category: Category
    var options: Set<PolicyOption>
    var mode: AudioMode
    var classCode: Int = 0
    /// Its app instance (`SessionKey.app`), numbered: sessions of one app
    /// never act on each other.
    var app = 0
    var mixable = false
    /// Its category is silenced in silent mode.
    var silencedCategory = false
    /// Indices into `DecisionRun.streams`, ascending ids.
    var streams: [Int] = []
    /// What the previous decision remembered of it (it was active then).
    var remembered: EngineMemory.SessionMemory?

    /// Audio-processing sessions, and sessions whose streams are all exempt, take no part.
    var takesPart = true
    /// A stream plays (and is not held for a lost route).
    var running = false
    /// It was held for another session last time (idle because we unlinked
    /// it), or someone else unlinked its streams while it was active.
    var wantsToPlay = false
    /// Active only because its streams lost their links: that lasts until a
    /// graph event, so it needs no wakeup.
    var unlinkedWhileActive = false
    var resumeRequested = false
    /// Playing, wanting to, or in a debounce gap.
    var active = false
    /// Active for a reason other than the debounce.
    var activeNow = false
    /// Running only as metered streams gone quiet within `duck.quiet-hold-ms`:
    /// until when (then it stops, with no debounce: the hold was its gap).
    var audibleUntil: Double?
    var activeSince = 0.0
    var lastActive = 0.0

    var hold: SessionHold?
    var duckers: [Effect] = []
    var silencer: Effect?
    var silencedBySilentMode = false
    /// A system sound while the screen is shared (docs/POLICY.md, "Presenting").
    var silencedWhilePresenting = false
    /// A category silent mode silences, while the session is locked
    /// (docs/POLICY.md, "Screen lock").
    var silencedWhileLocked = false
    /// A solo-ambient session mixing as ambient because this earlier session
    /// of another app was playing when it started (`yieldToPlayingAudio`).
    var mixesBecause: Int?
    /// For a session that is not active: what it would meet if it started
    /// now, so that its streams wait at that gain and their first sample is
    /// already right (docs/POLICY.md, "Inactive sessions").
    var standby: Standby?

    var duckLevel: Double? { duckers.lazy.map(\.level).min() }
    var isSilenced: Bool { silencedOutright || silencer != nil }
    /// Silenced whatever else plays (silent mode, presenting): it is not
    /// heard, so it takes no part in holds and effects.
    var silencedOutright: Bool { silencedBySilentMode || silencedWhilePresenting || silencedWhileLocked }
    /// Ducking is remembered (and reported) only for sessions not held.
    var rememberedDuck: Double? { takesPart && hold == nil ? duckLevel : nil }

    init(key: SessionKey, appName: String, category: Category, options: Set<PolicyOption>, mode: AudioMode) {
        self.key = key; self.appName = appName; self.category = category; self.options = options; self.mode = mode
    }
}

/// A session holding another one.
struct SessionHold {
    var by: Int
    var rule: Int
    var resumable: Bool
    var waiting: Bool
}

/// A session ducking or silencing another one, through `rule`.
struct Effect {
    var by: Int
    var rule: Int
    var level: Double
}

/// What an inactive session would meet if it started now: made to wait
/// (hold-incoming), silenced (silence-incoming) or ducked (duck-incoming)
/// by `effect.by`. Its streams wait at `gain`, linked as they are.
struct Standby {
    enum Kind { case wait, silence, duck }
    var kind: Kind
    var effect: Effect
    var gain: Double { kind == .duck ? effect.level : 0 }
}
