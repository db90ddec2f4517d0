/// The engine's own memory between decisions (interruptions in progress,
/// when sessions became active, where streams played). It is part of the
/// state the agent journals, so it is plain data.
public struct EngineMemory: Sendable, Equatable, Codable {
    /// Kept only while the session is active (debounce included).
    public struct SessionMemory: Sendable, Equatable, Codable {
        // Members in key order, as the journal's text sorts them: written
        // straight through (JSONTextEncoder).

        /// When the session became active (its place in the activation order).
        public var activeSince: Double
        /// What the session was — app name, category, mode and options —,
        /// so it keeps acting during a debounce gap even when its streams
        /// are gone (a prompt that opens a new stream per phrase).
        public var appName: String
        public var category: Category
        /// Ducked in that decision, to this level.
        public var ducked: Double?
        /// Held by another session in that decision.
        public var interruption: InterruptionMemory?
        /// When it was last seen active; a gap shorter than the debounce keeps it active.
        public var lastActive: Double
        public var mode: AudioMode
        public var options: Set<PolicyOption>
        public init(activeSince: Double, lastActive: Double, category: Category = .playback,
                    options: Set<PolicyOption> = [], mode: AudioMode = .default, appName: String = "",
                    interruption: InterruptionMemory? = nil, ducked: Double? = nil) {
            self.activeSince = activeSince; self.lastActive = lastActive
            self.category = category; self.options = options; self.mode = mode; self.appName = appName
            self.interruption = interruption; self.ducked = ducked
        }
    }
    /// A session held by another one (interrupted, or waiting for it to end).
    public struct InterruptionMemory: Sendable, Equatable, Codable {
        public var by: SessionKey
        /// Should resume when it ends (always true for a waiting session).
        public var resumable: Bool
        /// Held by hold-incoming rather than interrupted.
        public var waiting: Bool
        public init(by: SessionKey, resumable: Bool, waiting: Bool = false) {
            self.by = by; self.resumable = resumable; self.waiting = waiting
        }
    }
    public struct StreamMemory: Sendable, Equatable, Codable {
        // Members in key order, as the journal's text sorts them: written
        // straight through (JSONTextEncoder).

        /// The last output it played to, its name, and whether it was private.
        public var lastOutput: UInt32?
        public var lastOutputName: String?
        public var lastOutputPrivate: Bool
        /// The output whose private port the user switched away from while it
        /// played there (a port picked, not a jack pulled), while it still
        /// plays there: `explain` says why it was not held. Nil in journals
        /// written before ports were followed.
        public var portPickedOn: String?
        /// Held because its private output went away, until resumed or moved.
        public var routeLost: Bool
        /// When the route was lost (nil in journals written before
        /// `route.resume-on-return`).
        public var routeLostAt: Double?
        public init(lastOutput: UInt32? = nil, lastOutputPrivate: Bool = false,
                    lastOutputName: String? = nil, routeLost: Bool = false, portPickedOn: String? = nil) {
            self.lastOutput = lastOutput; self.lastOutputPrivate = lastOutputPrivate
            self.lastOutputName = lastOutputName; self.routeLost = routeLost; self.portPickedOn = portPickedOn
        }
    }
    public var sessions: [SessionKey: SessionMemory]
    public var streams: [UInt32: StreamMemory]
    /// The previous decision's held streams: a held stream is idle because we
    /// unlinked it, yet its session still wants to play.
    public var held: [UInt32: HoldReason.Kind]
    /// Usable outputs (present and available) of the previous decision, by name.
    public var outputs: [UInt32: String]
    /// Those of them that were private (headphones, headset, Bluetooth).
    public var privateOutputs: Set<UInt32>
    /// The port each of them played to, where it has ports; nil in journals
    /// written before ports were followed.
    public var outputPorts: [UInt32: String]?
    public var defaultOutput: UInt32?
    /// Sessions silenced (silent mode, presenting or silence-incoming) in the previous decision.
    public var silenced: Set<SessionKey>
    /// The app names of those that are not active: they have no `sessions`
    /// entry, yet their unsilenced event must name them after their streams
    /// are gone. Nil when there are none, and in journals written before
    /// names were kept.
    public var silencedApps: [SessionKey: String]?
    /// When the decision that produced this memory was made; nil = no decision yet
    /// (the first decision reports no route changes: it has nothing to compare with).
    public var time: Double?

    public init(sessions: [SessionKey: SessionMemory] = [:], streams: [UInt32: StreamMemory] = [:],
                held: [UInt32: HoldReason.Kind] = [:], outputs: [UInt32: String] = [:],
                privateOutputs: Set<UInt32> = [], defaultOutput: UInt32? = nil,
                silenced: Set<SessionKey> = [], time: Double? = nil) {
        self.sessions = sessions; self.streams = streams; self.held = held
        self.outputs = outputs; self.privateOutputs = privateOutputs; self.defaultOutput = defaultOutput
        self.silenced = silenced; self.time = time
    }

    /// Sessions held by another session in that decision.
    public var interruptions: [SessionKey: InterruptionMemory] { sessions.compactMapValues(\.interruption) }
    /// Sessions ducked in that decision, with their level.
    public var ducked: [SessionKey: Double] { sessions.compactMapValues(\.ducked) }

    public static let empty = EngineMemory()
}
