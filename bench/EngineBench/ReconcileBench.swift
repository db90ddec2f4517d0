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
    /// The daemon the agent's effects are applied to (the tests' too): a
    /// ramp lands on its target at once there, as the bench times the
    /// agent, not the fade.
    var daemon: InMemoryDaemon
    /// WirePlumber's links, numbered apart from the agent's.
    private var nextLink: UInt32 = 100_000
    /// The new streams added so far (`addProbe`): each is a new stream, with
    /// a serial of its own, as WirePlumber has yet to link it.
    private var probes: UInt64 = 0

    init(streams count: Int, config: LoadedConfig) {
        let core = try! AgentCore(identity: .init(pid: 1, version: "bench", startedAt: "2026-01-01T00:00:00Z", dryRun: false),
                                  config: config, journal: AgentJournal())
        var graph = Graph()
        graph.core = Graph.Core(version: "1.4.2")
        graph.metadata[1] = Graph.Metadata(id: 1, name: "default")
        graph.metadata[2] = Graph.Metadata(id: 2, name: AgentProtocol.metadataName)
        for sink in 0..<UInt32((count + 99) / 100) {
            let id = 10 + sink
            graph.addSink(id, name: "bench-\(sink)", props: ["object.serial": "\(id)", "factory.name": "support.null-audio-sink"],
                          state: .running, channels: Self.stereo)
        }
        daemon = InMemoryDaemon(core: core, graph: graph, stack: PipeWireStack(pipewire: "1.4.2", wirePlumber: nil),
                                nextLinkID: 500_000)
        for index in 0..<count { addStream(index: index, extra: [:]) }
    }

    private mutating func addStream(index: Int, extra: [String: String]) {
        let id = index < 0 ? Self.ducker : Self.firstStream + UInt32(index)
        let client = 500 + UInt32(max(index, 0) / 32)
        if daemon.graph.clients[client] == nil {
            daemon.graph.clients[client] = Graph.Client(id: client, props: ["application.name": "pw-policy-load", "core.version": "1.4.2",
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
        daemon.graph.addStream(id, serial: UInt64(id + 10_000), props: props, channels: Self.stereo)
        daemon.graph.addLinks(from: id, to: 10 + UInt32(max(index, 0) / 100), nextID: &nextLink)
    }

    /// Applies the effects (`.publish` included, when there) and returns
    /// how many graph actions there were.
    @discardableResult
    mutating func apply(_ effects: [AgentEffect]) -> Int {
        daemon.apply(effects)
        return effects.count { if case .graph = $0 { true } else { false } }
    }

    /// Reconciles until nothing is left to do, letting time pass for the
    /// confirmations and debounces.
    mutating func settle() {
        for _ in 0..<50 {
            daemon.now += 0.5
            if apply(daemon.core.reconcile(daemon.observation)) == 0 { return }
        }
    }

    /// The ducker's meter hears it from the start, as a meter the pool
    /// kept ready would: the policy ducks while a `duck-others` stream is
    /// audible (docs/POLICY.md, "Ducking while audible").
    mutating func startDucker() {
        addStream(index: -1, extra: ["policy.category": "playback", "policy.options": "[duck-others]",
                                     "application.name": "bench-ducker"])
        daemon.metered[Self.ducker] = daemon.graph.nodes[Self.ducker]?.serial
    }

    mutating func stopDucker() {
        daemon.graph.removeNode(Self.ducker)
    }
}

/// Milliseconds (best of `rounds`) of the agent's reaction before the gains
/// go out — reconcile and journal encoding — when a `duck-others` stream
/// starts beside `count` streams; then of the publish after the gains, and of
/// the next reconcile and its publish, once the daemon reported the gains.
func reconcileMilliseconds(streams count: Int, rounds: Int = 5)
    -> (react: Double, journal: Double, publish: Double, confirm: Double, gains: Int) {
    var scene = ReconcileScene(streams: count, config: shippedLoadedConfig)
    scene.daemon.connect()
    scene.settle()
    let clock = ContinuousClock()
    var best = (react: Double.infinity, journal: Double.infinity, publish: Double.infinity, confirm: Double.infinity, gains: 0)
    for _ in 0..<rounds {
        scene.startDucker()
        scene.daemon.now += 0.01
        var observation = scene.daemon.observation
        var start = clock.now
        let effects = scene.daemon.core.reconcile(observation)
        best.react = min(best.react, milliseconds(clock.now - start))
        start = clock.now
        for case .saveJournal(let journal, _) in effects { _ = try? journal.encoded() }
        best.journal = min(best.journal, milliseconds(clock.now - start))
        best.gains = scene.apply(effects.filter { $0 != .publish })
        start = clock.now
        let published = scene.daemon.core.publish()
        best.publish = min(best.publish, milliseconds(clock.now - start))
        scene.apply(published)
        scene.daemon.now += 0.01
        observation = scene.daemon.observation
        start = clock.now
        let confirmed = scene.daemon.core.reconcile(observation).filter { $0 != .publish }
        let republished = scene.daemon.core.publish()
        best.confirm = min(best.confirm, milliseconds(clock.now - start))
        scene.apply(confirmed + republished)
        scene.settle()
        scene.stopDucker()
        scene.settle()
    }
    return best
}

/// Milliseconds (median of `rounds`) of each of the agent's turns — reconcile
/// and publish — while WirePlumber links a new plain stream beside `count`
/// playing streams, as in the bench's harm row (docs/PERFORMANCE.md): the
/// node appears with its ports, then WirePlumber links it.
func newStreamTurnMilliseconds(streams count: Int, rounds: Int = 21) -> (appear: Double, linked: Double) {
    var scene = ReconcileScene(streams: count, config: shippedLoadedConfig)
    scene.daemon.connect()
    scene.settle()
    let clock = ContinuousClock()
    var appear: [Double] = [], linked: [Double] = []
    for _ in 0..<rounds {
        scene.addProbe()
        scene.daemon.now += 0.01
        var start = clock.now
        scene.apply(scene.daemon.core.reconcile(scene.daemon.observation).filter { $0 != .publish })
        scene.apply(scene.daemon.core.publish())
        appear.append(milliseconds(clock.now - start))
        scene.linkProbe()
        scene.daemon.now += 0.01
        start = clock.now
        scene.apply(scene.daemon.core.reconcile(scene.daemon.observation).filter { $0 != .publish })
        scene.apply(scene.daemon.core.publish())
        linked.append(milliseconds(clock.now - start))
        scene.settle()
        scene.removeProbe()
        scene.settle()
    }
    return (appear.sorted()[rounds / 2], linked.sorted()[rounds / 2])
}

extension ReconcileScene {
    static let probe: UInt32 = 950

    mutating func addProbe() {
        probes += 1
        daemon.graph.addStream(Self.probe, serial: 1_000_000 + probes,
                               props: ["media.class": "Stream/Output/Audio", "node.name": "pw-play", "media.name": "probe",
                                       "application.name": "pw-play", "client.id": "500", "node.autoconnect": "true"],
                               channels: Self.stereo)
    }

    mutating func linkProbe() {
        daemon.graph.addLinks(from: Self.probe, to: 10, nextID: &nextLink)
    }

    mutating func removeProbe() {
        daemon.graph.removeNode(Self.probe)
    }
}
