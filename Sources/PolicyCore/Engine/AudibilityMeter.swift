/// Turns the peaks a meter reads from a stream into its `Audibility`
/// (docs/POLICY.md, "Ducking while audible"): loud from the first block at
/// or above `audibleLevel`, quiet from the first block below it after loud
/// ones, since the last loud one; not yet audible from a first block below it. The adapter feeds it every block; only a
/// change is worth a reconcile.
public struct AudibilityMeter: Sendable, Equatable {
    /// −60 dBFS: speech synthesizers write digital silence between
    /// utterances, and music or speech is far above this.
    public static let audibleLevel: Float = 0.001

    public private(set) var audibility: Audibility = .unmeasured
    private var lastLoud: Double?

    public init() {}

    /// One block's peak measured at `time`; returns whether the audibility changed.
    public mutating func measure(peak: Float, at time: Double) -> Bool {
        if peak >= Self.audibleLevel {
            lastLoud = time
            guard audibility != .audible else { return false }
            audibility = .audible
            return true
        }
        switch audibility {
        case .unmeasured: audibility = .notYetAudible
        case .audible: audibility = .quiet(since: lastLoud ?? time)
        case .notYetAudible, .quiet: return false
        }
        return true
    }
}
