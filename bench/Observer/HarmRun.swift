import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// One plain stream (the probe) arriving just after a ducking stream came and
/// went, as the observer saw it (monotonic seconds).
struct HarmSample {
    /// The probe's node appeared in the registry.
    var appeared: Double?
    /// WirePlumber's first link for it appeared.
    var linked: Double?
    /// Every background stream had reached the duck level before the ducking
    /// stream stopped (only ever true with the agent running).
    var fullyDucked = false
    /// WirePlumber's CPU time (s) from the ducking stream's start to the
    /// probe's, and from the probe's start to its link: what it was still
    /// working through when the probe came, and what the link cost it.
    var wirePlumberCPUBeforeProbe: Double?
    var wirePlumberCPUDuringLink: Double?
    /// The agent's CPU time (s, all its threads, to the nanosecond) while the
    /// probe waited: on two CPUs, what it takes from WirePlumber's linking.
    var agentCPUDuringLink: Double?
    /// Props changes of background streams the observer saw while the probe
    /// waited for its link: the agent's updates WirePlumber had to work
    /// through meanwhile.
    var backgroundUpdatesDuringLink = 0

    /// How long WirePlumber took to link the probe.
    var wirePlumber: Double? { diff(linked, appeared) }
}

/// The harm measure at one number of background streams: the same sequence
/// with the agent running and without it.
struct HarmResult {
    var withAgent: [HarmSample] = []
    var withoutAgent: [HarmSample] = []
}

/// What the agent's fades cost WirePlumber (docs/PERFORMANCE.md, "harm").
/// Per event: a `duck-others` stream starts, plays for the fade down and a
/// margin, stops; one debounce later (when the agent's fade up starts) a
/// plain stream, the probe, starts, and WirePlumber's link for it is timed.
/// The timing is fixed by the agent's config, not by what the agent does, so
/// the run without the agent waits exactly as long at every step.
enum HarmRun {
    /// How long a probe may wait for its link; a probe not linked by then
    /// counts as not linked (the notes under the table say how many).
    static let linkTimeout = 30.0

    /// The schedule of one event, from the config the agent runs with.
    struct Schedule {
        /// From the ducking stream running to its stop: the fade down plus a
        /// margin for the agent to reach every background stream (hundreds of
        /// Props updates, while WirePlumber competes for the CPUs).
        var duckHold: Double
        /// From the ducking stream's stop to the probe's start: the debounce,
        /// after which the agent starts fading the background up.
        var probeDelay: Double
        var duckLevel: Float

        init(settings: Settings) {
            duckHold = Double(settings.fadeDownMs) / 1000 + 0.75
            probeDelay = Double(settings.debounceMs) / 1000
            duckLevel = Float(settings.duckLevel)
        }
    }

    /// Events per mode at `streams` background streams: at most `cap`, and
    /// fewer with many streams (WirePlumber takes seconds per link at 500).
    static func events(requested: Int, cap: Int, streams: Int) -> Int {
        max(1, min(requested, cap, max(5, 5_000 / max(1, streams))))
    }

    /// Runs `events` events with the agent (it must be running) and as many
    /// without it, in the order with, without, without, with, with, … (the
    /// agent stopped and started between), so that neither mode always runs
    /// on a sandbox the other has worked in longer (WirePlumber's saved
    /// stream state, its caches); ends with the agent running.
    static func run(scene: Scene, schedule: Schedule, events: Int, label: String,
                    progress: (String, Int) -> Void) throws -> HarmResult {
        var result = HarmResult()
        var agentRuns = true
        settle(scene)
        for slot in 0..<(2 * events) {
            let withAgent = (slot + 1) / 2 % 2 == 0
            if withAgent != agentRuns {
                try switchAgent(on: withAgent, scene: scene)
                agentRuns = withAgent
            }
            let event = withAgent ? result.withAgent.count : result.withoutAgent.count
            let sample = runEvent(scene: scene, schedule: schedule, id: "harm-\(label)-\(withAgent ? "a" : "n")\(event)",
                                  pid: (withAgent ? 5_000_000 : 5_500_000) + event)
            if withAgent { result.withAgent.append(sample) } else { result.withoutAgent.append(sample) }
            progress(withAgent ? "with the agent" : "without the agent", event + 1)
        }
        if !agentRuns { try switchAgent(on: true, scene: scene) }
        return result
    }

