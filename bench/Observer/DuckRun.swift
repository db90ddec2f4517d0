import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// One ducking stream arriving, as the observer saw it (monotonic seconds).
struct DuckSample {
    /// The ducker's node appeared in the registry.
    var appeared: Double?
    /// WirePlumber's first link for it appeared: WirePlumber's reaction.
    var linked: Double?
    /// Its node went running: from here the policy counts it as active.
    var running: Double?
    /// Its first loud block, at a peak meter of the observer's own: from
    /// here a meter can hear it (docs/PERFORMANCE.md, "The first duck step").
    var audible: Double?
    /// The first background stream's Props volume left 1: our reaction.
    var firstDucked: Double?
    /// Every background stream's volume had left 1.
    var allDucked: Double?

    /// Ours: from the ducker becoming active to the first duck step.
    var ours: Double? { diff(firstDucked, running) }
    /// The ducker's own start: from running to its first audible block.
    var toAudible: Double? { diff(audible, running) }
    /// Ours once it can be heard: from its first audible block to the first duck step.
    var afterAudible: Double? { diff(firstDucked, audible) }
    /// WirePlumber's: from the ducker's node appearing to its link.
    var wirePlumber: Double? { diff(linked, appeared) }
    /// End to end: from the node appearing to the first duck step.
    var endToEnd: Double? { diff(firstDucked, appeared) }
    /// From the ducker becoming active to the last background stream ducking.
    var spread: Double? { diff(allDucked, running) }
}

func diff(_ later: Double?, _ earlier: Double?) -> Double? {
    guard let later, let earlier else { return nil }
    return later - earlier
}

/// A stream with `duck-others` starts while the background plays, and
/// stops once everything ducked; the next starts when everything is back at 1
/// and the fades are over.
enum DuckRun {
    static func run(scene: Scene, events: Int, label: String, progress: (Int) -> Void) -> [DuckSample] {
        let background = Set(scene.background)
        let observer = scene.observer
        var samples: [DuckSample] = []
        for event in 0..<events {
            let id = "duck-\(label)-\(event)"
            let name = Scene.nodeName(id)
            var sample = DuckSample()
            var ducker: UInt32?
            var ducked = Set<UInt32>()
            observer.onMeterChange = {
                if sample.audible == nil, let ducker { sample.audible = observer.meters.firstLoud(of: ducker) }
            }
            observer.onEvent = { change, time in
                let graph = observer.graph
                switch change {
                case .added(let object):
                    if ducker == nil, let node = graph.nodes[object], node.name == name {
                        ducker = object
                        sample.appeared = time
                        observer.meters.meter([object: node.serial ?? 0])
                    } else if let ducker, graph.ports[object]?.nodeID == ducker {
                        observer.meters.relink()
                    } else if sample.linked == nil, let ducker, let link = graph.links[object], link.outputNode == ducker,
                              graph.nodes[link.inputNode]?.isAgentsOwn != true {
                        // WirePlumber's link, not the agent's to its meter.
                        sample.linked = time
                    }
                case .info(let object):
                    if object == ducker, sample.running == nil, graph.nodes[object]?.state == .running {
                        sample.running = time
                    }
                case .props(let object):
                    guard sample.appeared != nil, background.contains(object),
                          (graph.nodes[object]?.volume ?? 1) < 0.999 else { return }
                    if sample.firstDucked == nil { sample.firstDucked = time }
                    if ducked.insert(object).inserted, ducked.count == background.count { sample.allDucked = time }
                case .removed, .metadata, .linkState:
                    break
                }
            }
            scene.load.send(["play \(id) pw-policy-load.level=0.1 application.name=bench-ducker application.process.id=\(3_000_000 + event) "
                             + "policy.category=playback policy.options=[duck-others]"])
            observer.wait(timeout: 10) { sample.allDucked != nil }
            observer.onEvent = nil
            observer.onMeterChange = nil
            // The meter is kept for the next ducker, as the agent keeps its own.
            observer.meters.meter([:])
            scene.load.send(["stop \(id)"])
            observer.wait(timeout: 10) { observer.node(named: name) == nil && scene.backgroundRestored() }
            // A native ramp reports its target when it is sent and then runs on
            // (a fade back to 1 lands after it): the next event starts at rest,
            // not while the last ramp still blocks the stream (docs/POLICY.md, "Fades").
            observer.wait(timeout: 0.3) { false }
            samples.append(sample)
            progress(event + 1)
        }
        return samples
    }
}
