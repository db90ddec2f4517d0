import Testing
@testable import PolicyAgent
import PolicyCore
import PolicyTestSupport

/// The executor's timing on the embedded loop: the wake-up at the time the
/// core asked, what follows a reconcile's actions on the loop's next turn,
/// a publish held back for a reconcile due then.
struct EffectExecutorTests {
    final class Recorder: EffectPerforming {
        var performed: [AgentEffect] = []
        var reset: [[String: WirePlumberStreamState.UserVolumes]] = []
        func perform(_ effect: AgentEffect) { performed.append(effect) }
        func resetStoredVolumes(_ keys: [String: WirePlumberStreamState.UserVolumes]) -> Set<String> {
            reset.append(keys)
            return Set(keys.keys)
        }
    }

    final class Harness {
        let loop = EmbeddedEventLoop(now: 100)
        let performer = Recorder()
        var wakeUps: [Double] = []
        var reconcileIsDue = false
        var published: [AgentEffect] = []
        var publishes = 0
        var storedVolumesReset: [Set<String>] = []
        private(set) var executor: EffectExecutor<EmbeddedEventLoop, Recorder>!

        init() {
            executor = EffectExecutor(loop: loop, performer: performer,
                                      wakeUp: { [unowned self] in self.wakeUps.append(self.loop.now) },
                                      reconcileIsDue: { [unowned self] in self.reconcileIsDue },
                                      publish: { [unowned self] in
                                          self.publishes += 1
                                          return self.published
                                      },
                                      storedVolumesReset: { [unowned self] keys in
                                          self.storedVolumesReset.append(keys)
                                          return [.log(.info, "forgot \(keys.sorted())")]
                                      })
        }
    }

    let journal = AgentEffect.saveJournal(AgentJournal(), sync: false)
    let gain = AgentEffect.graph(.setGain(node: 10, gain: 0.2))
    let status = AgentEffect.setMetadata(MetadataWrite(subject: 10, key: "pw-policy.stream", type: nil, value: "{}"))

    @Test func theWakeUpComesAtTheTimeAsked() {
        let harness = Harness()
        harness.executor.execute([.wakeUp(at: 100.25)])
        harness.loop.advanceTime(to: 100.249)
        #expect(harness.wakeUps.isEmpty)
        harness.loop.advanceTime(to: 101)
        #expect(harness.wakeUps == [100.25])
        #expect(harness.performer.performed.isEmpty, "the wake-up is the executor's own")
    }

    @Test func aLaterWakeUpReplacesTheEarlierAndNoneCancelsIt() {
        let harness = Harness()
        harness.executor.execute([.wakeUp(at: 100.1)])
        harness.executor.execute([.wakeUp(at: 100.5)])
        harness.loop.advanceTime(by: 1)
        #expect(harness.wakeUps == [100.5])
        harness.executor.execute([.wakeUp(at: 101.5)])
        harness.executor.execute([.wakeUp(at: nil)])
        harness.loop.advanceTime(by: 10)
        #expect(harness.wakeUps == [100.5])
    }

    @Test func aWakeUpAlreadyDueComesOnTheNextTurns() {
        let harness = Harness()
        harness.executor.execute([.wakeUp(at: 99)])
        #expect(harness.wakeUps.isEmpty, "never inside the reconcile that asked")
        harness.loop.advanceTime(by: 0.001)
        #expect(harness.wakeUps == [100.001])
    }

    @Test func aReconcilesActionsGoNowAndItsPublishOnTheLoopsNextTurn() {
        let harness = Harness()
        harness.published = [status]
        harness.executor.execute([journal, gain, .publish, .log(.info, "ducked")], flushingActionsFirst: true)
        #expect(harness.performer.performed == [journal, gain])
        #expect(harness.publishes == 0)
        harness.loop.run()
        #expect(harness.publishes == 1)
        #expect(harness.performer.performed == [journal, gain, status, .log(.info, "ducked")])
    }

    @Test func thePublishGivesWayToAReconcileDueOnThatTurn() {
        let harness = Harness()
        harness.executor.execute([gain, .publish], flushingActionsFirst: true)
        harness.reconcileIsDue = true
        harness.loop.run()
        #expect(harness.publishes == 0, "the reconcile due runs the backlog")
        harness.reconcileIsDue = false
        harness.executor.execute([gain, .publish], flushingActionsFirst: true)
        #expect(harness.performer.performed == [gain, gain])
        harness.loop.run()
        #expect(harness.publishes == 1, "the later publish replaced the one held back")
    }

    @Test func theStoredVolumesResetGoesBackToTheCore() {
        let harness = Harness()
        let keys = ["node:music": WirePlumberStreamState.UserVolumes(channelVolumes: [0.5, 0.5], mute: false)]
        harness.executor.execute([.resetStoredVolumes(keys)])
        #expect(harness.performer.reset == [keys])
        #expect(harness.storedVolumesReset == [["node:music"]])
        #expect(harness.performer.performed == [.log(.info, "forgot [\"node:music\"]")])
    }
}
