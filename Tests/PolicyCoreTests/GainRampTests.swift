import Testing
import Foundation
import PolicyCore

@Suite struct GainRampTests {
    static let ramps: [GainRamp] = [
        GainRamp(from: 1, to: 0.2, start: 10, duration: 0.25),
        GainRamp(from: 0, to: 1, start: 3.5, duration: 0.5),
        GainRamp(from: 0.2, to: 0.7, start: 0, duration: 2),
        GainRamp(from: 0.5, to: 0.5, start: 1, duration: 1),
    ]

    @Test(arguments: ramps)
    func endpoints(_ ramp: GainRamp) {
        #expect(ramp.value(at: ramp.start) == ramp.from)
        #expect(ramp.value(at: ramp.start - 100) == ramp.from, "before the start it has not moved")
        #expect(ramp.value(at: ramp.start + ramp.duration) == ramp.to)
        #expect(ramp.value(at: ramp.start + ramp.duration + 100) == ramp.to)
        // Cubic: halfway, the cube of the mean of the cube roots.
        let halfway = (cbrt(ramp.from) + cbrt(ramp.to)) / 2
        #expect(abs(ramp.value(at: ramp.start + ramp.duration / 2) - halfway * halfway * halfway) < 1e-9)
        #expect(!ramp.isFinished(at: ramp.start + ramp.duration / 2) || ramp.duration == 0)
        #expect(ramp.isFinished(at: ramp.start + ramp.duration))
    }

    @Test(arguments: ramps)
    func monotonicAndBounded(_ ramp: GainRamp) {
        let times = (0...200).map { ramp.start - 0.1 + Double($0) * (ramp.duration + 0.2) / 200 }
        let values = times.map(ramp.value(at:))
        let low = min(ramp.from, ramp.to), high = max(ramp.from, ramp.to)
        #expect(values.allSatisfy { $0 >= low - 1e-12 && $0 <= high + 1e-12 })
        for (earlier, later) in zip(values, values.dropFirst()) {
            if ramp.to >= ramp.from {
                #expect(later >= earlier)
            } else {
                #expect(later <= earlier)
            }
        }
    }

    /// A duck heard as even: the first half of the time takes less than
    /// half of the fall in amplitude (linear would take exactly half), and
    /// no part of it falls much faster in decibels than the rest.
    @Test func duckFollowsAPerceptualCurve() {
        let ramp = GainRamp(from: 1, to: 0.2, start: 0, duration: 1)
        #expect(ramp.value(at: 0.5) < 0.6)
        let decibels = (0...10).map { 20 * log10(ramp.value(at: Double($0) / 10)) }
        let drops = zip(decibels, decibels.dropFirst()).map { $0 - $1 }
        #expect(drops.allSatisfy { $0 > 0 })
        #expect(drops.max()! < 3 * drops.min()!, "\(drops)")
    }

    @Test(arguments: [0.0, -1.0])
    func zeroOrNegativeDurationJumps(_ duration: Double) {
        let ramp = GainRamp(from: 1, to: 0.2, start: 5, duration: duration)
        #expect(ramp.duration == 0)
        #expect(ramp.value(at: 4) == 0.2)
        #expect(ramp.value(at: 5) == 0.2)
        #expect(ramp.isFinished(at: 5))
    }

    @Test func nonFiniteTimeGivesAnEndpoint() {
        let ramp = GainRamp(from: 1, to: 0.2, start: 5, duration: 1)
        #expect(ramp.value(at: .nan).isFinite)
        #expect(ramp.value(at: .infinity) == 0.2)
        #expect(ramp.value(at: -.infinity) == 1)
    }
}
