/// Turns the peaks a meter reads from a stream into its `Audibility`
/// (docs/POLICY.md, "Ducking while audible"): loud from the first block at
/// or above `audibleLevel`, quiet from the first block below it after loud
/// ones, since the last loud one; not yet audible from a first block below
/// it. Only a change is worth a reconcile.
///
/// The agent's meters compare each block with the level on PipeWire's data
/// thread and keep only `Blocks`, the facts the audibility follows from,
/// waking the agent when they change it; `measure` feeds the same facts one
/// block at a time.
public struct AudibilityMeter: Sendable, Equatable {
    /// −60 dBFS: speech synthesizers write digital silence between
    /// utterances, and music or speech is far above this.
    public static let audibleLevel: Float = 0.001

    /// What a meter has measured on its stream so far.
    public struct Blocks: Sendable, Equatable {
        /// At least one block came.
        public var measured: Bool
        /// The latest block was loud.
        public var latestLoud: Bool
        /// When the latest loud block came (monotonic seconds); nil: none yet.
        public var lastLoud: Double?
        public init(measured: Bool = false, latestLoud: Bool = false, lastLoud: Double? = nil) {
            self.measured = measured; self.latestLoud = latestLoud; self.lastLoud = lastLoud
        }

        public var audibility: Audibility {
            guard measured else { return .unmeasured }
            if latestLoud { return .audible }
            return lastLoud.map { .quiet(since: $0) } ?? .notYetAudible
        }
    }

    public private(set) var blocks = Blocks()
    public var audibility: Audibility { blocks.audibility }

    public init() {}

    /// One block's peak measured at `time`; returns whether the audibility changed.
    public mutating func measure(peak: Float, at time: Double) -> Bool {
        let before = audibility
        let loud = peak >= Self.audibleLevel
        blocks.measured = true
        blocks.latestLoud = loud
        if loud { blocks.lastLoud = time }
        return audibility != before
    }
}
