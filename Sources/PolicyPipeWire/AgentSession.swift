import Foundation
import PolicyCore

/// The agent on one connection: observes the graph, decides, acts, publishes.
/// Data flows one way: graph events → model → engine → planner → actions.
final class AgentSession {
    let connection: Connection
    let mirror: GraphMirror
    let actions: GraphActions
    private let context: AgentContext
    private var log: Log { context.log }
    private var reconcileTimer: LoopTimer!
    private var tickTimer: LoopTimer!

    private var lastNodeOverrides: [UInt32: ClassificationOverride] = [:]
    /// What each stream's status entry holds (compared before encoding: most
    /// reconciles change few streams).
    private var published: [UInt32: StreamStatus] = [:]
    private var publishedGlobal: [String: String] = [:]
    /// What each stream was last reported as (serial and classification).
    private var seenStreams: [UInt32: String] = [:]
    private var lastWarnings: [String] = []
    private(set) var isReady = false
    /// The PipeWire and WirePlumber this connection runs beside. Code that
    /// chooses a mechanism by what the stack offers asks `stack.capabilities`.
    private(set) var stack = PipeWireStack(pipewire: nil, wirePlumber: nil)
    private let wirePlumberProbe = WirePlumberVersionProbe()
    /// The stack as last logged and published.
    private var reportedStack: StackStatus?

    init(connection: Connection, context: AgentContext) throws(ActionError) {
        self.connection = connection
        self.context = context
        mirror = GraphMirror(connection: connection)
        actions = GraphActions(mirror: mirror)
        reconcileTimer = connection.loop.makeTimer { [unowned self] in self.reconcile() }
        tickTimer = connection.loop.makeTimer { [unowned self] in self.reconcile() }
        try actions.exportMetadata(named: AgentProtocol.metadataName)
        // Debug only: the integration tests read this line to check that
        // links removed by others do not leave proxies behind (docs/TESTING.md,
        // "What the agent logs for tests").
        actions.onCreatedLinksChange = { [unowned self] count in self.log.debug("link proxies held: \(count)") }
        mirror.onInitialSync = { [unowned self] in
            self.isReady = true
            self.publishInitialRequests()
            self.log.notice("connected to PipeWire at '\(connection.remote)'; \(self.mirror.graph.streams.count) streams")
        }
        mirror.onChange = { [unowned self] in
            // One reconcile for a burst of events (and one syscall, not one each).
            if self.isReady, !self.reconcileTimer.isPending { self.reconcileTimer.schedule(after: 0) }
        }
    }

    /// Writes the persisted user settings into our fresh metadata, so the CLI
    /// sees them and they keep applying.
    private func publishInitialRequests() {
        guard let metadata = ownMetadataID else { return }
        try? actions.setMetadata(metadata, subject: 0, key: AgentProtocol.silentModeKey, type: AgentProtocol.jsonType,
                                 value: context.journal.silentMode ? "true" : "false")
        for (appKey, request) in context.journal.appOverrides.sorted(by: { $0.key < $1.key }) {
            try? actions.setMetadata(metadata, subject: 0, key: AgentProtocol.appOverridePrefix + appKey,
                                     type: AgentProtocol.jsonType, value: StatusPublisher.json(request))
        }
    }

    private var ownMetadataID: UInt32? { mirror.graph.metadata(named: AgentProtocol.metadataName)?.id }

    // MARK: - the control loop

    func reconcile() {
        guard isReady, connection.isConnected else { return }
        let now = MonotonicClock.now
        let graph = mirror.graph
        var journal = context.journal
        ReconcilePlanner.confirm(&journal.applied, graph: graph)

        let controls = ControlRequests.parse(graph.metadata(named: AgentProtocol.metadataName),
                                             previousNodeOverrides: lastNodeOverrides)
        lastNodeOverrides = controls.nodeOverrides
        reportWarnings(controls.warnings)
        if let silent = controls.silentMode, silent != journal.silentMode {
            journal.silentMode = silent
            emit(EventRecord(seq: 0, type: "silent-mode", text: "silent mode \(silent ? "on" : "off")"))
        }
        journal.appOverrides = controls.appOverrides.filter(\.value.persist)

        observeStack(graph)

        let classified = context.classifications.classifyAll(graph: graph, overrides: controls.overrideTable)
        reportNewStreams(classified, graph: graph)
        let input = EngineInputBuilder.build(graph: graph, classified: classified, now: now,
                                             silentMode: journal.silentMode, resumeRequests: controls.resumeRequests)
        let decision = context.engine.decide(input, memory: journal.memory)
        journal.memory = decision.memory
        let plan = context.planner.plan(graph: graph, decisions: decision.streams, classified: classified,
                                        applied: journal.applied, now: now)
        journal.applied = plan.applied
        // Journal first: if we die between here and the daemon, the next start
        // still knows what we changed.
        context.updateJournal(journal)
        perform(plan.actions)
        for event in decision.events {
            emit(StatusPublisher.record(event, seq: 0, memory: decision.memory))
        }
        // Publish before acknowledging a resume: whoever waits for the key to
        // go must find the new status already there.
        publish(graph: graph, classified: classified, decision: decision, controls: controls)
        clearHandledResumes(controls.resumeRequests)
        clearEntriesOfVanishedNodes(graph)

        let wakeups = [plan.nextTick, decision.nextWakeup].compactMap { $0 }
        if let next = wakeups.min() { tickTimer.schedule(after: max(0.001, next - now)) } else { tickTimer.cancel() }
    }

