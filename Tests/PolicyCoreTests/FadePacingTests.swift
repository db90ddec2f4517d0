import Testing
import Foundation
@testable import PolicyCore
import PolicyTestSupport

/// How fades reach the daemon: native ramps for clients that have them,
/// steps for the others, and one budget of Props updates for all streams
/// (FadePacing; docs/POLICY.md, "Fades").
@Suite struct FadePacingTests {
    /// The standard harness with stream 10 on a client of `version`.
    static func harness(clientVersion version: String?, state: Graph.NodeState = .running) -> PlannerHarness {
        var harness = PlannerHarness.standard()
        harness.graph.clients[90] = Graph.Client(id: 90, props: version.map { ["core.version": $0] } ?? [:])
        harness.graph.nodes[10]?.props["client.id"] = "90"
        harness.graph.nodes[10]?.state = state
        harness.run([10: gain(1)])  // known at 1
        harness.now = 200
        return harness
    }

    static func ramps(_ steps: [PlannerHarness.Step]) -> [(time: Double, gain: Double, milliseconds: Int)] {
        steps.flatMap { step in
            step.actions.compactMap { action -> (time: Double, gain: Double, milliseconds: Int)? in
                if case .rampGain(10, let gain, let milliseconds) = action { return (step.time, gain, milliseconds) }
                return nil
            }
        }
    }

    // MARK: pacing

