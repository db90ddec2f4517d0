@testable import PolicyCore
import PolicyTestSupport

/// The unit tests' scene on the in-memory daemon (`InMemoryDaemon`, in
/// PolicyCore): its graph, config and stack, and streams coming and going.
extension InMemoryDaemon {
    static let routeSettingsID: UInt32 = 902

    /// The shipped defaults; speakers (1, default), headphones (2), a mic (3);
    /// the agent's metadata exported (empty) and WirePlumber's `default`;
    /// PipeWire 0.3.65 with WirePlumber 0.4.13.
    init(dryRun: Bool = false, journal: AgentJournal = AgentJournal(), resumeOnReturn: Bool = false,
         config: PolicyConfig = DefaultPolicyConfig.config) throws {
        var policy = config
        policy.settings.resumeOnReturn = resumeOnReturn
        let config = LoadedConfig(config: policy, files: ["/etc/pw-policy/pw-policy.conf"],
                                  merged: SPAJSON(.object([]), at: SourcePosition(file: "test", line: 1, column: 1)))
        let core = try AgentCore(identity: .init(pid: 42, version: "test", startedAt: "2026-11-22T00:00:00Z", dryRun: dryRun),
                                 config: config, journal: journal)
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        graph.addSource(3, name: "mic")
        graph.setDefaults(sink: "speakers", source: "mic")
        graph.metadata[Graph.policyMetadataID] = Graph.Metadata(id: Graph.policyMetadataID, name: AgentProtocol.metadataName)
        graph.metadata[Self.routeSettingsID] = Graph.Metadata(id: Self.routeSettingsID, name: WirePlumberStreamState.routeSettings)
        self.init(core: core, graph: graph,
                  stack: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 98, version: "0.4.13")), nextLinkID: 700)
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

    mutating func stop(_ id: UInt32) { graph.removeNode(id) }

    /// A request as the CLI writes it into the agent's metadata.
    mutating func request(subject: UInt32, key: String, value: String) {
        graph.setPolicyEntry(subject: subject, key: key, value: value)
    }
}