    private func perform(_ planned: [AgentAction]) {
        for action in planned {
            if context.options.dryRun {
                log.info("dry-run: would \(describe(action))")
                continue
            }
            log.debug(describe(action))
            do {
                switch action {
                case .setGain(let node, let gain):
                    try actions.setVolume(node: node, to: Float(gain))
                case .destroyLink(let link):
                    try actions.destroy(link: link)
                case .link(let stream, let target):
                    // Lingering links survive the agent, as WirePlumber's do.
                    if mirror.graph.nodes[stream]?.streamDirection == .capture {
                        try actions.link(output: target, to: stream, linger: true)
                    } else {
                        try actions.link(output: stream, to: target, linger: true)
                    }
                case .setTarget(let stream, let serial):
                    if let defaultMetadata = mirror.graph.metadata(named: "default")?.id {
                        try actions.setMetadata(defaultMetadata, subject: stream, key: "target.object",
                                                type: "Spa:Id", value: String(serial))
                    }
                }
            } catch {
                // Nodes and links vanish mid-action all the time; the next
                // reconcile sees the new graph and converges.
                log.debug("\(describe(action)) failed: \(error)")
            }
        }
    }

    private func describe(_ action: AgentAction) -> String {
        let graph = mirror.graph
        func name(_ id: UInt32) -> String {
            let node = graph.nodes[id]
            return "\(id) (\(node?.props["application.name"] ?? node?.name ?? "?"))"
        }
        switch action {
        case .setGain(let node, let gain): return "set gain of \(name(node)) to \(String(format: "%.3f", gain))"
        case .destroyLink(let link): return "destroy link \(link)"
        case .link(let stream, let target): return "link \(name(stream)) to \(name(target))"
        case .setTarget(let stream, let serial): return "move \(name(stream)) to the node with serial \(serial)"
        }
    }

    // MARK: - publishing

    /// Publishes an event of the agent's own (a config reload) that its
    /// caller has logged already.
    func announce(_ record: EventRecord) {
        emit(record, logged: true)
    }

    private func emit(_ record: EventRecord, logged: Bool = false) {
        var record = record
        record.seq = context.nextEventSeq()
        if !logged { log.info(record.text) }
        guard let metadata = ownMetadataID else { return }
        try? actions.setMetadata(metadata, subject: 0, key: AgentProtocol.eventKey, type: AgentProtocol.jsonType,
                                 value: StatusPublisher.json(record))
    }

    /// Reports streams when first seen and whenever their classification
    /// changes (the registry's first props lack what info brings later, such
    /// as policy.* properties, so a stream may be reclassified at once).
    private func reportNewStreams(_ classified: [UInt32: ClassifiedStream], graph: Graph) {
        var current: [UInt32: String] = [:]
        for (id, stream) in classified.sorted(by: { $0.key < $1.key }) {
            let classification = stream.classification
            let options = classification.options.sorted().map(\.rawValue)
            let signature = "\(graph.nodes[id]?.serial ?? 0) \(classification.category) \(options) \(classification.mode) \(classification.exempt)"
            current[id] = signature
            guard seenStreams[id] != signature else { continue }
            let shownOptions = options.isEmpty ? "" : " [" + options.joined(separator: ", ") + "]"
            emit(EventRecord(seq: 0, type: "stream-classified",
                             text: "stream \(id) \"\(stream.appName)\": \(classification.category.rawValue)\(shownOptions) — \(classification.reason)",
                             session: stream.session.rawValue, stream: id, reason: classification.source.rawValue))
            for warning in classification.warnings { log.warning("stream \(id) \"\(stream.appName)\": \(warning)") }
        }
        seenStreams = current
    }

