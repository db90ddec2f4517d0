import Testing
@testable import PolicyCore
import PolicyTestSupport

@Suite struct ReconcilePlannerTests {
    // MARK: new streams

    @Test(arguments: [(Float(1), 0.2), (1, 0), (0.2, 1), (0.35, 0.2), (0, 1)])
    func newStreamJumpsToItsTarget(_ reported: Float, _ target: Double) {
        var harness = PlannerHarness.standard()
        harness.graph.nodes[10]?.volume = reported
        let plan = harness.run([10: gain(target)])
        #expect(plan.actions == [.setGain(node: 10, gain: target)])
        #expect(plan.applied[10]?.ramp == nil, "no fade for a new stream")
        #expect(plan.applied[10]?.commandedGain == target)
        #expect(plan.nextTick == 100.25, "only the confirmation check")
    }

    /// A duck sent and not yet reported back: the graph still shows 1, yet
    /// the duck is on its way. A restore must follow it with a 1 of its own,
    /// or the stream is left at the duck level (seen with 100 streams and
    /// SIGTERM a moment after a duck began).
    @Test func aRestoreFollowsACommandStillOnItsWay() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])  // known at 1
        harness.now += 10
        let duck = harness.run([10: gain(0.2)], daemonApplies: false)
        #expect(!duck.actions.isEmpty)
        #expect(harness.volume(10) == 1, "not reported back yet")
        let atShutdown = harness.planner.restoreAll(graph: harness.graph, applied: harness.applied, now: harness.now)
        #expect(atShutdown == [.setGain(node: 10, gain: 1)])
        // The same when the stream stops being ours (its decision goes away).
        let leaving = harness.run([:], daemonApplies: false)
        #expect(leaving.actions == [.setGain(node: 10, gain: 1)])
        harness.now += 0.01
        #expect(harness.run([:], daemonApplies: false).actions.isEmpty, "sent once, not on every reconcile")
    }

    @Test func newStreamWaitsForItsPropsVolume() {
        var harness = PlannerHarness.standard()
        harness.graph.nodes[10]?.volume = nil
        let waiting = harness.run([10: gain(0.2)])
        #expect(waiting.actions.isEmpty)
        // Still new when the volume arrives: a jump, not a fade.
        harness.graph.nodes[10]?.volume = 1
        harness.now += 0.1
        #expect(harness.run([10: gain(0.2)]).actions == [.setGain(node: 10, gain: 0.2)])
    }

    @Test func streamAtItsTargetIsIdle() {
        var harness = PlannerHarness.standard()
        harness.addStream(11, volume: 0.2)
        for _ in 0..<3 {
            let plan = harness.run([10: gain(1), 11: gain(0.2)])
            #expect(plan.actions.isEmpty)
            #expect(plan.nextTick == nil)
            harness.now += 5
        }
    }

    // MARK: fades

    struct FadeCase: CustomTestStringConvertible, Sendable {
        var from: Double
        var to: Double
        /// fadeDown for a decrease, fadeUp for an increase.
        var duration: Double
        var testDescription: String { "\(from) → \(to)" }
    }

    @Test(arguments: [
        FadeCase(from: 1, to: 0.2, duration: 0.2),
        FadeCase(from: 1, to: 0, duration: 0.2),
        FadeCase(from: 0.2, to: 1, duration: 0.4),
        FadeCase(from: 0.2, to: 0.5, duration: 0.4),
    ])
    func changeOfDecisionFades(_ example: FadeCase) throws {
        var harness = PlannerHarness.standard()
        harness.graph.nodes[10]?.volume = Float(example.from)
        // Known stream: seen once at its first decision.
        harness.runUntilIdle([10: gain(example.from)])
        harness.now = 200
        let steps = harness.runUntilIdle([10: gain(example.to)])
        let commanded = gains(steps, of: 10)

        let last = try #require(commanded.last)
        #expect(last.gain == example.to, "it ends exactly on its target")
        #expect(abs(harness.volume(10)! - example.to) < 1e-6)
        // A step every graph cycle while one stream fades, each one way, each a
        // point of the perceptual curve one step ahead: the first goes at once.
        let expectedSteps = Int((example.duration / harness.step).rounded())
        #expect(commanded.count >= expectedSteps - 1 && commanded.count <= expectedSteps + 1,
                "\(commanded.count) steps for \(expectedSteps)")
        #expect(commanded.first?.time == 200)
        let curve = GainRamp(from: example.from, to: example.to, start: 200, duration: example.duration)
        let values = [example.from] + commanded.map(\.gain)
        for (earlier, later) in zip(values, values.dropFirst()) {
            if example.to > example.from { #expect(later > earlier) } else { #expect(later < earlier) }
        }
        for step in commanded.dropLast() {
            #expect(abs(step.gain - curve.value(at: step.time + harness.step)) < 1e-9, "at \(step.time)")
        }
        // Fade down uses fadeDown, fade up uses fadeUp (simulated time).
        #expect(last.time >= 200 + example.duration - 2 * harness.step - 1e-9)
        #expect(commanded.allSatisfy { $0.time <= 200 + example.duration + 1e-9 })
        // Done: nothing more to do and no tick.
        let after = harness.run([10: gain(example.to)])
        #expect(after.actions.isEmpty && after.nextTick == nil)
    }

    @Test func nextTickIsSetWhileFadingAndNilWhenDone() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        let first = harness.run([10: gain(0.2)])
        #expect(first.nextTick == 100 + harness.step)
        #expect(first.applied[10]?.ramp != nil)
        var ticks: [Double?] = [first.nextTick]
        while let next = ticks.last!, ticks.count < 100 {
            harness.now = next
            ticks.append(harness.run([10: gain(0.2)]).nextTick)
        }
        #expect(ticks.last! == nil)
        #expect(harness.applied[10]?.ramp == nil)
        #expect(ticks.count > 5)
    }

    @Test func fadeReversesMidwayFromWhereItIs() throws {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        harness.run([10: gain(0.2)])
        for _ in 0..<4 {
            harness.now += harness.step
            harness.run([10: gain(0.2)])
        }
        let midway = try #require(harness.volume(10))
        #expect(midway < 1 && midway > 0.2)
        let back = harness.runUntilIdle([10: gain(1)])
        let commanded = gains(back, of: 10).map(\.gain)
        #expect(commanded.first! >= midway - 1e-6, "no jump down before going up")
        #expect(zip(commanded, commanded.dropFirst()).allSatisfy { $0 < $1 })
        #expect(commanded.last == 1)
    }

    /// A step that lands a hair below the target (the daemon already reports
    /// it) is still followed by the exact last one.
    @Test func theLastStepIsSentEvenWhenTheOneBeforeIsAlmostThere() throws {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(0.2)])
        harness.run([10: gain(0.2)])
        #expect(harness.volume(10).map { abs($0 - 0.2) < 1e-6 } == true)
        harness.now += 1
        let start = harness.now
        harness.run([10: gain(1)])
        harness.now = start + 0.4 - 0.0005  // fade up takes 0.4 s here
        harness.run([10: gain(1)])
        #expect(harness.volume(10) == 1, "the last step is the target itself")
        #expect(harness.run([10: gain(1)]).actions == [])
    }

    @Test func zeroFadeDurationStepsAtOnce() {
        var harness = PlannerHarness.standard()
        harness.planner = ReconcilePlanner(
            settings: Settings(duckLevel: 0.2, fadeDownMs: 0, fadeUpMs: 0, debounceMs: 0,
                               defaultCategory: .playback, defaultOptions: []))
        harness.run([10: gain(1)])
        let plan = harness.run([10: gain(0.2)])
        #expect(plan.actions == [.setGain(node: 10, gain: 0.2)])
        #expect(plan.applied[10]?.ramp == nil)
    }

    // MARK: holds

    @Test func holdSilencesThenUnlinksEveryLink() throws {
        var harness = PlannerHarness.standard()
        harness.graph.addLink(51, from: 10, to: 2)
        harness.graph.addLink(49, from: 3, to: 10)
        harness.graph.addLink(60, from: 3, to: 1)  // not ours to touch
        harness.run([10: gain(1)])
        let plan = harness.run([10: hold()])
        #expect(plan.actions.first == .setGain(node: 10, gain: 0), "silence before any unlink")
        #expect(destroyedLinks(plan.actions).sorted() == [49, 50, 51])
        #expect(plan.actions.count == 4)
        #expect(plan.applied[10]?.held == true)
        #expect(harness.graph.links.keys.sorted() == [60])
    }

    @Test func holdOfANewStreamSilencesFirstToo() {
        var harness = PlannerHarness.standard()
        let plan = harness.run([10: hold()])
        #expect(plan.actions == [.setGain(node: 10, gain: 0), .destroyLink(50)])
    }

    @Test func heldStreamStaysUnlinkedQuietAndSuspendedIfItRunsOn() {
        var harness = PlannerHarness.standard()
        harness.run([10: hold()])
        // Unlinked, and still running (node.always-process): suspended once it
        // stayed unlinked a moment, which stops its client's clock (docs/HOLDS.md).
        let unlinked = harness.run([10: hold()])
        #expect(unlinked.actions.isEmpty)
        #expect(unlinked.nextTick == harness.now + ReconcilePlanner.unlinkedBeforeSuspend)
        harness.now += 0.5
        #expect(harness.run([10: hold()]).actions == [.suspend(node: 10)])
        harness.now += 0.5
        #expect(harness.run([10: hold()]).actions.isEmpty)
        // WirePlumber relinks it (the default sink changed), which starts it:
        // unlinked again, no gain change, then suspended again.
        harness.graph.addLink(77, from: 10, to: 2)
        harness.graph.nodes[10]?.state = .running
        harness.now += 0.5
        #expect(harness.run([10: hold()]).actions == [.destroyLink(77)])
        harness.run([10: hold()])
        harness.now += 0.5
        #expect(harness.run([10: hold()]).actions == [.suspend(node: 10)])
        #expect(harness.run([10: hold()]).nextTick == nil)
    }

    @Test func aHeldStreamThatGoesIdleIsNotSuspended() {
        var harness = PlannerHarness.standard()
        harness.run([10: hold()])
        harness.graph.nodes[10]?.state = .idle  // no links, no driver: not scheduled
        harness.run([10: hold()])
        harness.now += 1
        let plan = harness.run([10: hold()])
        #expect(plan.actions.isEmpty)
        #expect(plan.nextTick == nil)
    }

    @Test func aSuspendNotReportedBackIsResentAfterAWhile() {
        var harness = PlannerHarness.standard()
        harness.graph.links[50] = nil
        harness.run([10: hold()], daemonApplies: false)
        harness.now += 0.5
        let start = harness.now
        #expect(harness.run([10: hold()], daemonApplies: false).actions.contains(.suspend(node: 10)))
        harness.graph.nodes[10]?.volume = 0
        harness.now = start + 0.125
        let early = harness.run([10: hold()], daemonApplies: false)
        #expect(!early.actions.contains(.suspend(node: 10)), "not sent again at once")
        #expect(early.nextTick == start + ReconcilePlanner.resuspendAfter, "a tick to check again")
        harness.now = start + 0.25
        #expect(harness.run([10: hold()], daemonApplies: false).actions.contains(.suspend(node: 10)))
    }

    @Test func aHeldCaptureStreamIsNotSuspended() {
        var harness = PlannerHarness.standard()
        harness.addStream(11, direction: .capture, category: .record)
        harness.run([11: hold()])
        harness.now += 0.5
        #expect(!harness.run([11: hold()]).actions.contains(.suspend(node: 11)))
    }

    @Test func holdDuringAFadeStopsTheFade() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        harness.run([10: gain(0.2)])
        harness.now += harness.step
        harness.run([10: gain(0.2)])
        harness.now += harness.step
        let plan = harness.run([10: hold()])
        #expect(plan.actions.first == .setGain(node: 10, gain: 0))
        #expect(plan.applied[10]?.ramp == nil)
    }

    @Test func unconfirmedSilenceOfAHoldIsResent() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        #expect(harness.run([10: hold()], daemonApplies: false).actions.first == .setGain(node: 10, gain: 0))
        harness.graph.links[50] = nil
        harness.graph.nodes[10]?.state = .idle
        harness.now += 0.5
        #expect(harness.run([10: hold()], daemonApplies: false).actions.isEmpty)
        harness.now += 0.5
        #expect(harness.run([10: hold()], daemonApplies: false).actions == [.setGain(node: 10, gain: 0)])
    }

    // MARK: release

    @Test func releaseRelinksToTheDefaultSinkThenFadesUp() throws {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        harness.run([10: hold()])
        #expect(harness.graph.links(from: 10).isEmpty)
        harness.now = 200
        let steps = harness.runUntilIdle([10: gain(1)])
        #expect(steps.first?.actions.first == .link(output: 10, input: 1))
        #expect(steps.flatMap(\.actions).filter { if case .link = $0 { true } else { false } }.count == 1)
        let commanded = gains(steps, of: 10)
        #expect(commanded.count > 5)
        #expect(commanded.first!.gain < 0.2, "starts from silence")
        #expect(zip(commanded, commanded.dropFirst()).allSatisfy { $0.gain < $1.gain })
        #expect(commanded.last?.gain == 1)
        // Over fadeUp, its steps one ahead.
        #expect(abs(commanded.last!.time - (200 + 0.4 - harness.step)) < 1e-6, "fades up over fadeUp")
        #expect(harness.applied[10]?.held == false)
        #expect(harness.graph.links(from: 10).map(\.inputNode) == [1])
    }

    @Test func releaseLinksToThePreferredTarget() {
        var harness = PlannerHarness.standard()
        harness.run([10: hold()])
        let plan = harness.run([10: StreamDecision(gain: 1, preferredTarget: 2)])
        #expect(plan.actions.first == .link(output: 10, input: 2))
    }

    @Test func releaseOfACaptureStreamLinksTheDefaultSource() {
        var harness = PlannerHarness.standard()
        harness.addStream(20, direction: .capture, category: .record, linked: false)
        harness.graph.addLink(51, from: 3, to: 20)
        harness.run([10: gain(1), 20: gain(1)])
        #expect(harness.run([10: gain(1), 20: hold()]).actions == [.setGain(node: 20, gain: 0), .destroyLink(51)])
        let plan = harness.run([10: gain(1), 20: gain(1)])
        #expect(plan.actions.first == .link(output: 3, input: 20), "the source's output to the capture stream's input")
        #expect(harness.graph.links(to: 20).map(\.outputNode) == [3])
    }

    @Test func releaseOfAStreamAlreadyRelinkedDoesNotLinkAgain() {
        var harness = PlannerHarness.standard()
        harness.run([10: hold()])
        harness.graph.addLink(78, from: 10, to: 1)
        let plan = harness.run([10: gain(1)])
        #expect(!plan.actions.contains { if case .link = $0 { true } else { false } })
        #expect(plan.applied[10]?.held == false)
    }

    // MARK: someone else's changes and confirmation

    @Test func externalVolumeChangeIsCorrectedAtOnce() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(0.2)])
        harness.now += 0.1
        #expect(harness.run([10: gain(0.2)]).actions.isEmpty)  // confirmed now
        #expect(harness.applied[10]?.confirmed == true)
        harness.graph.nodes[10]?.volume = 1  // restore-stream puts back a stale value
        harness.now += 0.1
        let plan = harness.run([10: gain(0.2)])
        #expect(plan.actions == [.setGain(node: 10, gain: 0.2)])
        #expect(plan.applied[10]?.ramp == nil)
    }

    @Test func externalChangeOnAnUntouchedStreamIsCorrected() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        harness.graph.nodes[10]?.volume = 0.3
        harness.now += 0.1
        #expect(harness.run([10: gain(1)]).actions == [.setGain(node: 10, gain: 1)])
    }

    @Test func unconfirmedCommandIsResentOnlyAfterTheTimeout() {
        var harness = PlannerHarness.standard()
        #expect(harness.run([10: gain(0.2)], daemonApplies: false).actions == [.setGain(node: 10, gain: 0.2)])
        // Checked every 0.25 s for being overtaken (nothing here to overtake it).
        for (wait, check) in [(0.1, 100.25), (0.5, 100.75), (0.8, 101), (0.99, 101)] {
            harness.now = 100 + wait
            let plan = harness.run([10: gain(0.2)], daemonApplies: false)
            #expect(plan.actions.isEmpty, "resent after \(wait)s")
            #expect(plan.nextTick == check, "checked after \(wait)s")
        }
        harness.now = 101
        let resent = harness.run([10: gain(0.2)], daemonApplies: false)
        #expect(resent.actions == [.setGain(node: 10, gain: 0.2)])
        #expect(resent.nextTick == 101.25)
    }

    /// Streams 10, 11 and 12 of one client (`client.id` 7, unless `client11`
    /// says otherwise), each sent 0.2 in one reconcile that the daemon loses.
    static func threeStreamsDucked(client11: String = "7") -> PlannerHarness {
        var harness = PlannerHarness.standard()
        harness.graph.nodes[10]?.props["client.id"] = "7"
        harness.addStream(11, props: ["client.id": client11])
        harness.addStream(12, props: ["client.id": "7"])
        let sent = harness.run([10: gain(0.2), 11: gain(0.2), 12: gain(0.2)], daemonApplies: false)
        #expect(sent.actions == [10, 11, 12].map { .setGain(node: $0, gain: 0.2) })
        return harness
    }

    /// The client reports in order: a later command reported back means
    /// the earlier ones it has not reported were lost.
    @Test func commandOvertakenBySameClientIsResentBeforeTheTimeout() {
        var harness = Self.threeStreamsDucked()
        harness.graph.nodes[12]?.volume = 0.2
        harness.now += 0.25
        let plan = harness.run([10: gain(0.2), 11: gain(0.2), 12: gain(0.2)], daemonApplies: false)
        #expect(plan.actions == [.setGain(node: 10, gain: 0.2), .setGain(node: 11, gain: 0.2)])
        #expect(plan.applied[12]?.confirmed == true)
    }

    @Test func commandsSentAfterTheLastReportedAreNotOvertaken() {
        var harness = Self.threeStreamsDucked()
        harness.graph.nodes[10]?.volume = 0.2
        harness.now += 0.25
        let plan = harness.run([10: gain(0.2), 11: gain(0.2), 12: gain(0.2)], daemonApplies: false)
        #expect(plan.actions.isEmpty, "11 and 12 may be on their way")
        #expect(plan.nextTick == 100.5)
    }

    @Test func streamsOfAnotherClientNeverOvertake() {
        var harness = Self.threeStreamsDucked(client11: "8")
        harness.graph.nodes[12]?.volume = 0.2
        harness.now += 0.25
        let plan = harness.run([10: gain(0.2), 11: gain(0.2), 12: gain(0.2)], daemonApplies: false)
        #expect(plan.actions == [.setGain(node: 10, gain: 0.2)], "11 is another client's, with its own pace")
    }

    @Test func commandsOfALaterReconcileOvertake() {
        var harness = Self.threeStreamsDucked()
        harness.now += 0.1
        // A new stream of the same client, with a lower id but sent later, reported back.
        harness.addStream(9, props: ["client.id": "7"])
        let ducked: [UInt32: StreamDecision] = [9: gain(0.2), 10: gain(0.2), 11: gain(0.2), 12: gain(0.2)]
        #expect(harness.run(ducked, daemonApplies: false).actions == [.setGain(node: 9, gain: 0.2)])
        harness.graph.nodes[9]?.volume = 0.2
        harness.now += 0.15
        #expect(harness.run(ducked, daemonApplies: false).actions == [10, 11, 12].map { .setGain(node: $0, gain: 0.2) })
    }

    /// A stream that never reports our gain is not sent it at every report
    /// of its siblings: once early, then once a second.
    @Test func anOvertakenCommandIsSentAgainEarlyOnce() {
        var harness = Self.threeStreamsDucked()
        harness.graph.nodes[11]?.volume = 0.2
        harness.graph.nodes[12]?.volume = 0.2
        harness.now += 0.25
        var ducked: [UInt32: StreamDecision] = [10: gain(0.2), 11: gain(0.2), 12: gain(0.2)]
        #expect(harness.run(ducked, daemonApplies: false).actions == [.setGain(node: 10, gain: 0.2)])
        // A new sibling is sent its gain and reports it: 10 is overtaken again.
        harness.now += 0.1
        harness.addStream(13, props: ["client.id": "7"])
        ducked[13] = gain(0.2)
        #expect(harness.run(ducked, daemonApplies: false).actions == [.setGain(node: 13, gain: 0.2)])
        harness.graph.nodes[13]?.volume = 0.2
        harness.now += 0.1
        let plan = harness.run(ducked, daemonApplies: false)
        #expect(plan.actions.isEmpty, "sent early once already")
        #expect(plan.nextTick == 101.25, "the timeout after the early resend")
        harness.now = 101.25
        #expect(harness.run(ducked, daemonApplies: false).actions == [.setGain(node: 10, gain: 0.2)])
        // Reported back at last: its next command may be found overtaken early again.
        harness.graph.nodes[10]?.volume = 0.2
        harness.now += 0.01
        harness.run(ducked, daemonApplies: false)
        #expect(harness.applied[10]?.confirmed == true)
        #expect(harness.applied[10]?.sentAgainEarly == nil)
    }

    // MARK: streams the policy leaves alone

    static let leftAlone: [(Category, Bool)] = [(.playback, true), (.audioProcessing, false), (.audioProcessing, true)]

    @Test(arguments: leftAlone)
    func exemptOrProcessingStreamsAreNeverTouched(_ category: Category, _ exempt: Bool) {
        var harness = PlannerHarness.standard()
        harness.addStream(11, volume: 0.5, category: category, exempt: exempt)
        let plan = harness.run([10: gain(1), 11: hold()])
        #expect(plan.actions.isEmpty)
        #expect(plan.applied[11] == nil)
    }

    @Test(arguments: leftAlone)
    func streamsWeTouchedAreRestoredWhenLeftAlone(_ category: Category, _ exempt: Bool) {
        var harness = PlannerHarness.standard()
        harness.run([10: hold()])
        #expect(harness.applied[10]?.held == true)
        // The user marks it exempt (or it turns out to be processing).
        harness.classified[10] = testClassified(10, category: category, exempt: exempt)
        let plan = harness.run([10: hold()])
        #expect(plan.actions.count == 2)
        #expect(plan.actions.contains(.link(output: 10, input: 1)))
        #expect(plan.actions.contains(.setGain(node: 10, gain: 1)))
        #expect(harness.volume(10) == 1)
        harness.now += 0.1
        let after = harness.run([10: hold()])
        #expect(after.actions.isEmpty && after.nextTick == nil)
        #expect(after.applied[10] == nil, "forgotten once restored")
    }

    @Test func streamWithoutDecisionIsRestored() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(0.2)])
        let plan = harness.run([:])
        #expect(plan.actions == [.setGain(node: 10, gain: 1)])
    }

    @Test func unconfirmedRestoreIsResent() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(0.2)])
        harness.classified[10] = testClassified(10, exempt: true)
        #expect(harness.run([10: gain(0.2)], daemonApplies: false).actions == [.setGain(node: 10, gain: 1)])
        harness.now += 1
        #expect(harness.run([10: gain(0.2)], daemonApplies: false).actions == [.setGain(node: 10, gain: 1)])
        // Once: then it is someone else's stream, not fought over.
        harness.now += 1
        let after = harness.run([10: gain(0.2)], daemonApplies: false)
        #expect(after.actions.isEmpty && after.applied.isEmpty && after.nextTick == nil)
    }

    // MARK: identity

    @Test func reusedIDWithANewSerialIsANewStream() {
        var harness = PlannerHarness.standard()
        harness.run([10: hold()])
        // Stream 10 goes, another takes its id (serials are never reused).
        harness.graph.nodes[10] = nil
        harness.graph.addStream(10, serial: 9999, volume: 1)
        harness.graph.addLink(51, from: 10, to: 1)
        harness.now += 1
        let untouched = harness.run([10: gain(1)])
        #expect(untouched.actions.isEmpty, "not relinked, not faded: it was never held")
        #expect(untouched.applied[10]?.serial == 9999)

        harness.graph.nodes[10] = nil
        harness.graph.addStream(10, serial: 10_000, volume: 1)
        harness.now += 1
        let jumped = harness.run([10: gain(0.2)])
        #expect(jumped.actions == [.setGain(node: 10, gain: 0.2)], "a new stream jumps")
    }

    @Test func vanishedStreamsAreForgotten() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(0.2)])
        harness.graph.nodes[10] = nil
        harness.graph.links[50] = nil
        let plan = harness.run([10: gain(0.2)])
        #expect(plan.applied.isEmpty && plan.actions.isEmpty && plan.nextTick == nil)
    }

    // MARK: routing

    @Test func preferredTargetIsAskedOnce() {
        var harness = PlannerHarness.standard()
        let decision = StreamDecision(gain: 1, preferredTarget: 2)
        let plan = harness.run([10: decision])
        #expect(plan.actions == [.setTarget(stream: 10, targetSerial: 1002)])
        harness.now += 1
        #expect(harness.run([10: decision]).actions.isEmpty)
    }

    @Test func preferredTargetAlreadyLinkedIsNotAsked() {
        var harness = PlannerHarness.standard()
        let plan = harness.run([10: StreamDecision(gain: 1, preferredTarget: 1)])
        #expect(plan.actions.isEmpty)
    }

    // MARK: determinism

    @Test func planIsDeterministic() {
        func build(reversed: Bool) -> PlannerHarness {
            var harness = PlannerHarness()
            harness.graph.addSink(1, name: "speakers")
            harness.graph.setDefaults(sink: "speakers")
            let ids: [UInt32] = Array(10..<40)
            for id in reversed ? ids.reversed() : ids {
                harness.addStream(id, volume: id % 3 == 0 ? 0.2 : 1)
                harness.graph.addLink(id + 100, from: id, to: 1)
                harness.graph.addLink(id + 200, from: id, to: 1)
            }
            return harness
        }
        let decisions = Dictionary(uniqueKeysWithValues: (UInt32(10)..<40).map { id in
            (id, id % 4 == 0 ? hold() : gain(id % 2 == 0 ? 0.2 : 1))
        })
        var first = build(reversed: false)
        var second = build(reversed: true)
        for _ in 0..<3 {
            let a = first.run(decisions)
            let b = second.run(decisions)
            #expect(a == b)
            first.now += 0.05
            second.now += 0.05
        }
    }
}

