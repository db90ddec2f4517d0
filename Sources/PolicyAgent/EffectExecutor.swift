import PolicyCore
import PolicyPipeWire
import PolicyFiles

/// The one writer: carries out what `AgentCore` decided, in the order it
/// decided it (docs/ARCHITECTURE.md, "The control loop"). It decides
/// nothing; a failed action is logged and left to the next reconcile, which
/// sees the graph as it became and converges.
final class EffectExecutor {
    /// The connection the actions go out on: its loop, its round trips.
    private let connection: Connection
    private let actions: GraphActions
    private let log: Log
    private let journalPath: String
    /// Runs the control loop again when a `wakeUp` comes due.
    private let wakeUpTimer: LoopTimer
    private let players: PlayerActions
    /// The core's statuses and events of the decision just acted on.
    private let publish: () -> [AgentEffect]
    /// What the core makes of the stored volumes reset (`resetStoredVolumes`).
    private let storedVolumesReset: (Set<String>) -> [AgentEffect]
    private let standIns: StandInStreams
    /// The peak meters on the streams that duck others.
    private let meters: StreamMeters
    /// Refuses the links the start gate refuses.
    private let linkGuard: LinkGuard?

    init(connection: Connection, actions: GraphActions, log: Log, journalPath: String, wakeUpTimer: LoopTimer,
         reconcileIsDue: @escaping () -> Bool,
         players: PlayerActions,
         publish: @escaping () -> [AgentEffect],
         storedVolumesReset: @escaping (Set<String>) -> [AgentEffect], meters: StreamMeters,
         linkGuard: LinkGuard?) {
        self.connection = connection
        self.linkGuard = linkGuard
        self.meters = meters
        self.reconcileIsDue = reconcileIsDue
        self.storedVolumesReset = storedVolumesReset
        standIns = StandInStreams(actions: actions)
        self.players = players
        self.publish = publish
        self.actions = actions
        self.log = log
        self.journalPath = journalPath
        self.wakeUpTimer = wakeUpTimer
    }

    private var mirror: GraphMirror { actions.mirror }

    /// What runs now and what waits for the loop's next turn (EffectQueue).
    private var queue = EffectQueue()
    /// Runs the backlog on the loop's next turn.
    private var backlogTimer: LoopTimer?
    /// Asked before the backlog runs: a reconcile is due on this turn of the
    /// loop. It goes first, and its own publish covers the one held back.
    private let reconcileIsDue: () -> Bool

    /// Executes `effects` in order, after any held back by an earlier call;
    /// with `flushingActionsFirst` (a reconcile's effects) those after its
    /// graph actions wait for the loop's next turn (EffectQueue).
    func execute(_ effects: [AgentEffect], flushingActionsFirst: Bool = false) {
        connection.loop.preconditionInEventLoop()
        backlogTimer?.cancel()
        for effect in queue.take(effects, flushingActionsFirst: flushingActionsFirst, now: MonotonicClock.now) {
            run(effect)
        }
        guard !queue.backlog.isEmpty else { return }
        if backlogTimer == nil {
            backlogTimer = connection.loop.makeTimer { [unowned self] in self.runBacklog() }
        }
        // After the loop's turn that writes the connection's queue:
        // the socket is ready before this timer expires.
        backlogTimer?.schedule(after: 0)
    }

    private func runBacklog() {
        if queue.waitsForReconcile(reconcileIsDue: reconcileIsDue(), now: MonotonicClock.now) {
            return  // the reconcile executes the backlog
        }
        execute([])
    }

    private func run(_ effect: AgentEffect) {
        switch effect {
        case .saveJournal(let journal, let sync):
            do {
                try JournalFile.save(journal, to: journalPath, sync: sync)
            } catch {
                log.error("cannot write \(journalPath): \(error)")
            }
        case .graph(let action):
            log.debug(ActionDescription.describe(action, in: mirror.graph))
            do {
                try perform(action)
            } catch {
                // Nodes and links vanish mid-action all the time.
                log.debug("\(action) failed: \(error)")
            }
        case .setMetadata(let write):
            do {
                try actions.setMetadata(write)
            } catch {
                log.debug("setting \(write.key) of \(write.subject) in '\(write.metadata)' failed: \(error)")
            }
        case .player(let command):
            players.perform(command)
        case .mediaKeysTarget(let player):
            players.mirror(player)
        case .tellAudioSessions(let messages):
            players.tell(messages)
        case .meter(let streams):
            meters.meter(streams)
        case .gate(let next):
            linkGuard?.gate = next
        case .log(let level, let text):
            log.log(level, text)
        case .wakeUp(let time):
            if let time { wakeUpTimer.schedule(after: max(0.001, time - MonotonicClock.now)) } else { wakeUpTimer.cancel() }
        case .flush:
            // Only a restore flushes, and the agent exits after it: what the
            // daemon has not read by then is lost. A daemon busy with
            // hundreds of streams took over 2 s (docs/PERFORMANCE.md).
            if !connection.roundTrip(timeout: 10) {
                log.warning("the daemon did not confirm within 10 s; some streams may keep their policy gain")
            }
        case .publish:
            for published in publish() { run(published) }
        case .resetStoredVolumes(let keys):
            for effect in storedVolumesReset(standIns.reset(keys)) { run(effect) }
        }
    }

    private func perform(_ action: AgentAction) throws(ActionError) {
        switch action {
        case .setGain(let node, let gain):
            try actions.setVolume(node: node, to: Float(gain))
        case .rampGain(let node, let gain, let milliseconds):
            try actions.rampVolume(node: node, to: Float(gain), milliseconds: milliseconds,
                                   stepFrames: FadePacing.rampStepFrames)
        case .destroyLink(let link):
            try actions.destroy(link: link)
        case .link(let output, let input):
            linkGuard?.linked(output)
            // Lingering links survive the agent, as WirePlumber's do.
            try actions.link(output: output, to: input, linger: true)
        case .suspend(let node):
            try actions.suspend(node: node)
        case .prime(let node, let gain):
            try actions.prime(node: node, gain: Float(gain))
        case .setTarget(let stream, let serial):
            try actions.setMetadata(.targetObject(of: stream, serial: serial))
        }
    }
}
