import PolicyCore
import PolicyTestSupport

/// The agent's whole turn beside `count` playing streams, as in the
/// observer's scene (docs/PERFORMANCE.md): 100 streams per sink, two ports
/// and two links each, the properties a `pw_stream` has, 32 streams per
/// client, and a `duck-others` stream that starts and stops.
struct ReconcileScene {
    static let firstStream: UInt32 = 1000
    static let ducker: UInt32 = 900
    static let stereo = ["FL", "FR"]
    var graph = Graph()
    var core: AgentCore
    var now = 100.0
    private var nextLink: UInt32 = 100_000

    init(streams count: Int, config: LoadedConfig) {
        core = try! AgentCore(identity: .init(pid: 1, version: "bench", startedAt: "2026-01-01T00:00:00Z", dryRun: false),
                              config: config, journal: AgentJournal())
        graph.core = Graph.Core(version: "1.4.2")
        graph.metadata[1] = Graph.Metadata(id: 1, name: "default")
        graph.metadata[2] = Graph.Metadata(id: 2, name: AgentProtocol.metadataName)
        for sink in 0..<UInt32((count + 99) / 100) {
            let id = 10 + sink
            graph.addSink(id, name: "bench-\(sink)", props: ["object.serial": "\(id)", "factory.name": "support.null-audio-sink"],
                          state: .running, channels: Self.stereo)
        }
        for index in 0..<count { addStream(index: index, extra: [:]) }
    }

    private mutating func addStream(index: Int, extra: [String: String]) {
        let id = index < 0 ? Self.ducker : Self.firstStream + UInt32(index)
        let client = 500 + UInt32(max(index, 0) / 32)
        if graph.clients[client] == nil {
            graph.clients[client] = Graph.Client(id: client, props: ["application.name": "pw-policy-load", "core.version": "1.4.2",
                                                                     "pipewire.sec.pid": "4242", "client.api": "native"])
        }
        let name = index < 0 ? "ducker" : "bg-\(index)"
        var props = ["media.class": "Stream/Output/Audio", "node.name": "pw-policy-load.\(name)", "media.name": name,
                     "media.type": "Audio", "media.category": "Playback",
                     "client.id": "\(client)", "factory.id": "6", "node.autoconnect": "true", "stream.is-live": "true",
                     "application.name": "bench-app-\(index)", "application.process.id": "\(2_000_000 + index)",
                     "application.process.binary": "pw-policy-load", "application.language": "C",
                     "application.process.user": "bench", "application.process.host": "bench",
                     "audio.channels": "2", "audio.rate": "48000", "node.rate": "1/48000", "node.latency": "1024/48000",
                     "target.object": "bench-\(max(index, 0) / 100)", "object.register": "false"]
        props.merge(extra) { _, new in new }
        graph.addStream(id, serial: UInt64(id + 10_000), props: props, channels: Self.stereo)
        graph.addLinks(from: id, to: 10 + UInt32(max(index, 0) / 100), nextID: &nextLink)
    }

    /// The ducker's meter hears it: the policy ducks while a `duck-others`
    /// stream is audible (docs/POLICY.md, "Ducking while audible"), and
    /// without a reading nothing would be ducked.
    var observation: AgentCore.Observation {
        AgentCore.Observation(graph: graph, now: now, stack: PipeWireStack(pipewire: "1.4.2", wirePlumber: nil),
                              meters: AgentCore.Meters(readings: graph.nodes[Self.ducker] == nil ? [:] : [Self.ducker: .audible]))
    }

    /// What the daemon would report once it applied the gains (a ramp lands
    /// on its target at once here: the bench times the agent, not the fade).
    /// Returns how many graph actions there were.
    @discardableResult
    mutating func apply(_ effects: [AgentEffect]) -> Int {
        var actions = 0
        for case .graph(let action) in effects {
            actions += 1
            graph.apply(action, nextLinkID: &nextLink)
        }
        return actions
    }

    /// Reconciles until nothing is left to do, letting time pass for the
    /// confirmations and debounces.
    mutating func settle() {
        for _ in 0..<50 {
            now += 0.5
            let actions = apply(core.reconcile(observation))
            _ = core.publish()
            if actions == 0 { return }
        }
    }

    mutating func startDucker() {
        addStream(index: -1, extra: ["policy.category": "playback", "policy.options": "[duck-others]",
                                     "application.name": "bench-ducker"])
    }

    mutating func stopDucker() {
        graph.removeNode(Self.ducker)
    }
}

/// Milliseconds (best of `rounds`) of the agent's reaction before the gains
/// go out — reconcile and journal encoding — when a `duck-others` stream
/// starts beside `count` streams; then of the publish after the gains, and of
/// the next reconcile and its publish, once the daemon reported the gains.
func reconcileMilliseconds(streams count: Int, rounds: Int = 5)
    -> (react: Double, journal: Double, publish: Double, confirm: Double, gains: Int) {
    var scene = ReconcileScene(streams: count, config: shippedLoadedConfig)
    _ = scene.core.connected(scene.observation)
    scene.settle()
    let clock = ContinuousClock()
    var best = (react: Double.infinity, journal: Double.infinity, publish: Double.infinity, confirm: Double.infinity, gains: 0)
    for _ in 0..<rounds {
        scene.startDucker()
        scene.now += 0.01
        var start = clock.now
        let effects = scene.core.reconcile(scene.observation)
        best.react = min(best.react, milliseconds(clock.now - start))
        start = clock.now
        for case .saveJournal(let journal, _) in effects { _ = try? journal.encoded() }
        best.journal = min(best.journal, milliseconds(clock.now - start))
        best.gains = scene.apply(effects)
        start = clock.now
        _ = scene.core.publish()
        best.publish = min(best.publish, milliseconds(clock.now - start))
        scene.now += 0.01
        start = clock.now
        _ = scene.core.reconcile(scene.observation)
        _ = scene.core.publish()
        best.confirm = min(best.confirm, milliseconds(clock.now - start))
        scene.settle()
        scene.stopDucker()
        scene.settle()
    }
    return best
}
