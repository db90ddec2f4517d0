#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fade of the policy gain along a perceptual curve: cubic, the curve
/// volume sliders use (the amplitude is the cube of a straight line between
/// the cube roots of its ends), so a fade is heard as even rather than as
/// most of the change at its end (docs/POLICY.md, "Fades"). Pure: the value
/// is a function of time; how the fade reaches the daemon — native ramps or
/// steps — is the planner's (FadePacing).
public struct GainRamp: Sendable, Equatable, Codable {
    public var from: Double
    public var to: Double
    public var start: Double
    public var duration: Double
    /// A raise whose start waits for WirePlumber to link a new stream
    /// (LinkWait): `start` is only the latest it may begin. Not journaled: a
    /// restarted agent begins it then at the latest.
    public var waitsForLinking = false

    private enum CodingKeys: String, CodingKey { case duration, from, start, to }  // in key order

    public init(from: Double, to: Double, start: Double, duration: Double) {
        self.from = from; self.to = to; self.start = start; self.duration = max(0, duration)
    }

    public var end: Double { start + duration }

    /// Exactly `from` at the start and exactly `to` at the end.
    public func value(at time: Double) -> Double {
        guard duration > 0, time < end else { return to }
        guard time > start, from != to else { return from }
        let progress = (time - start) / duration
        let root = Self.cubeRoot(from) + (Self.cubeRoot(to) - Self.cubeRoot(from)) * progress
        return root * root * root
    }

    public func isFinished(at time: Double) -> Bool { time >= end }

    private static func cubeRoot(_ gain: Double) -> Double { cbrt(max(0, gain)) }
}
