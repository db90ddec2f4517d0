import Foundation
@testable import PolicyCore

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
    /// The last wake-up asked for.
    var wakeUp: Double??
    private var nextLinkID: UInt32 = 700

    /// The shipped defaults; speakers (1, default), headphones (2), a mic (3);
    /// the agent's metadata exported (empty) and WirePlumber's `default`.
    init(dryRun: Bool = false, journal: AgentJournal = AgentJournal(), resumeOnReturn: Bool = false) throws {
        var policy = DefaultPolicyConfig.config
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
    }

    var observation: AgentCore.Observation {
        AgentCore.Observation(graph: graph, now: now, stack: PipeWireStack(pipewire: nil, wirePlumber: nil),
                              players: players.map { .watched($0, ancestry: [:]) } ?? .unwatched("no session bus"))
    }

    /// A playback stream with `media.role`, linked to `sink` by link `id + 100`.
    mutating func play(_ id: UInt32, role: String, app: String, on sink: UInt32 = 1) {
        graph.addStream(id, props: ["media.role": role, "application.name": app])
        graph.addLink(id + 100, from: id, to: sink)
    }

    mutating func stop(_ id: UInt32) {
        graph.nodes[id] = nil
        graph.links = graph.links.filter { $0.value.outputNode != id && $0.value.inputNode != id }
    }

    /// A request as the CLI writes it into the agent's metadata.
    mutating func request(subject: UInt32, key: String, value: String) {
        graph.setPolicyEntry(subject: subject, key: key, value: value)
    }

    @discardableResult
    mutating func connect() -> [AgentEffect] { apply(core.connected(observation)) }

    @discardableResult
    mutating func reconcile() -> [AgentEffect] { apply(core.reconcile(observation)) }

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
            setMetadata(MetadataWrite(metadata: "default", subject: stream, key: "target.object", type: "Spa:Id", value: String(serial)))
        }
        graph.apply(action, nextLinkID: &nextLinkID)
    }

    private mutating func setMetadata(_ write: MetadataWrite) {
        guard let id = graph.metadata(named: write.metadata)?.id else { return }
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
