#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyDBus
import PolicyFiles

/// The agent on one connection: the mirror observes, `AgentCore` decides,
/// the executor acts (docs/ARCHITECTURE.md, "The control loop"). This class
/// only wires them together and schedules the reconciles.
final class AgentSession {
    let connection: Connection
    let mirror: GraphMirror
    private let context: AgentContext
    private var executor: EffectExecutor!
    private var reconcileTimer: LoopTimer!
    /// Holds back the reconciles of desktop changes after the first of a burst.
    private var desktopTimer: LoopTimer!
    private var lastDesktopReconcile = -Double.infinity
    private var meters: StreamMeters!
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
        reconcileTimer = connection.loop.makeTimer { [unowned self] in self.reconcile() }
        desktopTimer = connection.loop.makeTimer { [unowned self] in self.desktopReconcileDue() }
        meters = StreamMeters(connection: connection) { [unowned self] in self.scheduleReconcile() }
        executor = EffectExecutor(actions: actions, log: context.log, journalPath: context.journalPath,
                                  wakeUpTimer: connection.loop.makeTimer { [unowned self] in self.reconcile() },
                                  reconcileIsDue: { [unowned self] in self.reconcileTimer.isPending },
                                  sendToPlayer: { [unowned context] in context.sendToPlayer?($0) },
                                  mirrorMediaKeys: { [unowned context] in context.mediaKeysProxy?.mirror($0) },
                                  publish: { [unowned context] in context.core.publish() },
                                  storedVolumesReset: { [unowned context] in context.core.storedVolumesReset($0) },
                                  meters: meters)
        // Restoring only, it publishes nothing: a metadata of its own would
        // look like a running agent.
        if !context.options.restoreOnly { try actions.exportMetadata(named: AgentProtocol.metadataName) }
        // Debug only: the integration tests read this line to check that
        // links removed by others do not leave proxies behind (docs/TESTING.md,
        // "What the agent logs for tests").
        actions.onCreatedLinksChange = { [unowned self] count in self.context.log.debug("link proxies held: \(count)") }
        mirror.onInitialSync = { [unowned self] in
            self.isReady = true
            guard !self.context.options.restoreOnly else { return }
            self.context.log.notice("connected to PipeWire at '\(connection.remote)'; \(self.mirror.graph.streams.count) streams")
            self.executor.execute(self.context.core.connected(self.observe()), flushingActionsFirst: true)
        }
        mirror.onObjectChange = { [unowned self] change in
            switch change {
            case .added, .removed, .info: self.context.apps.graphChanged()
            case .props, .metadata: break
            }
            // One reconcile for a burst of events (and one syscall, not one each).
            if self.isReady, !self.context.options.restoreOnly, !self.reconcileTimer.isPending, !self.isEcho(change) { self.reconcileTimer.schedule(after: 0) }
        }
    }

    /// A stream's Props that can change no decision: those of a stream in a
    /// fade (the planner steps a fade by the clock and reads no volume until
    /// it ends), or reporting the gain we sent it, our own command coming
    /// back (only `volume` of Props matters to the policy). Reconciling on
    /// them stepped every fade early: at hundreds of streams each step's
    /// echoes ran a reconcile that sent the next step to all of them, as
    /// fast as the daemon echoed, and every one was another Props change for
    /// WirePlumber to work through. Fades step on their timer; confirmations
    /// are read by the next reconcile, which the planner's confirmation check
    /// schedules anyway (docs/PERFORMANCE.md, "Limits found").
    private func isEcho(_ change: GraphMirror.ObjectChange) -> Bool {
        guard case .props(let id) = change, let applied = context.core.journal.applied[id],
              applied.serial == mirror.graph.nodes[id]?.serial else { return false }
        if applied.ramp != nil { return true }
        guard let volume = mirror.graph.nodes[id]?.volume, let commanded = applied.commandedGain else { return false }
        return ReconcilePlanner.reports(volume, commanded)
    }

    private func observe() -> AgentCore.Observation {
        let graph = mirror.graph
        return AgentCore.Observation(graph: graph, now: MonotonicClock.now,
                                     stack: PipeWireStack.observed(in: graph, linkedLibraryVersion: wirePlumberProbe.version(pid:)),
                                     players: observePlayers(graph), meters: meters.readings,
                                     apps: context.apps.apps(in: graph), doNotDisturb: context.doNotDisturb,
                                     mediaKeysUnavailable: context.mediaKeysUnavailable)
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

    /// The players, the desktop entries, Do Not Disturb or the media-key
    /// proxy changed: a reconcile at once, then at most one per
    /// `desktopInterval` while they keep changing. A player that floods
    /// the bus costs ten reconciles a second, not one per signal, and the
    /// graph's own changes still reconcile on the next turn (docs/PLAYERS.md,
    /// "A player that floods the bus").
    func playersChanged() {
        guard !desktopTimer.isPending else { return }
        let wait = lastDesktopReconcile + Self.desktopInterval - MonotonicClock.now
        if wait > 0 { desktopTimer.schedule(after: wait) } else { desktopReconcileDue() }
    }

    static let desktopInterval = 0.1

    private func desktopReconcileDue() {
        lastDesktopReconcile = MonotonicClock.now
        scheduleReconcile()
    }

    /// A reconcile on the loop's next turn, one for a burst of changes.
    private func scheduleReconcile() {
        if isReady, !context.options.restoreOnly, !reconcileTimer.isPending { reconcileTimer.schedule(after: 0) }
    }

    func reconcile() {
        guard isReady, connection.isConnected else { return }
        connection.loop.preconditionInEventLoop()
        executor.execute(context.core.reconcile(observe()), flushingActionsFirst: true)
    }

    /// Runs `change` on the core and executes what it returns, then
    /// reconciles (a config reload).
    func apply(_ change: (inout AgentCore, Graph) -> [AgentEffect]) {
        executor.execute(change(&context.core, mirror.graph))
        reconcile()
    }

    /// Undoes everything we changed; returns once the daemon has it.
    func restoreAll() {
        guard connection.isConnected, isReady else { return }
        // No more reconciling: it would take back what we restore.
        isReady = false
        reconcileTimer.cancel()
        // Bounded: a stream that stopped mid-ramp may never finish it.
        if let until = context.core.nativeRampsRunUntil {
            let wait = min(until - MonotonicClock.now, 1)
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        executor.execute(context.core.restoreAll(observe()))
        confirmRestore()
    }

    /// Until every restored stream reports gain 1 twice in a row, a few
    /// graph cycles apart, or 2 s: each round sends 1 again to the streams
    /// that do not (AgentCore.restoreStragglers).
    private func confirmRestore() {
        guard !context.core.restored.isEmpty else { return }
        let deadline = MonotonicClock.now + 2
        var quietChecks = 0
        var stragglers: [AgentAction] = []
        while quietChecks < 2 && MonotonicClock.now < deadline && connection.isConnected {
            connection.loop.run(timeout: 0.1) { false }
            connection.roundTrip(timeout: 1)
            stragglers = context.core.restoreStragglers(in: mirror.graph)
            if stragglers.isEmpty {
                quietChecks += 1
            } else {
                quietChecks = 0
                executor.execute(stragglers.map(AgentEffect.graph) + [.flush])
            }
        }
        if !stragglers.isEmpty {
            context.log.warning("\(stragglers.count) streams did not report gain 1 again; they may keep a policy gain")
        } else if quietChecks < 2 && connection.isConnected {
            context.log.warning("could not confirm every stream's gain within 2 s")
        }
    }
}