/// A command overwritten in the same moment (WirePlumber restoring a saved
/// volume to a new stream while the agent silences it): the report that
/// came after it, louder than asked, sends it again at once, once.
@Suite struct OverwrittenCommandTests {
    @Test func aLouderReportAfterACommandSendsItAgainAtOnceOnce() {
        var harness = PlannerHarness.standard()
        harness.graph.nodes[10]?.state = .suspended
        let silent = StreamDecision(gain: 0)
        #expect(harness.run([10: silent], daemonApplies: false).actions == [.setGain(node: 10, gain: 0)])
        // A report from before the command arrives no later: nothing yet.
        harness.now += 0.01
        #expect(harness.run([10: silent], daemonApplies: false).actions.isEmpty)
        // WirePlumber's restore lands after ours: the client reports 1.0 again.
        harness.graph.nodes[10]?.propsReports += 1
        harness.now += 0.01
        #expect(harness.run([10: silent], daemonApplies: false).actions == [.setGain(node: 10, gain: 0)])
        // Once only: another such report waits for the timeout.
        harness.graph.nodes[10]?.propsReports += 1
        harness.now += 0.01
        #expect(harness.run([10: silent], daemonApplies: false).actions.isEmpty)
        harness.now += 1
        #expect(harness.run([10: silent]).actions == [.setGain(node: 10, gain: 0)])
        #expect(harness.graph.nodes[10]?.volume == 0)
    }

    /// Quieter than asked is no harm: a fade down's late step, a ramp's.
    @Test func aQuieterReportWaitsAsBefore() {
        var harness = PlannerHarness.standard()
        harness.graph.nodes[10]?.volume = 0.1
        #expect(harness.run([10: StreamDecision(gain: 0.5)], daemonApplies: false).actions == [.setGain(node: 10, gain: 0.5)])
        harness.graph.nodes[10]?.propsReports += 1
        harness.now += 0.01
        #expect(harness.run([10: StreamDecision(gain: 0.5)], daemonApplies: false).actions.isEmpty)
    }
}
