import Testing
@testable import PolicyCore
import PolicyTestSupport

/// The start gate (docs/POLICY.md, "The first sample"): a playback stream
/// that must start below full gain reaches its output only after its gain,
/// in one batch the daemon keeps in order.
@Suite struct StartGateTests {
    /// An alert (stream 20) that opened and is not linked yet.
    static func alertOpened(state: Graph.NodeState = .suspended) -> PlannerHarness {
        var harness = PlannerHarness.standard()
        harness.addStream(20, category: .systemSound, linked: false)
        harness.graph.nodes[20]?.state = state
        return harness
    }

    @Test func aSilencedAlertWaitsUnlinkedThenIsStartedAndGivenItsGainBeforeItsLink() {
        var harness = Self.alertOpened()
        let silenced = StreamDecision(gain: 0, silenced: true)
        let waiting = harness.run([10: gain(1), 20: silenced])
        #expect(waiting.gated == [20], "its links are refused from now on")
        #expect(waiting.actions == [.setGain(node: 20, gain: 0)], "it waits at its gain, linked to nothing")
        harness.wirePlumberLinks(20)
        #expect(harness.graph.links(from: 20).isEmpty, "refused on sight")
        let passed = harness.run([10: gain(1), 20: silenced])
        #expect(passed.actions == [.prime(node: 20, gain: 0), .link(output: 20, input: 1)], "Start and gain first, then the link")
        #expect(passed.gated.isEmpty, "our own link is not refused")
        #expect(harness.applied[20]?.startGate == .passed)
        #expect(harness.graph.links(from: 20).map(\.inputNode) == [1])
        // WirePlumber relinking it later is no business of the gate's.
        harness.graph.nodes[20]?.state = .running
        #expect(harness.run([10: gain(1), 20: silenced]).gated.isEmpty)
    }

    /// A refused link can leave the client re-creating its ports for a
    /// moment: a link made then fails. The stream is linked again until it
    /// shows linked — never left unlinked for good (its app would hang).
    @Test func aLinkThatFailedIsMadeAgainUntilTheStreamShowsLinked() {
        var harness = Self.alertOpened()
        let silenced = StreamDecision(gain: 0, silenced: true)
        harness.run([10: gain(1), 20: silenced])
        harness.wirePlumberLinks(20)
        let first = harness.run([10: gain(1), 20: silenced], daemonApplies: false)
        #expect(first.actions.last == .link(output: 20, input: 1))
        harness.refused = [:]  // the agent's link answered the refusal, then failed
        let again = harness.run([10: gain(1), 20: silenced], daemonApplies: false)
        #expect(again.actions == [.link(output: 20, input: 1)], "no second prime, the link again")
        harness.graph.addLink(4020, from: 20, to: 1)
        #expect(harness.run([10: gain(1), 20: silenced]).actions.allSatisfy { if case .link = $0 { false } else { true } })
        #expect(harness.applied[20]?.heldFrom == nil, "linked: nothing left to do")
    }

    @Test func aStreamTheRefusedLinkStartedGetsItsGainBeforeItsLinkWithoutAStart() {
        var harness = Self.alertOpened()
        let ducked = StreamDecision(gain: 0.2)
        harness.run([10: gain(1), 20: ducked])
        harness.wirePlumberLinks(20)
        // The refused link started it before it went: its client's write is behind it.
        harness.graph.nodes[20]?.state = .running
        let passed = harness.run([10: gain(1), 20: ducked])
        #expect(passed.actions == [.setGain(node: 20, gain: 0.2), .link(output: 20, input: 1)])
    }

    @Test func aStreamRefusedBeforeItWasJudgedThatPlaysAtFullGainIsLinkedBackAtOnce() {
        var harness = Self.alertOpened()
        harness.gate.armed = true  // a recording runs: newcomers are refused until judged
        harness.wirePlumberLinks(20)
        let plan = harness.run([10: gain(1), 20: gain(1)])
        #expect(plan.actions.contains(.link(output: 20, input: 1)))
        #expect(!plan.actions.contains { if case .prime = $0 { true } else { false } }, "nothing to prime at full gain")
        #expect(plan.gated.isEmpty)
    }

