import PolicyCore
import PolicyPipeWire
import PolicyDBus
import PolicyFiles

/// The agent on one connection: the mirror observes, `AgentCore` decides,
/// the executor acts (docs/ARCHITECTURE.md, "The control loop"). This class
/// only wires them together and schedules the reconciles.
final class AgentSession {
    let connection: Connection
    let mirror: GraphMirror
    private let context: AgentContext
    private var executor: EffectExecutor<EventLoop, PipeWireEffects>!
    /// When it reconciles: a burst of graph events, desktop changes.
    private var schedule: ReconcileSchedule<EventLoop>!
    private var meters: StreamMeters!
    /// Once a burst of work has settled: the journal a turn left unwritten,
    /// the heap's free pages given back.
    private var idleWork: IdleWork<EventLoop>!
    /// The agent's connection on a thread of its own, for the link guard
    /// and the meters; nil when restoring only, or when it could not be made.
    private let threadConnection: ThreadConnection?
    /// Refuses the links the start gate refuses; nil without its connection
    /// (then only the waiting gain stands).
    private let linkGuard: LinkGuard?
    private var refusalsLogged = 0
    private(set) var isReady = false
    private let wirePlumberProbe = WirePlumberVersionProbe()
    /// The parents of the processes that play streams, read from /proc when
    /// that set of processes changes (not on every reconcile: fades run them
    /// every 25 ms).
    private var ancestry: (pids: Set<Int32>, table: [Int32: Int32]) = ([], [:])

    init(connection: Connection, context: AgentContext) throws(ActionError) {
        self.connection = connection
        self.context = context
        mirror = GraphMirror(connection: connection)
        let actions = GraphActions(mirror: mirror)
        threadConnection = context.options.restoreOnly ? nil : ThreadConnection(remote: connection.remote)
        linkGuard = threadConnection.map(LinkGuard.init)
        schedule = ReconcileSchedule(loop: connection.loop, log: { [unowned context] in context.log.debug($0) }) { [unowned self] in
            self.reconcile()
        }
        meters = StreamMeters(mirror: mirror, thread: threadConnection) { [unowned self] in self.schedule.soon() }
        idleWork = IdleWork(loop: connection.loop) { [unowned self] in
            self.executor.execute(self.context.core.settled())
            mallocTrim(clock: connection.loop) { [unowned context] in context.log.debug($0) }
        }
        let performer = PipeWireEffects(connection: connection, actions: actions, log: context.log,
                                        journalFiles: context.journalFiles, players: context.playerActions,
                                        meters: meters, linkGuard: linkGuard)
        executor = EffectExecutor(loop: connection.loop, performer: performer,
                                  wakeUp: { [unowned self] in self.reconcile() },
                                  reconcileIsDue: { [unowned self] in self.schedule.isDue },
                                  publish: { [unowned context] in context.core.publish() },
                                  storedVolumesReset: { [unowned context] in context.core.storedVolumesReset($0) })
        // Restoring only, it publishes nothing: a metadata of its own would
        // look like a running agent.
        if !context.options.restoreOnly { try actions.exportMetadata(named: AgentProtocol.metadataName) }
        // Debug only: the integration tests read this line to check that
        // links removed by others do not leave proxies behind (docs/TESTING.md,
        // "What the agent logs for tests").
        actions.onCreatedLinksChange = { [unowned self] count in self.context.log.debug("link proxies held: \(count)") }
        mirror.onInitialSync = { [unowned self] in
            self.isReady = true
            self.schedule.isEnabled = !self.context.options.restoreOnly
            if let own = connection.clientID { self.linkGuard?.trustLinks(ofClient: own) }
            if let priority = self.linkGuard?.priority {
                self.context.log.info("start gate: the link guard's thread runs at nice \(priority.nice)"
                    + (priority.raised ? "" : " (raising it to \(LinkGuard.niceLevel) was not permitted)"))
            }
            guard !self.context.options.restoreOnly else { return }
            self.context.log.notice("connected to PipeWire at '\(connection.remote)'; \(self.mirror.graph.streams.count) streams")
            self.executor.execute(self.context.core.connected(self.observe()), flushingActionsFirst: true)
            self.idleWork.worked()
        }
        mirror.onObjectChange = { [unowned self] change in
            switch change {
            case .added, .removed, .info: self.context.apps.graphChanged()
            case .props, .metadata, .linkState: break
            }
            guard ReconcileTrigger.calls(for: change, in: self.mirror.graph,
                                         isEcho: { self.context.core.isEcho(propsOf: $0, in: self.mirror.graph) }) else { return }
            // One reconcile for a burst of events.
            self.schedule.soon()
        }
    }

