import Testing
@testable import PolicyCore
import PolicyTestSupport

/// Runs the planner the way the agent does: confirm what the daemon reported,
/// plan, then let a stand-in daemon apply the actions to the graph.
struct PlannerHarness {
    static let settings = Settings(duckLevel: 0.2, fadeDownMs: 200, fadeUpMs: 400, debounceMs: 300,
                                   defaultCategory: .playback, defaultOptions: [.mixWithOthers])
    var planner = ReconcilePlanner(settings: settings, confirmTimeout: 1.0)
    var step: Double { planner.pacing.shortestStep }
    var graph = Graph()
    var classified: [UInt32: ClassifiedStream] = [:]
    var applied: [UInt32: AppliedStream] = [:]
    var linkWait = LinkWait()
    /// What the start gate refuses (the plan's `gated` after each run, `armed`
    /// as a test sets it), and the links it refused (StartGate).
    var gate = StartGate.open
    var refused: [UInt32: UInt32] = [:]
    var now = 100.0
    var nextLinkID: UInt32 = 700

    /// Speakers (id 1, the default sink), headphones (id 2), a mic (id 3),
    /// and playback stream 10 linked to the speakers by link 50.
    static func standard() -> PlannerHarness {
        var harness = PlannerHarness()
        harness.graph.addSink(1, name: "speakers")
        harness.graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        harness.graph.addSource(3, name: "mic")
        harness.graph.setDefaults(sink: "speakers", source: "mic")
        harness.addStream(10, linked: false)
        harness.graph.addLink(50, from: 10, to: 1)
        return harness
    }

    /// A stream linked as WirePlumber links a new one (to the speakers, or
    /// from the mic), unless `linked` is false.
    mutating func addStream(_ id: UInt32, direction: StreamDirection = .playback, volume: Float? = 1,
                            category: Category = .playback, exempt: Bool = false, props: [String: String] = [:],
                            linked: Bool = true) {
        graph.addStream(id, direction: direction, volume: volume, props: props)
        classified[id] = testClassified(id, category: category, direction: direction, exempt: exempt, app: "app\(id)")
        if linked {
            if direction == .playback { graph.addLink(3000 + id, from: id, to: 1) } else { graph.addLink(3000 + id, from: 3, to: id) }
        }
    }

    /// One reconcile at `now`; the daemon applies the actions when `daemonApplies`.
    @discardableResult
    mutating func run(_ decisions: [UInt32: StreamDecision], daemonApplies: Bool = true) -> ReconcilePlanner.Plan {
        ReconcilePlanner.confirm(&applied, graph: graph)
        let plan = planner.plan(graph: graph, decisions: decisions, classified: classified, applied: applied,
                                linkWait: linkWait, gate: gate, refused: refused, now: now)
        applied = plan.applied
        linkWait = plan.linkWait
        gate = StartGate(gated: plan.gated, armed: gate.armed, judgedThrough: gate.judgedThrough)
        if daemonApplies { apply(plan.actions) }
        return plan
    }

    /// What the daemon (and WirePlumber) would do with the actions; a
    /// refusal is answered by the agent's link.
    mutating func apply(_ actions: [AgentAction]) {
        for action in actions {
            if case .link(let output, _) = action { refused[output] = nil }
            graph.apply(action, nextLinkID: &nextLinkID)
        }
    }

    /// WirePlumber links stream `id` to `sink`, and the start gate refuses
    /// the link as it appears when it refuses the stream.
    mutating func wirePlumberLinks(_ id: UInt32, to sink: UInt32 = 1) {
        if gate.refuses(stream: id, serial: graph.nodes[id]?.serial, client: graph.nodes[id]?.clientID) {
            refused[id] = sink
        } else {
            graph.addLink(4000 + id, from: id, to: sink)
        }
    }

    struct Step { var time: Double; var actions: [AgentAction] }

    /// Reconciles at each `nextTick` until the planner wants no more ticks.
    @discardableResult
    mutating func runUntilIdle(_ decisions: [UInt32: StreamDecision], maxSteps: Int = 500) -> [Step] {
        var steps: [Step] = []
        for _ in 0..<maxSteps {
            let plan = run(decisions)
            steps.append(Step(time: now, actions: plan.actions))
            guard let next = plan.nextTick else { return steps }
            #expect(next > now, "the next tick must be in the future")
            now = max(next, now + 1e-6)
        }
        Issue.record("the planner never settled")
        return steps
    }

    func volume(_ id: UInt32) -> Double? { graph.nodes[id]?.volume.map(Double.init) }
}

func gains(_ steps: [PlannerHarness.Step], of node: UInt32) -> [(time: Double, gain: Double)] {
    steps.flatMap { step in
        step.actions.compactMap { action -> (time: Double, gain: Double)? in
            if case .setGain(node, let gain) = action { return (step.time, gain) }
            return nil
        }
    }
}

func destroyedLinks(_ actions: [AgentAction]) -> [UInt32] {
    actions.compactMap { if case .destroyLink(let id) = $0 { id } else { nil } }
}

func gain(_ value: Double) -> StreamDecision { StreamDecision(gain: value) }

func hold() -> StreamDecision {
    StreamDecision(gain: 0, hold: .interrupted(by: SessionKey("phone:play-and-record"), app: "Phone", resumable: true))
}
