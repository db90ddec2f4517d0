import Testing
@testable import PolicyAgent
import PolicyCore
import PolicyPipeWire
import PolicyTestSupport

/// Which of the mirror's changes call for a reconcile: not the agent's own
/// statuses and events coming back from its metadata, not a link's way to
/// `active`, not our own Props commands; everything else, requests written
/// into the agent's metadata by others above all.
struct ReconcileTriggerTests {
    let graph: Graph = {
        var graph = Graph()
        graph.setPolicyEntry(subject: 0, key: AgentProtocol.silentModeKey, value: "true")
        graph.setDefaults(sink: "speakers")
        return graph
    }()
    let policy = Graph.policyMetadataID, defaults = Graph.defaultMetadataID

    private func calls(_ change: GraphMirror.ObjectChange, echo: Bool = false) -> Bool {
        ReconcileTrigger.calls(for: change, in: graph, isEcho: { _ in echo })
    }

    @Test(arguments: [AgentProtocol.agentKey, AgentProtocol.outputsKey, AgentProtocol.streamKey, AgentProtocol.eventKey])
    func theAgentsOwnPublicationsComingBackCallForNone(_ key: String) {
        #expect(!calls(.metadata(policy, subject: 0, key: key)))
        #expect(!calls(.metadata(policy, subject: 42, key: key)))
        // The same key in someone else's metadata is theirs.
        #expect(calls(.metadata(defaults, subject: 0, key: key)))
    }

    @Test(arguments: [AgentProtocol.silentModeKey, AgentProtocol.resumeKey, AgentProtocol.categoryKey,
                      AgentProtocol.optionsKey, AgentProtocol.modeKey, AgentProtocol.appOverrideKey("firefox")])
    func requestsInTheAgentsMetadataCallForOne(_ key: String) {
        #expect(calls(.metadata(policy, subject: 0, key: key)))
    }

    @Test func aSubjectClearedOrAnotherMetadataCallsForOne() {
        #expect(calls(.metadata(policy, subject: 42, key: nil)))
        #expect(calls(.metadata(defaults, subject: 0, key: "default.audio.sink")))
    }

    @Test func aLinkCallsForOneOnlyWhenItFailsOrRecovers() {
        let states: [Graph.LinkState] = [.unlinked, .initializing, .negotiating, .allocating, .paused, .active]
        for before in states {
            for after in states where after != before {
                #expect(!calls(.linkState(7, from: before, to: after)), "\(before) → \(after)")
            }
            #expect(calls(.linkState(7, from: before, to: .error)))
            #expect(calls(.linkState(7, from: .error, to: before)))
        }
    }

    @Test func ourOwnPropsComingBackCallForNoneAndOthersForOne() {
        #expect(!calls(.props(5), echo: true))
        #expect(calls(.props(5), echo: false))
    }

    @Test func objectsComingGoingOrChangingCallForOne() {
        #expect(calls(.added(5)))
        #expect(calls(.removed(5)))
        #expect(calls(.info(5)))
    }
}
