import Foundation
@testable import PolicyCore
import PolicyTestSupport

/// An in-memory stand-in for PipeWire, WirePlumber and the journal's file,
/// driven by the tests (as SwiftNIO's `EmbeddedChannel` stands in for a
/// socket): it runs `AgentCore` on its graph and applies the effects the
/// way the PipeWire adapter and the daemon would.
struct InMemoryDaemon {
    var core: AgentCore
    var graph = Graph()
    var now = 100.0
    /// Every journal the core asked to save, in order, with its sync flag.
    var saved: [(journal: AgentJournal, sync: Bool)] = []
    var logs: [(level: LogLevel, text: String)] = []
    /// The media players on the session bus (nil: no session bus), and
    /// every call the core made to them.
    var players: PlayerSet?
    var playerCommands: [PlayerCommand] = []
    /// The last `.mediaKeysTarget` (outer nil: none was emitted).
    var mediaKeysTarget: MediaPlayer??
    /// The last wake-up asked for.
    var wakeUp: Double??
    /// The streams the core asked to meter. Their meters read a running
    /// stream as audible, as they would a stream that plays sound, unless
    /// a test says what they measure (`measured`).
    var metered: [UInt32: UInt64] = [:]
    /// What the adapter would refuse (`AgentEffect.gate`).
    var gate = StartGate.open
    var measured: [UInt32: Audibility] = [:]
    var meters: AgentCore.Meters {
        AgentCore.Meters(readings: Dictionary(uniqueKeysWithValues: metered.keys.map { id in
            (id, measured[id] ?? (graph.nodes[id]?.state == .running ? .audible : .notYetAudible))
        }))
    }
    private var nextLinkID: UInt32 = 700
    /// The stack the core is told it runs beside.
    var stack = PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 98, version: "0.4.13"))
    /// WirePlumber's saved `volume` by stream-state key, as its
    /// restore-stream (0.4) or state-stream (0.5) keeps it: saved whenever a
    /// stream's Props change, given to each new stream of the key, replaced
    /// by `route-settings` entries it reads (0.4: every key; 0.5: the event
    /// sounds' key only) and by a stand-in stream (`resetStoredVolumes`).
    var wirePlumberSaved: [String: Float] = [:]
    /// What the desktop's Do Not Disturb mechanisms say.
    var doNotDisturb = DoNotDisturb.unknown
    var screenLock = ScreenLock.unknown
    /// What the audio sessions were told, in order.
    var told: [AudioSessionNews.Message] = []
    /// The process tree the audio sessions' claims walk.
    var ancestry: [Int32: Int32] = [:]
    static let routeSettingsID: UInt32 = 902

    /// The shipped defaults; speakers (1, default), headphones (2), a mic (3);
    /// the agent's metadata exported (empty) and WirePlumber's `default`.
    init(dryRun: Bool = false, journal: AgentJournal = AgentJournal(), resumeOnReturn: Bool = false,
         config: PolicyConfig = DefaultPolicyConfig.config) throws {
        var policy = config
        policy.settings.resumeOnReturn = resumeOnReturn
        let config = LoadedConfig(config: policy, files: ["/etc/pw-policy/pw-policy.conf"],
                                  merged: SPAJSON(.object([]), at: SourcePosition(file: "test", line: 1, column: 1)))
        core = try AgentCore(identity: .init(pid: 42, version: "test", startedAt: "2026-11-22T00:00:00Z", dryRun: dryRun),
                             config: config, journal: journal)
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        graph.addSource(3, name: "mic")
        graph.setDefaults(sink: "speakers", source: "mic")
        graph.metadata[Graph.policyMetadataID] = Graph.Metadata(id: Graph.policyMetadataID, name: AgentProtocol.metadataName)
        graph.metadata[Self.routeSettingsID] = Graph.Metadata(id: Self.routeSettingsID, name: WirePlumberStreamState.routeSettings)
    }

    var observation: AgentCore.Observation {
        var observation = AgentCore.Observation(graph: graph, now: now, stack: stack,
                              players: players.map { .watched($0, ancestry: [:]) } ?? .unwatched("no session bus"),
                              meters: meters, doNotDisturb: doNotDisturb)
        observation.screenLock = screenLock
        observation.audioSessionAncestry = ancestry
        return observation
    }

    /// A playback stream with `media.role`, linked to `sink` by link `id + 100`.
    mutating func play(_ id: UInt32, role: String, app: String, on sink: UInt32 = 1) {
        play(id, props: ["media.role": role, "application.name": app], on: sink)
    }

    /// A playback stream with these properties; WirePlumber gives it the
    /// volume it saved for its key.
    mutating func play(_ id: UInt32, props: [String: String], on sink: UInt32 = 1) {
        graph.addStream(id, props: props)
        if let key = wirePlumberKey(id), let saved = wirePlumberSaved[key] { graph.nodes[id]?.volume = saved }
        graph.addLink(id + 100, from: id, to: sink)
    }

    func wirePlumberKey(_ id: UInt32) -> String? {
        graph.nodes[id].flatMap { WirePlumberStreamState.key(of: $0.props, wirePlumber: stack.wirePlumberVersion) }
    }

    mutating func stop(_ id: UInt32) { graph.removeNode(id) }

    /// A request as the CLI writes it into the agent's metadata.
    mutating func request(subject: UInt32, key: String, value: String) {
        graph.setPolicyEntry(subject: subject, key: key, value: value)
    }

    @discardableResult
    mutating func connect() -> [AgentEffect] { apply(core.connected(observation)) }

    /// A reconcile; when it started meters that read something at once,
    /// the reconcile their first readings bring (the adapter's `onChange`).
    @discardableResult
    mutating func reconcile() -> [AgentEffect] {
        let before = meters
        let effects = apply(core.reconcile(observation))
        return meters == before ? effects : effects + apply(core.reconcile(observation))
    }

    /// Reconciles at each wake-up until none is asked for (a fade's end).
    mutating func settle(maxSteps: Int = 200) {
        reconcile()
        for _ in 0..<maxSteps {
            guard case .some(.some(let time)) = wakeUp else { return }
            now = max(time, now + 0.001)
            reconcile()
        }
    }

    @discardableResult
    mutating func restoreAll() -> [AgentEffect] { apply(core.restoreAll(observation)) }

    /// What the daemon, WirePlumber and the journal file make of the effects;
    /// returns them with what `.publish` published in its place.
    @discardableResult
    mutating func apply(_ effects: [AgentEffect]) -> [AgentEffect] {
        var executed: [AgentEffect] = []
        for effect in effects {
            switch effect {
            case .saveJournal(let journal, let sync): saved.append((journal, sync))
            case .graph(let action): perform(action)
            case .setMetadata(let write): setMetadata(write)
            case .log(let level, let text): logs.append((level, text))
            case .wakeUp(let time): wakeUp = .some(time)
            case .flush: break
            case .player(let command): playerCommands.append(command)
            case .mediaKeysTarget(let player): mediaKeysTarget = .some(player)
            case .tellAudioSessions(let messages): told += messages
            case .meter(let streams): metered = streams
            case .gate(let next): gate = next
            case .resetStoredVolumes(let keys):
                for key in keys.keys { wirePlumberSaved[key] = 1 }
                executed.append(effect)
                executed += apply(core.storedVolumesReset(Set(keys.keys)))
                continue
            case .publish:
                executed += apply(core.publish())
                continue
            }
            executed.append(effect)
        }
        return executed
    }

    private mutating func perform(_ action: AgentAction) {
        if case .setTarget(let stream, let serial) = action {
            setMetadata(.targetObject(of: stream, serial: serial))
        }
        graph.apply(action, nextLinkID: &nextLinkID)
        switch action {
        case .setGain(let node, _), .rampGain(let node, _, _):
            if let key = wirePlumberKey(node), let volume = graph.nodes[node]?.volume { wirePlumberSaved[key] = volume }
        default: break
        }
    }

    private mutating func setMetadata(_ write: MetadataWrite) {
        guard let id = graph.metadata(named: write.metadata)?.id else { return }
        if write.metadata == WirePlumberStreamState.routeSettings, write.key.hasPrefix("restore.stream."),
           let value = write.value, case .object(let values)? = try? JSONParser.parse(Array(value.utf8)),
           case .number(let volume)? = values["volume"], let saved = Float(volume) {
            var key = String(write.key.dropFirst("restore.stream.".count))
            if let dot = key.firstIndex(of: ".") { key.replaceSubrange(dot...dot, with: ":") }
            // WirePlumber's rule, as the agent knows it (StackCapabilities).
            if WirePlumberStreamState.readsRouteSettings(for: key, wirePlumber: stack.wirePlumberVersion,
                                                         pipewire: stack.pipewireVersion) {
                wirePlumberSaved[key] = saved
            }
        }
        if let value = write.value {
            graph.metadata[id]!.entries[write.subject, default: [:]][write.key] =
                Graph.MetadataEntry(subject: write.subject, key: write.key, type: write.type, value: value)
        } else {
            graph.metadata[id]!.entries[write.subject]?[write.key] = nil
            if graph.metadata[id]!.entries[write.subject]?.isEmpty == true { graph.metadata[id]!.entries[write.subject] = nil }
        }
    }

    // MARK: reading the state

    func gain(_ id: UInt32) -> Double? { graph.nodes[id]?.volume.map(Double.init) }
    func isLinked(_ id: UInt32) -> Bool { graph.links.values.contains { $0.outputNode == id || $0.inputNode == id } }
    func status(_ id: UInt32) -> StreamStatus? {
        graph.metadata(named: AgentProtocol.metadataName)?.value(subject: id, key: AgentProtocol.streamKey)
            .flatMap { try? JSONDecoder().decode(StreamStatus.self, from: Data($0.utf8)) }
    }
    func agentEntry(_ key: String) -> String? {
        graph.metadata(named: AgentProtocol.metadataName)?.value(subject: 0, key: key)
    }
}