    @Test func aLinkSeenBeforeItsRefusalIsNotAPass() {
        // WirePlumber's link shows in the agent's graph before the gate's
        // thread destroyed it: the stream was not judged yet, the gate armed.
        var harness = Self.alertOpened()
        harness.gate.armed = true
        harness.graph.addLink(4020, from: 20, to: 1)
        harness.graph.nodes[20]?.state = .running
        let silenced = StreamDecision(gain: 0, silenced: true)
        let first = harness.run([10: gain(1), 20: silenced])
        #expect(first.gated == [20])
        #expect(first.actions.contains(.destroyLink(4020)))
        #expect(harness.applied[20]?.startGate == .started, "it ran: its own write is behind it")
        let second = harness.run([10: gain(1), 20: silenced])
        #expect(second.actions.suffix(2) == [.setGain(node: 20, gain: 0), .link(output: 20, input: 1)],
                "its gain, then linked back where it was going")
    }

    @Test func aStreamFirstSeenLinkedOrPlayingAtFullGainIsNeverKept() {
        var harness = PlannerHarness.standard()
        harness.run([10: gain(1)])
        #expect(harness.applied[10]?.startGate == .passed, "found linked: linked by someone else")
        let ducked = harness.run([10: gain(0.2)])
        #expect(ducked.gated.isEmpty)
        #expect(!ducked.actions.contains(.destroyLink(50)))
    }

    @Test func aStreamThatAsksNotToBeLinkedIsNeverKept() {
        var harness = PlannerHarness.standard()
        harness.addStream(20, category: .systemSound, props: ["node.autoconnect": "false"], linked: false)
        #expect(harness.run([10: gain(1), 20: StreamDecision(gain: 0, silenced: true)]).gated.isEmpty)
    }

    @Test func aStreamHeldBeforeItEverStartedIsStartedAndGivenGainZeroBeforeItsRelease() {
        var harness = Self.alertOpened()
        harness.gate.armed = true
        harness.wirePlumberLinks(20)
        harness.graph.addLink(4020, from: 20, to: 1)
        harness.refused = [:]
        let held = harness.run([10: gain(1), 20: hold()])
        #expect(held.gated == [20], "relinked by WirePlumber while held, it would start at its own volume")
        let released = harness.run([10: gain(1), 20: gain(1)])
        #expect(released.actions.prefix(2) == [.prime(node: 20, gain: 0), .link(output: 20, input: 1)],
                "gain 0 first; the release fades it up from there")
    }

    @Test func atExitAStreamStillRefusedIsLinkedWhereItWasGoing() {
        var harness = Self.alertOpened()
        harness.refused = [20: 2]
        let restoring = harness.planner.restoreAll(graph: harness.graph, applied: [:], refused: harness.refused,
                                                   now: harness.now)
        #expect(restoring == [.link(output: 20, input: 2)])
    }

    /// While any newcomer might have to start below full gain, the gate is armed.
    @Test(arguments: [
        ([Category](), false, false, "nothing plays"),
        ([.playback], false, false, "music alone mixes with every newcomer"),
        ([.record], false, true, "a recording silences alerts"),
        ([.playAndRecord], false, true, "a call silences alerts and holds the rest"),
        ([], true, true, "silent mode silences games and alerts"),
    ] as [([Category], Bool, Bool, String)])
    func armedWhileSomeNewcomerWouldStartQuiet(_ playing: [Category], _ silentMode: Bool, _ armed: Bool, _ label: String) {
        let engine = PolicyEngine(config: DefaultPolicyConfig.config)
        let streams = playing.enumerated().map { index, category in
            StreamInput(id: UInt32(10 + index), session: SessionKey("app\(index):\(category.rawValue)"), appName: "app\(index)",
                        direction: category == .record ? .capture : .playback,
                        classification: Classification(category: category, source: .rule, reason: "test"),
                        isRunning: true, output: 1)
        }
        let outputs = [OutputInput(id: 1, name: "speakers", isPrivate: false)]
        let input = PolicyInput(now: 10, streams: streams, outputs: outputs, defaultOutput: 1, silentMode: silentMode)
        let warm = engine.decide(input, memory: EngineMemory())
        var later = input
        later.now = 20
        #expect((engine.decide(later, memory: warm.memory).newcomersMayStartQuiet != .nobody) == armed, "\(label)")
    }

    @Test func armedWhileTheScreenLockSilences() {
        let engine = PolicyEngine(config: DefaultPolicyConfig.config)
        let outputs = [OutputInput(id: 1, name: "speakers", isPrivate: false)]
        let locked = PolicyInput(now: 10, streams: [], outputs: outputs, defaultOutput: 1, screenLocked: "GNOME")
        #expect(engine.decide(locked, memory: EngineMemory()).newcomersMayStartQuiet == .anyone)
        let unlocked = PolicyInput(now: 10, streams: [], outputs: outputs, defaultOutput: 1)
        #expect(engine.decide(unlocked, memory: EngineMemory()).newcomersMayStartQuiet == .nobody)
    }

    @Test func streamsWhoseInfoHasNotArrivedAreGatedByIdWhileArmed() {
        var graph = Graph()
        graph.addStream(10, serial: 100)
        graph.addStream(11, serial: 101)
        graph.nodes[11]?.hasInfo = false
        graph.addStream(12, serial: 102)
        let plan = ReconcilePlanner.Plan(actions: [], applied: [:], nextTick: nil)
        let gate = StartGate.after(plan, graph: graph, quieting: .anyone, classified: [:])
        #expect(gate.judgedThrough == 102)
        #expect(!gate.refuses(stream: 10, serial: 100) && !gate.refuses(stream: 12, serial: 102),
                "a judged stream's links — the agent's own among them — pass")
        #expect(gate.refuses(stream: 11, serial: 101), "not classified yet")
        #expect(gate.refuses(stream: 13, serial: 103), "newer than anything seen")
        #expect(!StartGate.after(plan, graph: graph, quieting: .nobody, classified: [:]).refuses(stream: 11, serial: 101),
                "disarmed")
    }

    /// A call's app opening a new stream (Chromium moves a page's audio to a
    /// new one) is not kept from the call when only that app's sessions arm
    /// the gate: its own sessions never quiet it. Another app's is; and
    /// when two apps arm it, nobody's new stream is exempt.
    @Test func aNewStreamOfTheOnlyAppThatArmsTheGateIsNotRefused() {
        var graph = Graph()
        graph.addStream(10, serial: 100, props: ["client.id": "7"])
        graph.addStream(11, serial: 101, direction: .capture, props: ["client.id": "7"])
        graph.addStream(12, serial: 102, props: ["client.id": "8"])
        let call = SessionKey("pid:700/play-and-record"), other = SessionKey("pid:800/record")
        func classified(_ id: UInt32, _ session: SessionKey) -> ClassifiedStream {
            var stream = testClassified(id, category: .playAndRecord, direction: .playback, exempt: false, app: "app")
            stream.session = session
            return stream
        }
        let streams: [UInt32: ClassifiedStream] = [10: classified(10, call), 11: classified(11, call), 12: classified(12, other)]
        let plan = ReconcilePlanner.Plan(actions: [], applied: [:], nextTick: nil)
        let byCall = StartGate.after(plan, graph: graph, quieting: .streamsNotOf(["pid:700"]), classified: streams)
        #expect(byCall.exemptClients == [7])
        #expect(!byCall.refuses(stream: 20, serial: 200, client: 7), "the call's app")
        #expect(byCall.refuses(stream: 21, serial: 201, client: 8), "another app")
        let byTwo = StartGate.after(plan, graph: graph, quieting: .streamsNotOf(["pid:700", "pid:800"]), classified: streams)
        #expect(byTwo.exemptClients.isEmpty && byTwo.refuses(stream: 20, serial: 200, client: 7))
        let bySilentMode = StartGate.after(plan, graph: graph, quieting: .anyone, classified: streams)
        #expect(bySilentMode.refuses(stream: 20, serial: 200, client: 7))
    }
}