    private func observe() -> AgentCore.Observation {
        let graph = linkGuard?.withoutRefusedLinks(mirror.graph) ?? mirror.graph
        if let refusals = linkGuard?.refusals, refusals != refusalsLogged {
            refusalsLogged = refusals
            context.log.debug("start gate: \(refusals) links refused so far; unlinked since: \(linkGuard?.refused ?? [:])")
        }
        var observation = AgentCore.Observation(graph: graph, now: connection.loop.now,
                                                stack: PipeWireStack.observed(in: graph, linkedLibraryVersion: wirePlumberProbe.version(pid:)),
                                                players: observePlayers(graph), meters: meters.readings,
                                                apps: context.apps.apps(in: graph), doNotDisturb: context.doNotDisturb,
                                                mediaKeysUnavailable: context.mediaKeysUnavailable,
                                                refusedLinks: linkGuard?.refused ?? [:])
        observation.screenLock = context.screenLock
        observation.audioSessionsUnavailable = context.audioSessionsUnavailable
        observation.audioSessionAncestry = audioSessionAncestry(graph)
        return observation
    }

    /// The parents of every stream's process while there are audio
    /// sessions, read when that set of processes changes (docs/API.md).
    private var sessionAncestry: (pids: Set<Int32>, table: [Int32: Int32]) = ([], [:])
    private func audioSessionAncestry(_ graph: Graph) -> [Int32: Int32] {
        guard !context.core.audioSessions.isEmpty else { return [:] }
        let pids = AudioSessionClaims.streamProcessIDs(in: graph)
        if pids != sessionAncestry.pids { sessionAncestry = (pids, ProcessAncestry.table(for: pids)) }
        return sessionAncestry.table
    }

    private func observePlayers(_ graph: Graph) -> AgentCore.PlayerObservation {
        guard let players = context.players else { return .unwatched(context.playersUnwatched) }
        guard !players.isEmpty else { return .watched(players, ancestry: [:]) }
        let pids = PlayerMatching.streamProcessIDs(in: graph)
        if pids != ancestry.pids { ancestry = (pids, ProcessAncestry.table(for: pids)) }
        return .watched(players, ancestry: ancestry.table)
    }

    /// A media key pressed on the proxy: the core decides where it goes,
    /// the executor sends it (docs/PLAYERS.md, "Media keys").
    func mediaKey(_ key: MediaKey) {
        guard isReady, connection.isConnected, !context.options.restoreOnly else {
            return context.log.info("media key \(key.rawValue): ignored, not connected to PipeWire")
        }
        connection.loop.preconditionInEventLoop()
        executor.execute(context.core.mediaKey(key, observe()), flushingActionsFirst: true)
    }

    /// The players, the desktop entries, Do Not Disturb, the screen lock,
    /// the media-key proxy or the audio sessions changed: a reconcile at
    /// once, then at most one per `desktopInterval` while they keep
    /// changing (`ReconcileSchedule`).
    func desktopChanged(_ change: DesktopChange) { schedule.desktopChanged(change) }

    /// An audio session deactivated with "notify others": reconciled on the
    /// loop's next turn, not held back behind other desktop changes — the
    /// sessions it interrupted are to be told at once (docs/API.md).
    func audioSessionDeactivated() { schedule.soon() }

    func reconcile() {
        guard isReady, connection.isConnected else { return }
        connection.loop.preconditionInEventLoop()
        // The meters first: a meter whose node just appeared is given its
        // stream before anything else waits on this turn (the links
        // themselves are made on the meters' thread as the ports appear:
        // `MeterLinker`).
        meters.relink()
        executor.execute(context.core.reconcile(observe()), flushingActionsFirst: true)
        idleWork.worked()
    }

    /// Runs `change` on the core and executes what it returns, then
    /// reconciles (a config reload).
    func apply(_ change: (inout AgentCore, Graph) -> [AgentEffect]) {
        executor.execute(change(&context.core, mirror.graph))
        reconcile()
    }

    /// Undoes everything we changed; returns once the daemon has it.
    func restoreAll() {
        idleWork.stop()
        // Whatever happens next, the journal holds this session's last turn.
        executor.execute(context.core.settled())
        guard connection.isConnected, isReady else { return }
        // No more reconciling: it would take back what we restore.
        isReady = false
        schedule.stop()
        // The ramps we sent run out first; the loop serves the rest meanwhile.
        RestoreTiming.waitForRamps(on: connection.loop, runningUntil: context.core.nativeRampsRunUntil)
        // Lost while waiting: nothing can be sent, and the journal must
        // stay for the next start (or `pw-policy restore`) to undo.
        guard connection.isConnected else {
            return context.log.warning("lost PipeWire before restoring; the next start restores from \(context.journalFiles.restoresFrom)")
        }
        executor.execute(context.core.restoreAll(observe()))
        guard !context.core.restored.isEmpty else { return }
        let warning = RestoreTiming.confirm(
            on: connection.loop, isConnected: { connection.isConnected },
            settle: { connection.roundTrip(timeout: 1) },
            stragglers: { context.core.restoreStragglers(in: mirror.graph) },
            resend: { executor.execute($0.map(AgentEffect.graph) + [.flush]) })
        if let warning { context.log.warning(warning) }
    }
}
