import PolicyCore
import PolicyFiles

/// The one writer: carries out what `AgentCore` decided, in the order it
/// decided it (docs/ARCHITECTURE.md, "The control loop"). It decides
/// nothing; a failed action is logged and left to the next reconcile, which
/// sees the graph as it became and converges. What it runs itself is the
/// timing — which effects wait for the loop's next turn (`EffectQueue`),
/// the wake-up, the publish — on any loop (`EventLoopProtocol`); what acts
/// on the world goes to `Performer` (`PipeWireEffects` in the agent), so the
/// timing is unit-tested on the embedded loop (`EffectExecutorTests`).
/// Generic, not existential: in a fade it runs thousands of effects a second.
final class EffectExecutor<Loop: EventLoopProtocol, Performer: EffectPerforming> {
    private let loop: Loop
    private let performer: Performer
    /// Runs the control loop again when a `wakeUp` comes due.
    private let wakeUpTimer: Loop.Timer
    /// The core's statuses and events of the decision just acted on.
    private let publish: () -> [AgentEffect]
    /// What the core makes of the stored volumes reset (`resetStoredVolumes`).
    private let storedVolumesReset: (Set<String>) -> [AgentEffect]

    /// `wakeUp`: runs when a `wakeUp` effect's time comes; `reconcileIsDue`:
    /// whether a reconcile is due on this turn of the loop.
    init(loop: Loop, performer: Performer, wakeUp: @escaping () -> Void,
         reconcileIsDue: @escaping () -> Bool,
         publish: @escaping () -> [AgentEffect],
         storedVolumesReset: @escaping (Set<String>) -> [AgentEffect]) {
        self.loop = loop
        self.performer = performer
        self.reconcileIsDue = reconcileIsDue
        self.storedVolumesReset = storedVolumesReset
        self.publish = publish
        wakeUpTimer = loop.makeTimer(wakeUp)
    }

    /// What runs now and what waits for the loop's next turn (EffectQueue).
    private var queue = EffectQueue()
    /// Runs the backlog on the loop's next turn.
    private var backlogTimer: Loop.Timer?
    /// Asked before the backlog runs: a reconcile is due on this turn of the
    /// loop. It goes first, and its own publish covers the one held back.
    private let reconcileIsDue: () -> Bool

    /// Executes `effects` in order, after any held back by an earlier call;
    /// with `flushingActionsFirst` (a reconcile's effects) those after its
    /// graph actions wait for the loop's next turn (EffectQueue).
    func execute(_ effects: [AgentEffect], flushingActionsFirst: Bool = false) {
        loop.preconditionInEventLoop()
        backlogTimer?.cancel()
        for effect in queue.take(effects, flushingActionsFirst: flushingActionsFirst, now: loop.now) {
            run(effect)
        }
        guard !queue.backlog.isEmpty else { return }
        if backlogTimer == nil {
            backlogTimer = loop.makeTimer { [unowned self] in self.runBacklog() }
        }
        // After the loop's turn that writes the connection's queue:
        // the socket is ready before this timer expires.
        backlogTimer?.schedule(after: 0)
    }

    private func runBacklog() {
        if queue.waitsForReconcile(reconcileIsDue: reconcileIsDue(), now: loop.now) {
            return  // the reconcile executes the backlog
        }
        execute([])
    }

    private func run(_ effect: AgentEffect) {
        switch effect {
        case .wakeUp(let time):
            if let time { wakeUpTimer.schedule(after: max(0.001, time - loop.now)) } else { wakeUpTimer.cancel() }
        case .publish:
            for published in publish() { run(published) }
        case .resetStoredVolumes(let keys):
            for effect in storedVolumesReset(performer.resetStoredVolumes(keys)) { run(effect) }
        default:
            performer.perform(effect)
        }
    }
}

/// What acts on the world for the executor: every effect but `wakeUp`,
/// `publish` and `resetStoredVolumes`'s bookkeeping, which it runs itself.
protocol EffectPerforming: AnyObject {
    func perform(_ effect: AgentEffect)
    /// Sets WirePlumber's saved volume of these keys back to 1; the keys done.
    func resetStoredVolumes(_ keys: [String: WirePlumberStreamState.UserVolumes]) -> Set<String>
}
