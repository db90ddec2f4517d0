/// What the agent would do on a graph read from a pw-dump, without PipeWire
/// (`pw-policy simulate`, docs/CLI.md): the control loop run on the in-memory
/// daemon from its connection until nothing more is due within `horizon`.
public struct Simulation: Sendable {
    /// The daemon after the agent's first seconds: its graph holds the
    /// agent's metadata as the agent would have published it.
    public var daemon: InMemoryDaemon
    /// What the simulated agent could not know, and what it took instead.
    public var assumptions: [String]

    /// Seconds of the agent's life simulated: its fades, debounces and
    /// confirmations, not the end of a hold the user would wait for.
    public static let horizon = 10.0
    public static let noSessionBus = "simulated: no session bus"

    /// `wirePlumberVersion` overrides the one the dump shows (WirePlumber 0.4
    /// publishes none; the agent's status in the dump may have it).
    public init(dump: PipeWireDump, config: LoadedConfig, identity: AgentCore.Identity,
                wirePlumberVersion: String? = nil) throws {
        var graph = dump.graph
        let published = graph.metadata(named: AgentProtocol.metadataName)
        let status = published?.value(subject: 0, key: AgentProtocol.agentKey)
            .flatMap { try? JSONValueDecoder.decode(AgentStatus.self, from: $0.utf8) }
        var stack = PipeWireStack.observed(in: graph) { _ in status?.stack?.wireplumber?.version }
        if let wirePlumberVersion, stack.wirePlumber != nil {
            stack.wirePlumber?.version = wirePlumberVersion
            stack.wirePlumber?.versionSource = nil
        }

        // The user's settings as the running agent published them; its
        // statuses and events go, what the simulation publishes replaces them.
        let requests = ControlRequests.parse(published)
        var journal = AgentJournal()
        journal.silentChoice = requests.silentMode ?? journal.silentChoice
        journal.appOverrides = requests.appOverrides
        let overrideKeys: Set = [AgentProtocol.categoryKey, AgentProtocol.optionsKey, AgentProtocol.modeKey]
        var metadata = Graph.Metadata(id: published?.id ?? Self.freeID(in: graph), name: AgentProtocol.metadataName)
        for (subject, entries) in published?.entries ?? [:] where subject != 0 {
            let kept = entries.filter { overrideKeys.contains($0.key) }
            if !kept.isEmpty { metadata.entries[subject] = kept }
        }
        graph.metadata[metadata.id] = metadata

        let core = try AgentCore(identity: identity, config: config, journal: journal)
        daemon = InMemoryDaemon(core: core, graph: graph, stack: stack, nextLinkID: Self.freeID(in: graph))
        daemon.mediaKeysUnavailable = Self.noSessionBus
        daemon.audioSessionsUnavailable = Self.noSessionBus
        daemon.connect()
        let settled = daemon.settle(until: daemon.now + Self.horizon)

        assumptions = [
            "no session bus: no MPRIS player is paused or played, Do Not Disturb and the screen lock are unknown",
            "the meters hear every running stream",
            "nothing is known of the apps beyond the dump (no /proc, no desktop entries)",
            published != nil ? "the agent's settings in the dump (silent mode, overrides) kept; what it published replaced"
                : Self.agentRan(in: graph) ? "the agent ran, but the dump holds no '\(AgentProtocol.metadataName)' metadata "
                    + "(pw-dump of PipeWire 1.6 at times leaves it out: take the dump again): its settings are not known"
                : "the agent was not running when the dump was taken",
        ]
        if stack.wirePlumber == nil {
            assumptions.append("no WirePlumber in the dump")
        } else if stack.wirePlumberVersion == nil {
            assumptions.append("WirePlumber's version is unknown (0.4 publishes none): give it with --wireplumber VERSION")
        }
        if !settled {
            assumptions.append("\(Int(Self.horizon)) s of the agent's life simulated; it had more to do after")
        }
    }

    /// The agent connects as `pw-policy` (the CLI as `pw-policy-cli`).
    static func agentRan(in graph: Graph) -> Bool {
        graph.clients.values.contains { $0.props["application.name"] == "pw-policy" }
    }

    /// An id above every object's in `graph`, for the objects the
    /// simulation makes.
    static func freeID(in graph: Graph) -> UInt32 {
        let ids = [graph.nodes.keys.max(), graph.ports.keys.max(), graph.links.keys.max(), graph.clients.keys.max(),
                   graph.devices.keys.max(), graph.metadata.keys.max()].compactMap { $0 }
        return (ids.max() ?? 0) + 1
    }
}
