/// A linear fade of the policy gain, stepped by the agent's timer (PipeWire
/// 0.3.65 has no volume-ramp props). Pure: the value is a function of time.
public struct GainRamp: Sendable, Equatable, Codable {
    public var from: Double
    public var to: Double
    public var start: Double
    public var duration: Double

    public init(from: Double, to: Double, start: Double, duration: Double) {
        self.from = from; self.to = to; self.start = start; self.duration = max(0, duration)
    }

    public func value(at time: Double) -> Double {
        guard duration > 0, time < start + duration else { return to }
        let progress = max(0, (time - start) / duration)
        return from + (to - from) * progress
    }

    public func isFinished(at time: Double) -> Bool { time >= start + duration }
}
