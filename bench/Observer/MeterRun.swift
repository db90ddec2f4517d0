import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// What metering a stream that ducks others costs (docs/POLICY.md,
/// "Ducking while audible"): over a window beside the background streams,
/// with a `duck-others` stream that runs silent (a screen reader between
/// utterances: its meter runs, nothing changes) and with one that speaks in
/// bursts (1 s of tone, 1 s of silence: a duck and a release every 2 s; with
/// pauses of 500 ms, beside 100 streams the music stayed ducked: the raises,
/// spread out, had not begun when the next burst came).
struct MeterResult {
    struct Window {
        var label: String
        var agentCPU: Double
        var agentWakeups: Int
        var wirePlumberCPU: Double
        /// The daemon's: a meter is one more node in the graph's cycles.
        var pipeWireCPU: Double
        /// Props changes of the background streams seen by the observer.
        var propsUpdates: Int
    }
    var streams: Int
    var seconds: Double
    var windows: [Window] = []
}

enum MeterRun {
    static func run(scene: Scene, streams: Int, seconds: Double) throws -> MeterResult {
        var result = MeterResult(streams: streams, seconds: seconds)
        let kinds = [("nothing metered, nothing changing", nil as String?),
                     ("a silent duck-others stream (its meter running)", "pw-policy-load.level=0"),
                     ("a duck-others stream speaking 1 s on, 1 s off", "pw-policy-load.level=0.1 pw-policy-load.pulse-ms=1000")]
        for (index, (label, props)) in kinds.enumerated() {
            let id = "reader-\(streams)-\(index)"
            if let props {
                scene.load.send(["play \(id) \(props) application.name=bench-reader application.process.id=\(3_900_000 + index) "
                                 + "policy.category=playback policy.options=[duck-others]"])
                scene.observer.wait(timeout: 5) { scene.observer.node(named: Scene.nodeName(id)) != nil }
            }
            // Past the meter's start and the first duck.
            scene.observer.pump(1.5)
            scene.observer.waitForQuiet(0.5)
            result.windows.append(try measure(scene: scene, label: label, seconds: seconds))
            if props != nil {
                scene.load.send(["stop \(id)"])
                scene.observer.wait(timeout: 10) { scene.observer.node(named: Scene.nodeName(id)) == nil && scene.backgroundRestored() }
            }
        }
        return result
    }

    private static func measure(scene: Scene, label: String, seconds: Double) throws -> MeterResult.Window {
        guard let agentPID = scene.agentPID, let wirePlumberPID = scene.wirePlumberPID,
              let pipeWirePID = scene.daemonPID("pipewire"),
              let agentBefore = ProcessSample(pid: agentPID), let wirePlumberBefore = ProcessSample(pid: wirePlumberPID),
              let pipeWireBefore = ProcessSample(pid: pipeWirePID)
        else { throw BenchError("cannot read /proc for the agent, WirePlumber or the daemon") }
        let background = Set(scene.background)
        var updates = 0
        scene.observer.onEvent = { change, _ in
            if case .props(let id) = change, background.contains(id) { updates += 1 }
        }
        scene.observer.pump(seconds)
        scene.observer.onEvent = nil
        guard let agentAfter = ProcessSample(pid: agentPID), let wirePlumberAfter = ProcessSample(pid: wirePlumberPID),
              let pipeWireAfter = ProcessSample(pid: pipeWirePID)
        else { throw BenchError("the agent, WirePlumber or the daemon went away while metering") }
        return MeterResult.Window(label: label, agentCPU: agentAfter.cpuSeconds - agentBefore.cpuSeconds,
                                  agentWakeups: agentAfter.contextSwitches - agentBefore.contextSwitches,
                                  wirePlumberCPU: wirePlumberAfter.cpuSeconds - wirePlumberBefore.cpuSeconds,
                                  pipeWireCPU: pipeWireAfter.cpuSeconds - pipeWireBefore.cpuSeconds,
                                  propsUpdates: updates)
    }
}
