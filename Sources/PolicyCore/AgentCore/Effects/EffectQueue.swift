/// Which effects the executor runs now and which wait for the loop's next
/// turn; the executor only runs them and arms a timer while some wait.
///
/// A reconcile's effects (`flushingActionsFirst`): once graph actions have
/// run, the effects after them (events, statuses, acknowledgements:
/// hundreds of metadata writes when hundreds of streams duck) wait for the
/// loop's next turn. libpipewire sends what was queued on the connection
/// only when the loop runs again, so writing those first would hold back the
/// gains the daemon is waiting for. A publish waits for the next turn even
/// without graph actions, and gives way to a reconcile due then — for at
/// most `longestPublishWait`, so that a steady stream of graph changes
/// cannot keep the statuses from ever being published: a reconcile that
/// ducks hundreds of streams would otherwise start only after the publish of
/// the turn before it (docs/PERFORMANCE.md, "Limits found"). The order of
/// all effects stays the one decided: the journal before the actions,
/// statuses before acknowledgements.
public struct EffectQueue: Sendable, Equatable {
    public static let longestPublishWait = 0.05

    /// Effects held back, in order.
    public private(set) var backlog: [AgentEffect] = []
    /// Since when a publish has waited for reconciles.
    private var publishWaitingSince: Double?

    public init() {}

    /// The effects to run now, in order: those held back (less a publish or
    /// wake-up that `effects` brings again: AgentEffect.supersededInBacklog),
    /// then `effects` — up to where the rest must wait, which becomes the
    /// backlog.
    public mutating func take(_ effects: [AgentEffect], flushingActionsFirst: Bool, now: Double) -> [AgentEffect] {
        let superseded = AgentEffect.supersededInBacklog(by: effects)
        let queue = backlog.filter { !superseded($0) } + effects
        backlog = []
        var acted = false
        for (index, effect) in queue.enumerated() {
            if case .graph = effect {
                acted = true
            } else if flushingActionsFirst, acted || effect == .publish {
                backlog = Array(queue[index...])
                if publishWaitingSince == nil { publishWaitingSince = now }
                return Array(queue[..<index])
            }
        }
        publishWaitingSince = nil
        return queue
    }

    /// On the loop's next turn: whether the backlog waits for the reconcile
    /// due on this turn (which takes it along), or runs now.
    public func waitsForReconcile(reconcileIsDue: Bool, now: Double) -> Bool {
        guard reconcileIsDue, let since = publishWaitingSince else { return false }
        return now - since < Self.longestPublishWait
    }
}
