/// What the agent tells its connection, and what it told it last
/// (docs/ARCHITECTURE.md, "Where things are"): the events, numbered; each stream's
/// classification when it is new or changes; the statuses; the resume
/// requests acknowledged; the entries of nodes that are gone, cleared.
/// Only what changed is written: most reconciles change few of hundreds of
/// streams. A new connection has a fresh agent metadata, so all of it anew.
struct PublishingRoom: Sendable {
    /// What this connection has been told; reset by `connected`.
    private var published = Publication()
    /// What the reconciles since the last `publish` decided and the
    /// connection has not been told yet.
    private var pending: Decided?
    private var eventSeq: UInt64 = 0

    /// What a reconcile decided, kept for `publish`, which the executor runs
    /// once the gains have gone out (`AgentEffect.publish`): at hundreds of
    /// streams building statuses took longer than the decision itself
    /// (docs/PERFORMANCE.md, "Limits found"). Statuses are of the latest
    /// decision; every decision's events are kept, in order.
    struct Decided: Sendable {
        var graph: Graph
        var roles: RoleLoopbacks
        var classified: [UInt32: ClassifiedStream]
        var decision: PolicyDecision
        var controls: ControlRequests
        var players: PlayerObservation
        var matches: [UInt32: PlayerMatch]
        var silentMode: SilentMode
        var doNotDisturb: DoNotDisturb
        var screenCasts: [ScreenCast]
        var screenLock: ScreenLock
    }

    mutating func connected() { published = Publication() }

    /// Whether a reconcile decided something the connection has not been told.
    var hasDecided: Bool { pending != nil }

    // MARK: - what the loop reads back

    /// The requests in the agent's metadata; a broken new per-stream
    /// override keeps the one read before, and each warning is logged once
    /// while it lasts.
    mutating func readRequests(in graph: Graph) -> (controls: ControlRequests, effects: [AgentEffect]) {
        let controls = ControlRequests.parse(graph.metadata(named: AgentProtocol.metadataName),
                                             previousNodeOverrides: published.nodeOverrides)
        published.nodeOverrides = controls.nodeOverrides
        return (controls, published.newWarnings(controls.warnings).map { .log(.warning, $0) })
    }

    /// The stack, logged when first known and whenever it changes.
    mutating func follow(stack: StackStatus) -> [AgentEffect] {
        published.stackChange(stack).map { [.log(.notice, $0)] } ?? []
    }

    /// The stack as last logged, for the agent's status.
    var stack: StackStatus? { published.stack }

    // MARK: - telling

    /// Numbers an event, logs it at `level` (nil: logged already), and
    /// publishes it for `pw-policy monitor`.
    mutating func emit(_ record: EventRecord, graph: Graph, level: LogLevel? = .info) -> [AgentEffect] {
        var record = record
        eventSeq += 1
        record.seq = eventSeq
        var effects: [AgentEffect] = level.map { [.log($0, record.text)] } ?? []
        if graph.metadata(named: AgentProtocol.metadataName) != nil {
            effects.append(.setMetadata(.agent(subject: 0, AgentProtocol.eventKey, StatusPublisher.json(record))))
        }
        return effects
    }

    /// Every decision's events since the last `publish`, in order.
    private var events: [(event: PolicyEvent, names: DecisionNames)] = []

    /// A decision to tell at the next `publish`: its statuses replace those
    /// of the decisions not told yet, its events come after theirs.
    mutating func keep(_ decided: Decided) {
        events += decided.decision.events.map { (event: $0, names: decided.decision.names) }
        pending = decided
    }

    /// What the reconciles since the last call decided, told to the
    /// connection: classifications, events, statuses, acknowledged resume
    /// requests. `agent` builds the agent's status from the decision and
    /// the stack as last logged.
    mutating func publish(pausedPlayers: [String: PausedPlayer],
                          agent: (Decided, StackStatus?) -> AgentStatus) -> [AgentEffect] {
        guard let decided = pending else { return [] }
        pending = nil
        let told = events
        events = []
        let graph = decided.graph
        var effects = reportReclassified(decided.classified, graph: graph)
        for (event, names) in told {
            effects += emit(StatusPublisher.record(event, seq: 0, names: names), graph: graph)
        }
        guard graph.metadata(named: AgentProtocol.metadataName) != nil else { return effects }
        // Publish before acknowledging a resume: whoever waits for the key to
        // go must find the new status already there.
        effects += publishStatuses(decided, pausedPlayers: pausedPlayers, agent: agent(decided, published.stack))
        for stream in decided.controls.resumeRequests.sorted() {
            effects.append(.setMetadata(.agent(subject: stream, AgentProtocol.resumeKey, nil)))
        }
        return effects + clearEntriesOfVanishedNodes(graph)
    }

