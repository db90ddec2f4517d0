/// How a fade reaches the daemon, and how often. Every Props update the agent
/// sends also wakes WirePlumber's stream handling, which serves the whole
/// desktop, so the fades of all streams share one budget of updates
/// (docs/POLICY.md, "Fades").
///
/// - Native ramps (clients of PipeWire ≥ 0.3.68): the stream's own
///   audioconvert fades, from one Props update carrying `volume` and
///   `volumeRampTime`. It draws a straight line in amplitude, so a fade is a
///   few such segments along the perceptual curve (GainRamp), fewer as more
///   streams fade; a fade back to 1 ends with one plain update, since a
///   native ramp stops one step short of its target (docs/POLICY.md, "Fades").
/// - Stepped (older clients): Props updates on the agent's timer, every graph
///   cycle while few streams fade, further apart as more do. So that no step
///   is heard as a jump, a fade keeps `fewestSteps` by taking longer, up to
///   `longestStretch`; beyond that (over 25 streams fading at once) the
///   budget wins and the steps get fewer and larger, down to one.
/// - Raises (a duck or a hold ending) are not waited for by anyone, so when
///   many start at once they start one after another, within the same
///   budget, instead of as one burst that WirePlumber must work through
///   before it links the stream that starts next; and while a new stream
///   waits for WirePlumber to link it, they wait for it (LinkWait).
///   Lowering is never delayed: a prompt waits for its duck.
public struct FadePacing: Sendable, Equatable {
    /// Props updates a second for all fading streams together. WirePlumber
    /// spends 1–3 ms of CPU on each beside 100 streams, more with more nodes
    /// (its stream-state hooks save the stream's volume and its mixer API
    /// reads every node's volume again: docs/PERFORMANCE.md), so this keeps
    /// fades to a fraction of one CPU there.
    public var updatesPerSecond = 100.0
    /// The shortest step: about one graph cycle (1024 frames at 48 kHz).
    public var shortestStep = 0.025
    public var fewestSteps = 4
    /// The longest a stepped fade is stretched to keep `fewestSteps`.
    public var longestStretch = 1.0
    public var mostSegments = 3
    /// The longest a raise waits for its turn (`raiseDelay`).
    public var longestRaiseStagger = 2.0
    /// The longest raises wait for WirePlumber to link a new stream
    /// (LinkWait): WirePlumber 0.5.8 takes seconds beside hundreds of streams.
    public var longestLinkWait = 10.0
    /// How long after its nominal end a native ramp may still run: the client
    /// starts it at its next graph cycle and it ends within a cycle of its
    /// length. The daemon ignores a new ramp while one runs (and lets the old
    /// one overwrite a plain `volume`), so nothing is sent before.
    public var rampSettle = 0.05
    public var shortestSegment = 0.05
    /// A native ramp's steps, in frames: under a millisecond, inaudible.
    public static let rampStepFrames = 32

    public init() {}

    /// How long the `index`-th of the raises that start together waits
    /// while `fading` streams fade: half the budget goes to starting raises,
    /// the rest to the steps of those under way; all start within
    /// `longestRaiseStagger`. Beside many fading streams they start in
    /// groups (`raiseGroupDivisor`), since each start is a turn of the agent;
    /// the first goes alone and at once, so that a stream starting just then
    /// waits for WirePlumber behind one update, not a group (LinkWait holds
    /// the rest).
    public func raiseDelay(_ index: Int, fading: Int) -> Double {
        let group = max(1, fading / raiseGroupDivisor)
        let turn = (index + group - 1) / group
        return min(Double(turn * group) * 2 / updatesPerSecond, longestRaiseStagger)
    }

    /// A group of raises starting together holds one raise per this many
    /// fading streams. Each start is a turn of the agent, a decision over
    /// the whole graph whose cost grows with the streams, so the turns get
    /// fewer as the streams get more: a few percent of one CPU at any size
    /// (docs/POLICY.md, "Fades").
    public var raiseGroupDivisor = 25

    /// The time between two steps of a stepped fade while `fading` streams
    /// fade: each stream's share of the budget.
    public func stepInterval(fading: Int) -> Double {
        max(shortestStep, Double(max(fading, 1)) / updatesPerSecond)
    }

    /// The time between two steps of a stepped fade lasting `duration`,
    /// configured to last `configured`: the budget's share, but a fade
    /// stretched because many streams faded keeps its few steps when the
    /// others end before it, rather than taking many more.
    public func stepInterval(fading: Int, duration: Double, configured: Double) -> Double {
        let share = stepInterval(fading: fading)
        return duration > configured + 1e-9 ? max(share, duration / Double(fewestSteps)) : share
    }

    /// How long a stepped fade configured to last `duration` takes while
    /// `fading` streams fade: long enough for `fewestSteps` within the
    /// budget, but no longer than `longestStretch` (or `duration`, if that
    /// is longer already).
    public func steppedDuration(_ duration: Double, fading: Int) -> Double {
        let smooth = Double(fewestSteps) * stepInterval(fading: fading)
        return max(duration, min(smooth, longestStretch))
    }

    /// How many native ramps, one after the other, draw a fade lasting
    /// `duration` while `fading` streams fade, and how long each one runs
    /// (with `rampSettle` between them, they fill the duration).
    public func segments(duration: Double, fading: Int) -> (count: Int, length: Double) {
        let affordable = Int(updatesPerSecond * duration / Double(max(fading, 1)))
        var count = max(1, min(mostSegments, affordable))
        func length(_ count: Int) -> Double { (duration - Double(count - 1) * rampSettle) / Double(count) }
        while count > 1 && length(count) < shortestSegment { count -= 1 }
        return (count, max(length(count), 0.001))
    }
}