    @Test func stepsSpreadOutAsMoreStreamsFadeAndFadesStretchToKeepTheFewest() {
        let pacing = FadePacing()
        #expect(pacing.stepInterval(fading: 1) == pacing.shortestStep)
        #expect(pacing.stepInterval(fading: 2) == pacing.shortestStep)
        #expect(pacing.stepInterval(fading: 100) == 100 / pacing.updatesPerSecond, "each stream's share of the budget")
        #expect(pacing.steppedDuration(0.25, fading: 1) == 0.25, "one stream: as configured")
        #expect(pacing.steppedDuration(0.25, fading: 10) == Double(pacing.fewestSteps) * 10 / pacing.updatesPerSecond,
                "stretched to keep the fewest steps within the budget")
        #expect(pacing.steppedDuration(0.25, fading: 500) == pacing.longestStretch, "but not beyond")
        #expect(pacing.steppedDuration(2, fading: 500) == 2, "a long fade is never shortened")
    }

    @Test func fewerNativeRampsPerFadeAsMoreStreamsFade() {
        let pacing = FadePacing()
        let few = pacing.segments(duration: 0.5, fading: 1)
        let many = pacing.segments(duration: 0.5, fading: 500)
        #expect(few.count == pacing.mostSegments)
        #expect(many.count == 1 && many.length == 0.5)
        // Segments and the settling time between them fill the fade.
        #expect(abs(Double(few.count) * few.length + Double(few.count - 1) * pacing.rampSettle - 0.5) < 1e-9)
        #expect(pacing.segments(duration: 0.08, fading: 1).count == 1, "no segment shorter than \(pacing.shortestSegment) s")
    }

    // MARK: native ramps

    @Test func aNativeFadeIsAFewRampsAlongTheCurveAndNothingBetween() throws {
        var harness = Self.harness(clientVersion: "1.4.2")
        let steps = harness.runUntilIdle([10: gain(0.2)])
        let ramps = Self.ramps(steps)
        #expect(gains(steps, of: 10).isEmpty, "no plain step")
        let expected = harness.planner.pacing.segments(duration: 0.2, fading: 1)
        #expect(ramps.count == expected.count, "\(ramps.map(\.gain))")
        #expect(ramps.first?.time == 200, "the first ramp goes at once")
        #expect(ramps.last?.gain == 0.2)
        let curve = GainRamp(from: 1, to: 0.2, start: 200, duration: 0.2)
        for ramp in ramps {
            let end = ramp.time + Double(ramp.milliseconds) / 1000
            #expect(abs(ramp.gain - curve.value(at: end)) < 0.002, "each ramp ends on the curve")
        }
        // Nothing is sent while a ramp runs: the next starts after the last one's end.
        for (earlier, later) in zip(ramps, ramps.dropFirst()) {
            #expect(later.time >= earlier.time + Double(earlier.milliseconds) / 1000 + harness.planner.pacing.rampSettle - 1e-9)
        }
        #expect(harness.volume(10).map { abs($0 - 0.2) < 1e-6 } == true)
    }

    @Test func aNativeFadeBackToOneLandsExactlyWithOnePlainUpdate() throws {
        var harness = Self.harness(clientVersion: "1.4.2")
        harness.runUntilIdle([10: gain(0.2)])
        harness.now += 1
        let steps = harness.runUntilIdle([10: gain(1)])
        let ramps = Self.ramps(steps)
        let plain = gains(steps, of: 10)
        #expect(ramps.last?.gain == 1)
        #expect(plain.map(\.gain) == [1], "one landing")
        let lastRamp = try #require(ramps.last)
        #expect(plain[0].time >= lastRamp.time + Double(lastRamp.milliseconds) / 1000 + harness.planner.pacing.rampSettle - 1e-9,
                "only once the ramp is over")
        #expect(harness.applied[10]?.isNeutral == true)
    }

    /// The daemon ignores a ramp sent while one runs and lets the running one
    /// overwrite a plain `volume`: a change of mind waits for it.
    @Test func aChangeOfTargetWaitsForTheRunningRamp() throws {
        var harness = Self.harness(clientVersion: "1.4.2")
        let first = harness.run([10: gain(0.2)])
        let until = try #require(harness.applied[10]?.rampRunsUntil)
        #expect(first.nextTick == until)
        harness.now += 0.01
        let meanwhile = harness.run([10: gain(1)])
        #expect(meanwhile.actions.isEmpty)
        #expect(meanwhile.nextTick == until)
        harness.now = until
        let after = harness.run([10: gain(1)])
        guard case .rampGain(10, let next, _) = try #require(after.actions.first) else {
            Issue.record("expected a ramp, got \(after.actions)"); return
        }
        #expect(next > (harness.applied[10]?.commandedGain ?? 0) - 1e-9)
        #expect(next > 0.2, "up from where the first ramp ended")
        harness.runUntilIdle([10: gain(1)])
        #expect(harness.volume(10) == 1)
    }

    /// A ramp advances only while its stream runs: a stream that stops
    /// mid-ramp keeps it pending, however long it stays stopped.
    @Test func aStreamThatStopsMidRampPushesTheRampsEndOut() throws {
        var harness = Self.harness(clientVersion: "1.4.2")
        harness.run([10: gain(0.2)])
        let length = try #require(harness.applied[10]?.rampLength)
        harness.graph.nodes[10]?.state = .idle
        harness.now += 5
        #expect(harness.run([10: gain(1)]).actions.isEmpty)
        harness.graph.nodes[10]?.state = .running
        harness.now += 0.001
        #expect(harness.run([10: gain(1)]).actions.isEmpty, "the rest of the ramp plays first")
        harness.now += length + harness.planner.pacing.rampSettle
        #expect(!harness.run([10: gain(1)]).actions.isEmpty)
    }

    @Test func aHoldDuringANativeRampSilencesAtOnceAndAgainAfterIt() throws {
        var harness = Self.harness(clientVersion: "1.4.2")
        harness.run([10: gain(0.2)])
        let until = try #require(harness.applied[10]?.rampRunsUntil)
        harness.now += 0.01
        let held = harness.run([10: hold()])
        #expect(held.actions.first == .setGain(node: 10, gain: 0))
        #expect(destroyedLinks(held.actions) == [50])
        harness.graph.nodes[10]?.volume = 0.5  // the ramp overwrites it in the client
        harness.now = until
        let after = harness.run([10: hold()])
        #expect(after.actions.contains(.setGain(node: 10, gain: 0)), "\(after.actions)")
    }

    @Test func aStreamLeftAloneMidRampIsRestoredOnceTheRampIsOver() throws {
        var harness = Self.harness(clientVersion: "1.4.2")
        harness.run([10: gain(0.2)])
        let until = try #require(harness.applied[10]?.rampRunsUntil)
        harness.now += 0.01
        let meanwhile = harness.run([:])
        #expect(meanwhile.actions.isEmpty)
        #expect(meanwhile.nextTick == until)
        harness.now = until
        #expect(harness.run([:]).actions == [.setGain(node: 10, gain: 1)])
        harness.run([:])
        #expect(harness.applied[10] == nil, "forgotten once restored")
    }

    @Test(arguments: ["0.3.65" as String?, nil, "garbage"])
    func olderOrUnknownClientsAreStepped(_ version: String?) {
        var harness = Self.harness(clientVersion: version)
        let steps = harness.runUntilIdle([10: gain(0.2)])
        #expect(Self.ramps(steps).isEmpty)
        #expect(gains(steps, of: 10).count > 4)
        #expect(harness.volume(10).map { abs($0 - 0.2) < 1e-6 } == true)
    }

    /// Nobody hears a stream that does not run: a fade would only cost
    /// Props updates, and a stream that opens during a recording must be at
    /// its gain before its first sample (docs/POLICY.md, "Inactive sessions").
    @Test(arguments: [("1.4.2" as String?, Graph.NodeState.idle), ("0.3.65", .suspended)])
    func streamsThatDoNotRunGoStraightToTheirGain(_ version: String?, _ state: Graph.NodeState) {
        var harness = Self.harness(clientVersion: version, state: state)
        let steps = harness.runUntilIdle([10: gain(0.2)])
        #expect(Self.ramps(steps).isEmpty)
        #expect(gains(steps, of: 10).map(\.gain) == [0.2])
        #expect(harness.volume(10).map { abs($0 - 0.2) < 1e-6 } == true)
    }

    // MARK: the budget

    /// 25 streams ducking at once: each gets fewer, larger steps than one
    /// alone, still `fewestSteps`, over a fade stretched to keep within the
    /// budget; no step falls more than a few decibels.
    @Test func manyStreamsFadingShareTheBudget() {
        let (steps, ids, pacing) = Self.duck(streams: 25)
        for id in ids {
            let values = [1.0] + gains(steps, of: id).map(\.gain)
            #expect(values.count - 1 == pacing.fewestSteps, "\(values)")
            let drops = zip(values, values.dropFirst()).map { 20 * log10($0 / $1) }
            #expect(drops.allSatisfy { $0 > 0 && $0 < 5 }, "\(drops)")
            #expect(values.last == 0.2)
        }
        Self.expectWithinTheBudget(steps, pacing: pacing)
    }

    /// 100 or 500 streams ducking at once: four steps each would be 400 or
    /// 2 000 updates, four or twenty seconds of the budget; the fade
    /// stretches to `longestStretch` and the budget wins: one update per
    /// stream, straight to the level, and all of them at once — a prompt
    /// waits for its duck.
    @Test(arguments: [100, 500])
    func hundredsOfStreamsFadingGetFewerStepsNotMoreUpdates(_ count: Int) {
        let (steps, ids, _) = Self.duck(streams: count)
        for id in ids {
            #expect(gains(steps, of: id).map(\.gain) == [0.2])
        }
        #expect(steps.first?.actions.count == count)
        #expect(steps.reduce(0) { $0 + $1.actions.count } == count)
    }

    /// The same streams coming back up: nobody waits for that, so the raises
    /// start one after another within the budget rather than as one burst
    /// WirePlumber must work through before it links the next new stream;
    /// beside many fading streams in groups, each start being a turn of the
    /// agent. They start on time also when the fade up begins less than a
    /// step interval after the duck (the ducking stream played a second):
    /// scheduled a step after the duck's command, the raises due by then went
    /// in one burst, late.
    @Test(arguments: [(100, false, 100.0), (100, false, 0.5), (500, false, 0.5), (20, true, 100.0)])
    func raisesOfManyStreamsStartOneAfterAnother(_ count: Int, _ native: Bool, _ duckPlays: Double) throws {
        var harness = PlannerHarness.standard()
        let ids = (0..<count).map { UInt32(1000 + $0) }
        for id in ids { harness.addStream(id) }
        if native {
            harness.graph.clients[90] = Graph.Client(id: 90, props: ["core.version": "1.4.2"])
            for id in ids { harness.graph.nodes[id]?.props["client.id"] = "90"; harness.graph.nodes[id]?.state = .running }
        }
        harness.run(Dictionary(uniqueKeysWithValues: ids.map { ($0, gain(1)) }))
        harness.now = 200
        harness.runUntilIdle(Dictionary(uniqueKeysWithValues: ids.map { ($0, gain(0.2)) }))
        let raised = max(harness.now, 200 + duckPlays)
        harness.now = raised
        let steps = harness.runUntilIdle(Dictionary(uniqueKeysWithValues: ids.map { ($0, gain(1)) }))
        let pacing = harness.planner.pacing
        func updates(of id: UInt32) -> [Double] { Self.updates(of: id, in: steps) }
        var starts = Set<Double>()
        for (index, id) in ids.enumerated() {
            let first = try #require(updates(of: id).first)
            starts.insert(first)
            // Within a millisecond: the planner's turns are at least that far apart.
            #expect(abs(first - (raised + pacing.raiseDelay(index, fading: count))) <= 0.001 + 1e-9,
                    "stream \(index) starts its raise at \(first - raised) s")
            #expect(harness.volume(id) == 1)
        }
        let groups = Set(ids.indices.map { pacing.raiseDelay($0, fading: count) }).count
        #expect(starts.count == groups, "one turn per group of raises")
        #expect(count < 500 || groups == 6, "beside 500 fading streams: the first, groups of 20, the rest at 2 s")
        #expect(ids.indices.filter { pacing.raiseDelay($0, fading: count) == 0 }.count == 1, "the first goes alone")
        #expect(pacing.raiseDelay(0, fading: 1) == 0, "the first raise, or a stream's alone, goes at once")
        // Beyond 100 streams those left when `longestRaiseStagger` is up go together.
        if Double(count) * 2 / pacing.updatesPerSecond <= pacing.longestRaiseStagger {
            Self.expectWithinTheBudget(steps, pacing: pacing)
        }
        // A fade stretched because many faded keeps its few steps when the
        // others end first: never more than `fewestSteps` each.
        for id in ids {
            #expect(updates(of: id).count <= pacing.fewestSteps + 1, "stream \(id)")
        }
    }

    // MARK: raises wait for WirePlumber's links (LinkWait)

    /// Stream 10 ducked to 0.2; at 300 the duck ends and stream 30 appears
    /// with `props` (linked by WirePlumber or not, as the test says).
    static func duckEndsAsAStreamAppears(props: [String: String] = [:]) -> PlannerHarness {
        var harness = PlannerHarness.standard()
        harness.now = 200
        harness.runUntilIdle([10: gain(0.2)])
        harness.now = 300
        harness.graph.addStream(30, props: props)
        harness.classified[30] = testClassified(30, category: .playback, direction: .playback, app: "app30")
        return harness
    }

    /// When stream `id` got a gain update (a step or a native ramp).
    static func updates(of id: UInt32, in steps: [PlannerHarness.Step]) -> [Double] {
        steps.flatMap { step in step.actions.compactMap { action in
            switch action {
            case .setGain(id, _), .rampGain(id, _, _): step.time
            default: nil
            }
        } }
    }

    static func firstUpdate(of id: UInt32, in steps: [PlannerHarness.Step]) -> Double? {
        updates(of: id, in: steps).first
    }

    /// A new stream WirePlumber has not linked yet holds the fade up back —
    /// every Props update would be worked through before its link — and the
    /// raise starts as soon as the link appears.
    @Test func aRaiseWaitsUntilWirePlumberHasLinkedTheNewStream() throws {
        var harness = Self.duckEndsAsAStreamAppears()
        let decisions: [UInt32: StreamDecision] = [10: gain(1), 30: gain(1)]
        var steps: [PlannerHarness.Step] = []
        for _ in 0..<5 {
            let plan = harness.run(decisions)
            steps.append(PlannerHarness.Step(time: harness.now, actions: plan.actions))
            #expect(try #require(plan.nextTick) <= 300 + harness.planner.pacing.longestLinkWait + 1e-9,
                    "the raise starts at the latest when the wait is over")
            harness.now += 0.1
        }
        #expect(Self.firstUpdate(of: 10, in: steps) == nil, "no raise while stream 30 waits for its link")
        #expect(harness.graph.nodes[10]?.volume == 0.2)
        harness.graph.addLink(60, from: 30, to: 1)
        let linkedAt = harness.now
        steps = harness.runUntilIdle(decisions)
        #expect(Self.firstUpdate(of: 10, in: steps) == linkedAt, "the raise starts with the link")
        #expect(harness.volume(10) == 1)
    }

    /// The agent links a stream that ducks others to its meter as soon as
    /// its ports appear, often before WirePlumber links it: that link is
    /// not WirePlumber's, and the raise still waits for it.
    @Test func aLinkToTheAgentsMeterIsNotWirePlumbersLink() throws {
        var harness = Self.duckEndsAsAStreamAppears()
        harness.graph.nodes[70] = Graph.Node(id: 70, props: [Graph.Node.agentsOwnKey: "meter", "node.name": "pw-policy-meter-0"],
                                             state: .running)
        harness.graph.ports[700] = Graph.Port(id: 700, nodeID: 70, direction: .input, channel: "MONO")
        harness.graph.links[61] = Graph.Link(id: 61, outputNode: 30, outputPort: 301, inputNode: 70, inputPort: 700, state: .active)
        var steps: [PlannerHarness.Step] = []
        for _ in 0..<3 {
            let plan = harness.run([10: gain(1), 30: gain(1)])
            steps.append(PlannerHarness.Step(time: harness.now, actions: plan.actions))
            harness.now += 0.1
        }
        #expect(Self.firstUpdate(of: 10, in: steps) == nil, "no raise while stream 30 waits for WirePlumber's link")
        harness.graph.addLink(60, from: 30, to: 1)
        let linkedAt = harness.now
        steps = harness.runUntilIdle([10: gain(1), 30: gain(1)])
        #expect(Self.firstUpdate(of: 10, in: steps) == linkedAt, "the raise starts with WirePlumber's link")
    }

    /// A stream WirePlumber never links keeps nobody ducked for longer
    /// than `longestLinkWait`.
    @Test func aStreamNeverLinkedHoldsRaisesBackOnlySoLong() throws {
        var harness = Self.duckEndsAsAStreamAppears()
        let steps = harness.runUntilIdle([10: gain(1), 30: gain(1)])
        let first = try #require(Self.firstUpdate(of: 10, in: steps))
        #expect(abs(first - (300 + harness.planner.pacing.longestLinkWait)) < 1e-6)
        #expect(harness.volume(10) == 1)
    }

    /// Streams WirePlumber is not going to link hold nothing back: one that
    /// asks not to be linked (JACK clients), one held by us, one that was
    /// linked before and lost its links.
    @Test(arguments: ["autoconnect", "held", "unlinked"])
    func streamsWirePlumberIsNotLinkingHoldNoRaiseBack(_ kind: String) throws {
        var harness = Self.duckEndsAsAStreamAppears(props: kind == "autoconnect" ? ["node.autoconnect": "false"] : [:])
        var decisions: [UInt32: StreamDecision] = [10: gain(0.2), 30: gain(1)]
        switch kind {
        case "held":
            harness.graph.addLink(60, from: 30, to: 1)
            harness.run([10: gain(0.2), 30: hold()])  // unlinked by us
            decisions[30] = hold()
        case "unlinked":
            harness.graph.addLink(60, from: 30, to: 1)
            harness.run(decisions)
            harness.graph.links[60] = nil
        default: break
        }
        #expect(harness.graph.links(from: 30).isEmpty)
        decisions[10] = gain(1)
        let raisedAt = harness.now
        let steps = harness.runUntilIdle(decisions)
        #expect(Self.firstUpdate(of: 10, in: steps) == raisedAt, "the raise starts at once")
    }

    /// `count` stepped streams known at 1 and then ducked to 0.2 together.
    static func duck(streams count: Int) -> (steps: [PlannerHarness.Step], ids: [UInt32], pacing: FadePacing) {
        var harness = PlannerHarness.standard()
        let ids = (0..<count).map { UInt32(1000 + $0) }
        for id in ids { harness.addStream(id) }
        harness.run(Dictionary(uniqueKeysWithValues: ids.map { ($0, gain(1)) }))
        harness.now = 200
        let steps = harness.runUntilIdle(Dictionary(uniqueKeysWithValues: ids.map { ($0, gain(0.2)) }))
        return (steps, ids, harness.planner.pacing)
    }

    /// No second of the fade carries more updates than the budget.
    static func expectWithinTheBudget(_ steps: [PlannerHarness.Step], pacing: FadePacing) {
        guard let start = steps.first?.time else { return }
        var perSecond: [Int: Int] = [:]
        for step in steps { perSecond[Int(step.time - start), default: 0] += step.actions.count }
        for (second, updates) in perSecond {
            #expect(Double(updates) <= pacing.updatesPerSecond, "second \(second): \(updates) updates")
        }
    }
}