    static func switchAgent(on: Bool, scene: Scene) throws {
        if on {
            _ = try scene.startAgent()
            try scene.waitForAgent()
        } else {
            scene.stopAgent()
            _ = scene.observer.wait(timeout: 30, until: scene.backgroundRestored)
        }
        settle(scene)
    }

    /// Until nothing moves: no Props change for 0.5 s and WirePlumber idle.
    static func settle(_ scene: Scene) {
        scene.observer.waitForQuiet(0.5, timeout: 30)
        scene.waitForWirePlumberIdle(timeout: 30)
    }

    static func runEvent(scene: Scene, schedule: Schedule, id: String, pid: Int) -> HarmSample {
        let observer = scene.observer
        let ducker = "\(id)-duck", probe = "\(id)-probe"
        let probeName = Scene.nodeName(probe)
        var sample = HarmSample()
        let wirePlumberCPU = { scene.wirePlumberPID.flatMap { ProcessSample(pid: $0)?.cpuSeconds } }
        let cpuAtStart = wirePlumberCPU()
        scene.load.send(["play \(ducker) pw-policy-load.level=0.1 application.name=bench-ducker application.process.id=\(pid) "
                         + "policy.category=playback policy.options=[duck-others]"])
        let duckerName = Scene.nodeName(ducker)
        observer.wait(timeout: 30) {
            observer.node(named: duckerName).flatMap { observer.graph.nodes[$0]?.state } == .running
        }
        observer.pump(schedule.duckHold)
        sample.fullyDucked = scene.background.allSatisfy { abs((scene.volume($0) ?? 1) - schedule.duckLevel) < 0.01 }
        scene.load.send(["stop \(ducker)"])
        observer.pump(schedule.probeDelay)

        var probeID: UInt32?
        let background = Set(scene.background)
        observer.onEvent = { change, time in
            if case .props(let object) = change, probeID != nil, sample.linked == nil, background.contains(object) {
                sample.backgroundUpdatesDuringLink += 1
            }
            guard case .added(let object) = change else { return }
            let graph = observer.graph
            if probeID == nil, graph.nodes[object]?.name == probeName {
                probeID = object
                sample.appeared = time
            } else if sample.linked == nil, let probeID, graph.links[object]?.outputNode == probeID {
                sample.linked = time
            }
        }
        // A plain stream: no policy options, one app of its own.
        let agentRunTime = { scene.agentPID.flatMap(ProcessSample.runTime(pid:)) }
        let agentAtProbe = agentRunTime()
        let cpuAtProbe = wirePlumberCPU()
        scene.load.send(["play \(probe) application.name=bench-probe application.process.id=\(pid + 250_000)"])
        observer.wait(timeout: linkTimeout) { sample.linked != nil }
        observer.onEvent = nil
        let agentAtLink = agentRunTime()
        let cpuAtLink = wirePlumberCPU()
        sample.wirePlumberCPUBeforeProbe = diff(cpuAtProbe, cpuAtStart)
        sample.wirePlumberCPUDuringLink = diff(cpuAtLink, cpuAtProbe)
        sample.agentCPUDuringLink = diff(agentAtLink, agentAtProbe)
        scene.load.send(["stop \(probe)"])
        observer.wait(timeout: 10) { observer.node(named: probeName) == nil && observer.node(named: duckerName) == nil }
        // The next event starts on a graph at rest: every fade done, WirePlumber's queue empty.
        observer.wait(timeout: 30, until: scene.backgroundRestored)
        settle(scene)
        return sample
    }
}
