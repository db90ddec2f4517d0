extension AgentCore {
    /// Who this agent is, as its status says.
    public struct Identity: Sendable, Equatable {
        public var pid: Int32
        public var version: String
        /// ISO 8601, UTC.
        public var startedAt: String
        /// Decide and publish, but change nothing outside the agent's own
        /// metadata and journal.
        public var dryRun: Bool
        public init(pid: Int32, version: String, startedAt: String, dryRun: Bool) {
            self.pid = pid; self.version = version; self.startedAt = startedAt; self.dryRun = dryRun
        }
    }

    /// One look at the world: the mirrored graph, the stack beside it, the
    /// media players on the session bus, the time.
    public struct Observation: Sendable {
        public var graph: Graph
        /// Monotonic seconds.
        public var now: Double
        public var stack: PipeWireStack
        public var players: PlayerObservation
        /// What the agent's meters measured (`AgentEffect.meter`).
        public var meters: Meters
        /// What the desktop knows about each client's app, by client id
        /// (docs/CLASSIFICATION.md, "App knowledge").
        public var apps: [UInt32: AppFacts]
        /// The desktop's Do Not Disturb (docs/POLICY.md, "Do Not Disturb").
        public var doNotDisturb: DoNotDisturb
        /// Why the media-key proxy is not on the session bus (its name is
        /// another's, no bus); nil when it is, or when it is turned off.
        public var mediaKeysUnavailable: String?
        /// The streams whose new links the start gate destroyed (`AgentEffect.gate`)
        /// and are still unlinked: stream → the node it was being linked to.
        public var refusedLinks: [UInt32: UInt32]
        /// Whether the session is locked (docs/POLICY.md, "Screen lock").
        public var screenLock = ScreenLock.unknown
        /// The parent of each process that plays or records a stream, while
        /// there are audio sessions (AudioSessionClaims walks up from a
        /// stream's process to a session owner's).
        public var audioSessionAncestry: [Int32: Int32] = [:]
        /// Why the audio-session service is not on the session bus (its name
        /// is another's, no bus, turned off); nil when it is (docs/API.md).
        public var audioSessionsUnavailable: String?
        public init(graph: Graph, now: Double, stack: PipeWireStack, players: PlayerObservation = .unwatched("not connected"),
                    meters: Meters = Meters(), apps: [UInt32: AppFacts] = [:], doNotDisturb: DoNotDisturb = .unknown,
                    mediaKeysUnavailable: String? = nil, refusedLinks: [UInt32: UInt32] = [:]) {
            self.graph = graph; self.now = now; self.stack = stack; self.players = players; self.meters = meters
            self.apps = apps; self.doNotDisturb = doNotDisturb; self.mediaKeysUnavailable = mediaKeysUnavailable
            self.refusedLinks = refusedLinks
        }
    }

    /// The meters' readings (MeterReadings).
    public typealias Meters = MeterReadings
    /// What the session bus adapter saw (PlayerObservation).
    public typealias PlayerObservation = PolicyCore.PlayerObservation
}