    /// Reports streams when first seen and whenever their classification
    /// changes (the registry's first props lack what info brings later, such
    /// as policy.* properties, so a stream may be reclassified at once).
    private mutating func reportReclassified(_ classified: [UInt32: ClassifiedStream], graph: Graph) -> [AgentEffect] {
        var effects: [AgentEffect] = []
        var current: [UInt32: Publication.StreamSignature] = [:]
        current.reserveCapacity(classified.count)
        var changed: [UInt32] = []
        for (id, stream) in classified {
            let classification = stream.classification
            // Compared as a value: building a string per stream on every
            // reconcile cost more than the decision at hundreds of streams.
            let signature = Publication.StreamSignature(serial: graph.nodes[id]?.serial ?? 0, category: classification.category,
                                                        options: classification.options, mode: classification.mode,
                                                        exempt: classification.exempt)
            current[id] = signature
            if published.streamSignatures[id] != signature { changed.append(id) }
        }
        for id in changed.sorted() {
            guard let stream = classified[id] else { continue }
            let classification = stream.classification
            let options = classification.options.sorted().map(\.rawValue)
            let shownOptions = options.isEmpty ? "" : " [" + options.joined(separator: ", ") + "]"
            effects += emit(EventRecord(seq: 0, type: .streamClassified,
                                        text: "stream \(id) \"\(stream.appName)\": \(classification.category.rawValue)\(shownOptions) — \(classification.reason)",
                                        session: stream.session.rawValue, stream: id, reason: classification.source.rawValue),
                            graph: graph)
            effects += classification.warnings.map { .log(.warning, "stream \(id) \"\(stream.appName)\": \($0)") }
        }
        published.streamSignatures = current
        return effects
    }

    private mutating func publishStatuses(_ decided: Decided, pausedPlayers: [String: PausedPlayer],
                                          agent: AgentStatus) -> [AgentEffect] {
        let graph = decided.graph
        var effects: [AgentEffect] = []
        var current: [UInt32: StreamStatus] = [:]
        let sinks = EngineInputBuilder.linkedSinks(in: graph)
        var playerOf: [UInt32: StreamStatus.Player] = [:]
        if case .watched(let set, _) = decided.players {
            for (stream, match) in decided.matches {
                playerOf[stream] = StatusPublisher.player(match, in: set, paused: pausedPlayers[match.busName])
            }
        }
        for (id, stream) in decided.classified {
            guard let node = graph.nodes[id] else { continue }
            current[id] = StatusPublisher.streamStatus(node: node, classified: stream, decision: decided.decision.streams[id],
                                                       graph: graph, linkedSinks: sinks, roles: decided.roles,
                                                       names: decided.decision.names,
                                                       extraWarnings: decided.controls.streamWarnings[id] ?? [],
                                                       player: playerOf[id])
        }
        // Compared first, sorted and encoded only when changed.
        for id in current.compactMap({ published.streams[$0.key] != $0.value ? $0.key : nil }).sorted() {
            effects.append(.setMetadata(.agent(subject: id, AgentProtocol.streamKey, StatusPublisher.json(current[id]!))))
        }
        for id in published.streams.keys.sorted() where current[id] == nil {
            effects.append(.setMetadata(.agent(subject: id, AgentProtocol.streamKey, nil)))
        }
        published.streams = current
        if published.agent != agent {
            published.agent = agent
            effects.append(.setMetadata(.agent(subject: 0, AgentProtocol.agentKey, StatusPublisher.json(agent))))
        }
        let outputs = StatusPublisher.outputs(graph: graph)
        if published.outputs != outputs {
            published.outputs = outputs
            effects.append(.setMetadata(.agent(subject: 0, AgentProtocol.outputsKey, StatusPublisher.json(outputs))))
        }
        return effects
    }

    /// Requests left for nodes that are gone would otherwise apply to the
    /// next node that gets the same id.
    private func clearEntriesOfVanishedNodes(_ graph: Graph) -> [AgentEffect] {
        guard let metadata = graph.metadata(named: AgentProtocol.metadataName) else { return [] }
        var effects: [AgentEffect] = []
        let vanished = metadata.entries.keys.filter { $0 != 0 && graph.nodes[$0] == nil }
        for subject in vanished.sorted() {
            for key in metadata.entries[subject]!.keys.sorted() where key != AgentProtocol.streamKey {
                effects.append(.setMetadata(.agent(subject: subject, key, nil)))
            }
        }
        return effects
    }
}
