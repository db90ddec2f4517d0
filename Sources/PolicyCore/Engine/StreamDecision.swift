/// What the engine wants for one stream.
public struct StreamDecision: Sendable, Equatable {
    /// The policy gain (Props `volume`): 1.0, a duck level, or 0.
    public var gain: Double
    public var hold: HoldReason?
    /// Silent mode, presenting or a silence-incoming rule keeps it at gain 0 (it stays linked).
    public var silenced: Bool
    /// Sessions ducking this one, if any.
    public var duckedBy: [SessionKey]
    /// Where it should play (a sink id), when a rule prefers a device; nil = leave routing alone.
    public var preferredTarget: UInt32?
    /// Why: one line per effect, naming the other session and the matrix cell.
    public var explanation: [String]

    public init(gain: Double = 1.0, hold: HoldReason? = nil, silenced: Bool = false,
                duckedBy: [SessionKey] = [], preferredTarget: UInt32? = nil, explanation: [String] = []) {
        self.gain = gain; self.hold = hold; self.silenced = silenced; self.duckedBy = duckedBy
        self.preferredTarget = preferredTarget; self.explanation = explanation
    }

    /// What a stream gets when the policy has nothing to say: as without the agent.
    public static let untouched = StreamDecision()
}
