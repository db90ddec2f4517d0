import Testing
@testable import PolicyCore

/// The executor's order: the journal before the actions, the actions at
/// once, what follows them on the loop's next turn; a publish waits for a
/// reconcile due then, but not for long; a later publish or wake-up replaces
/// one held back.
struct EffectQueueTests {
    let journal = AgentEffect.saveJournal(AgentJournal(), sync: false)
    let gain = AgentEffect.graph(.setGain(node: 10, gain: 0.2))
    let status = AgentEffect.setMetadata(MetadataWrite(subject: 10, key: "pw-policy.stream", type: nil, value: "{}"))
    let log = AgentEffect.log(.info, "ducked")

    @Test func aReconcileRunsTheJournalAndActionsNowAndTheRestOnTheNextTurn() {
        var queue = EffectQueue()
        let now = queue.take([journal, gain, status, .publish, log], flushingActionsFirst: true, now: 1)
        #expect(now == [journal, gain])
        #expect(queue.backlog == [status, .publish, log])
        #expect(queue.take([], flushingActionsFirst: false, now: 1.001) == [status, .publish, log])
        #expect(queue.backlog.isEmpty)
    }

    @Test func withoutFlushingEverythingRunsInOrder() {
        var queue = EffectQueue()
        #expect(queue.take([journal, gain, status, .publish], flushingActionsFirst: false, now: 1)
            == [journal, gain, status, .publish])
        #expect(queue.backlog.isEmpty)
    }

    @Test func aPublishWaitsForTheNextTurnEvenWithoutActions() {
        var queue = EffectQueue()
        #expect(queue.take([journal, .publish, log], flushingActionsFirst: true, now: 1) == [journal])
        #expect(queue.backlog == [.publish, log])
    }

    @Test func aLaterPublishAndWakeUpReplaceTheOnesHeldBack() {
        var queue = EffectQueue()
        _ = queue.take([gain, status, .publish, .wakeUp(at: 5)], flushingActionsFirst: true, now: 1)
        let next = queue.take([gain, .publish, .wakeUp(at: 6)], flushingActionsFirst: true, now: 1.01)
        #expect(next == [status, gain], "what was held back runs first, in order, and the new actions at once")
        #expect(queue.backlog == [.publish, .wakeUp(at: 6)], "one publish, the latest wake-up")
    }

    @Test func theBacklogGivesWayToAReconcileDueForAtMostTheLongestWait() {
        var queue = EffectQueue()
        _ = queue.take([gain, .publish], flushingActionsFirst: true, now: 1)
        #expect(queue.waitsForReconcile(reconcileIsDue: true, now: 1.01))
        #expect(!queue.waitsForReconcile(reconcileIsDue: false, now: 1.01), "nothing to wait for")
        // A reconcile that comes due takes the backlog along and holds its
        // own publish back: the wait counts from the first one held back.
        _ = queue.take([gain, .publish], flushingActionsFirst: true, now: 1.03)
        #expect(!queue.waitsForReconcile(reconcileIsDue: true, now: 1 + EffectQueue.longestPublishWait),
                "after the longest wait the statuses go out whatever is due")
        _ = queue.take([], flushingActionsFirst: false, now: 1.06)
        _ = queue.take([gain, .publish], flushingActionsFirst: true, now: 2)
        #expect(queue.waitsForReconcile(reconcileIsDue: true, now: 2.01), "the wait starts afresh once the backlog ran")
    }
}
