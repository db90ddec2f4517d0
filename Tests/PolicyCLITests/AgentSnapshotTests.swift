import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct AgentSnapshotTests {
    @Test func noMetadataMeansNotRunning() {
        let snapshot = AgentSnapshot(metadata: nil)
        #expect(!snapshot.isRunning)
        #expect(snapshot.agent == nil && snapshot.streams.isEmpty)
    }

    @Test func decodesEverythingTheAgentPublishes() {
        let snapshot = AgentSnapshot(metadata: Fixtures.busyGraph.metadata(named: AgentProtocol.metadataName))
        #expect(snapshot.isRunning)
        #expect(snapshot.agent == Fixtures.agent)
        #expect(snapshot.outputs == Fixtures.outputs)
        #expect(snapshot.streams.keys.sorted() == [57, 60, 63, 70, 71, 80])
        #expect(snapshot.streams[63]?.hold?.byApp == "Zoom")
        #expect(snapshot.problems.isEmpty)
    }

    @Test func readsRequestsWrittenByUsers() {
        let request = AppOverrideRequest(category: "playback", options: ["duck-others"], persist: true)
        let metadata = Fixtures.metadata([
            (0, AgentProtocol.silentModeKey, "true"),
            (0, AgentProtocol.appOverrideKey("spotify"), Fixtures.json(request)),
            (57, AgentProtocol.categoryKey, "playback"),
            (57, AgentProtocol.resumeKey, "true"),
        ])
        let snapshot = AgentSnapshot(metadata: metadata)
        #expect(snapshot.silentModeRequest == true)
        #expect(snapshot.silentMode == true)
        #expect(snapshot.appOverrides["spotify"] == request)
        #expect(snapshot.nodeOverrides[57]?.category == "playback")
        #expect(snapshot.pendingResumes == [57])
    }

    @Test func undecodableValuesBecomeProblemsNotFailures() {
        let metadata = Fixtures.metadata([
            (0, AgentProtocol.agentKey, "{\"pid\": \"not a number\"}"),
            (57, AgentProtocol.streamKey, "garbage"),
            (60, AgentProtocol.streamKey, Fixtures.json(Fixtures.stream(60, app: "Maps"))),
        ])
        let snapshot = AgentSnapshot(metadata: metadata)
        #expect(snapshot.agent == nil)
        #expect(snapshot.streams.keys.sorted() == [60])
        #expect(snapshot.problems.count == 2)
        #expect(snapshot.problems.contains { $0.contains(AgentProtocol.agentKey) })
    }

    @Test func theAgentsSilentModeWinsOverTheRequest() {
        var agent = Fixtures.agent
        agent.silentMode = false
        let snapshot = AgentSnapshot(metadata: Fixtures.metadata([
            (0, AgentProtocol.agentKey, Fixtures.json(agent)), (0, AgentProtocol.silentModeKey, "true"),
        ]))
        #expect(snapshot.silentMode == false)
    }
}