    /// Logs the stack once, then whenever it changes: WirePlumber going
    /// away, coming back (restarted, perhaps another version).
    private func observeStack(_ graph: Graph) {
        stack = PipeWireStack.observed(in: graph, linkedLibraryVersion: wirePlumberProbe.version(pid:))
        let status = StackStatus(stack)
        guard status != reportedStack else { return }
        let pid = status.wireplumber?.pid.map { " (WirePlumber pid \($0))" } ?? ""
        log.notice("\(reportedStack == nil ? "stack" : "stack changed"): \(status.summary)\(pid)")
        reportedStack = status
    }

    private func reportWarnings(_ warnings: [String]) {
        guard warnings != lastWarnings else { return }
        for warning in warnings where !lastWarnings.contains(warning) { log.warning(warning) }
        lastWarnings = warnings
    }

    private func clearHandledResumes(_ requests: Set<UInt32>) {
        guard let metadata = ownMetadataID else { return }
        for stream in requests.sorted() {
            try? actions.setMetadata(metadata, subject: stream, key: AgentProtocol.resumeKey, type: nil, value: nil)
        }
    }

    /// Requests left for nodes that are gone would otherwise apply to the
    /// next node that gets the same id.
    private func clearEntriesOfVanishedNodes(_ graph: Graph) {
        guard let metadata = graph.metadata(named: AgentProtocol.metadataName) else { return }
        for (subject, entries) in metadata.entries where subject != 0 && graph.nodes[subject] == nil {
            for key in entries.keys.sorted() where key != AgentProtocol.streamKey {
                try? actions.setMetadata(metadata.id, subject: subject, key: key, type: nil, value: nil)
            }
        }
    }

    private func publish(graph: Graph, classified: [UInt32: ClassifiedStream], decision: PolicyDecision,
                         controls: ControlRequests) {
        guard let metadata = ownMetadataID else { return }
        var current: [UInt32: StreamStatus] = [:]
        let sinks = EngineInputBuilder.linkedSinks(in: graph)
        for (id, stream) in classified {
            guard let node = graph.nodes[id] else { continue }
            current[id] = StatusPublisher.streamStatus(node: node, classified: stream, decision: decision.streams[id],
                                                       graph: graph, linkedSinks: sinks, memory: decision.memory,
                                                       extraWarnings: controls.streamWarnings[id] ?? [])
        }
        for (id, status) in current where published[id] != status {
            try? actions.setMetadata(metadata, subject: id, key: AgentProtocol.streamKey, type: AgentProtocol.jsonType,
                                     value: StatusPublisher.json(status))
        }
        for id in published.keys where current[id] == nil {
            try? actions.setMetadata(metadata, subject: id, key: AgentProtocol.streamKey, type: nil, value: nil)
        }
        published = current

        let agent = AgentStatus(pid: getpid(), version: context.options.version, startedAt: context.startedAt,
                                configFiles: context.config.files, configError: context.configError,
                                dryRun: context.options.dryRun, silentMode: context.journal.silentMode,
                                stack: reportedStack)
        publishGlobal(AgentProtocol.agentKey, StatusPublisher.json(agent), metadata: metadata)
        publishGlobal(AgentProtocol.outputsKey, StatusPublisher.json(StatusPublisher.outputs(graph: graph)), metadata: metadata)
        // Echo the effective silent mode, e.g. after a bad value was written.
        let silent = context.journal.silentMode ? "true" : "false"
        if controls.silentMode != context.journal.silentMode {
            try? actions.setMetadata(metadata, subject: 0, key: AgentProtocol.silentModeKey, type: AgentProtocol.jsonType, value: silent)
        }
    }

    private func publishGlobal(_ key: String, _ value: String, metadata: UInt32) {
        guard publishedGlobal[key] != value else { return }
        publishedGlobal[key] = value
        try? actions.setMetadata(metadata, subject: 0, key: key, type: AgentProtocol.jsonType, value: value)
    }

    // MARK: - shutdown

    /// Undoes everything we changed: gains back to 1.0, held streams relinked,
    /// our target.object requests removed. Returns once the daemon has it.
    func restoreAll() {
        guard connection.isConnected, isReady else { return }
        // No more reconciling: it would take back what we restore.
        isReady = false
        reconcileTimer.cancel()
        tickTimer.cancel()
        var journal = context.journal
        let graph = mirror.graph
        let restoring = context.planner.restoreAll(graph: graph, applied: journal.applied, now: MonotonicClock.now)
        for (id, applied) in journal.applied where applied.routedTo != nil {
            if let defaultMetadata = graph.metadata(named: "default")?.id {
                try? actions.setMetadata(defaultMetadata, subject: id, key: "target.object", type: nil, value: nil)
            }
        }
        perform(restoring)
        connection.roundTrip(timeout: 2)
        journal.applied = [:]
        journal.memory = .empty  // nothing is held or ducked any more
        context.updateJournal(journal)
        log.notice("restored \(restoring.count) changes; every stream is as it would be without pw-policy")
    }
}
