import Testing
@testable import PolicyCore
import PolicyTestSupport

/// The publishing room on its own, without the loop around it: what it
/// writes to the agent's metadata, and when it writes nothing.
struct PublishingRoomTests {
    static let session = SessionKey("app:playback")

    /// Speakers, stream 10 playing on them, the agent's metadata exported.
    static func graph() -> Graph {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addStream(10, props: ["application.name": "app"])
        graph.addLink(110, from: 10, to: 1)
        graph.metadata[Graph.policyMetadataID] = Graph.Metadata(id: Graph.policyMetadataID, name: AgentProtocol.metadataName)
        return graph
    }

    static func decided(_ graph: Graph, events: [PolicyEvent] = [], controls: ControlRequests = ControlRequests(),
                        streams: [UInt32: ClassifiedStream]? = nil) -> PublishingRoom.Decided {
        PublishingRoom.Decided(
            graph: graph, roles: .none,
            classified: streams ?? [10: testClassified(10)],
            decision: PolicyDecision(streams: [:], memory: EngineMemory(), events: events, nextWakeup: nil),
            controls: controls, players: .unwatched("no session bus"), matches: [:],
            silentMode: SilentMode(isOn: false, reason: "off"), doNotDisturb: .unknown, screenCasts: [],
            screenLock: .unknown)
    }

    static func agent(_ decided: PublishingRoom.Decided, _ stack: StackStatus?) -> AgentStatus {
        AgentStatus(pid: 42, version: "test", startedAt: "2026-11-27T00:00:00Z", configFiles: [], configError: nil,
                    dryRun: false, silentMode: decided.silentMode.isOn)
    }

    /// The metadata writes among the effects, as subject → key → value.
    static func writes(_ effects: [AgentEffect]) -> [(UInt32, String, String?)] {
        effects.compactMap { if case .setMetadata(let write) = $0 { (write.subject, write.key, write.value) } else { nil } }
    }

    @Test func eventsAreNumberedInOrderAndPublishedOnlyWhereTheMetadataIs() {
        var room = PublishingRoom()
        let first = room.emit(EventRecord(seq: 0, type: .silentMode, text: "silent mode on"), graph: Self.graph())
        let second = room.emit(EventRecord(seq: 0, type: .configReloaded, text: "reloaded"), graph: Graph(), level: .notice)
        let third = room.emit(EventRecord(seq: 0, type: .mediaKey, text: "key"), graph: Self.graph(), level: nil)
        #expect(first.first == .log(.info, "silent mode on"))
        #expect(Self.writes(first).map(\.2).first??.contains("\"seq\":1") == true, "\(first)")
        #expect(second == [.log(.notice, "reloaded")], "no metadata: logged, not published")
        #expect(Self.writes(third).count == 1 && Self.writes(third)[0].2?.contains("\"seq\":3") == true, "\(third)")
        #expect(!third.contains { if case .log = $0 { true } else { false } }, "level nil: not logged again")
    }

    @Test func nothingDecidedNothingPublished() {
        var room = PublishingRoom()
        #expect(room.publish(pausedPlayers: [:], agent: Self.agent).isEmpty)
    }

    @Test func eachDecisionsEventsAreToldTheLatestStatusesOnceAndThenOnlyWhatChanged() {
        var room = PublishingRoom()
        let graph = Self.graph()
        room.keep(Self.decided(graph, events: [.silenced(session: Self.session)]))
        room.keep(Self.decided(graph, events: [.duckEnded(session: Self.session)]))
        let effects = room.publish(pausedPlayers: [:], agent: Self.agent)
        let events = Self.writes(effects).filter { $0.1 == AgentProtocol.eventKey }.compactMap(\.2)
        #expect(events.count == 3, "classified, then both decisions' events: \(events)")
        #expect(events.first?.contains(EventType.streamClassified.rawValue) == true, "\(events)")
        #expect(events.last?.contains(EventType.duckEnded.rawValue) == true, "\(events)")
        let keys = Set(Self.writes(effects).map { "\($0.0) \($0.1)" })
        #expect(keys.isSuperset(of: ["10 \(AgentProtocol.streamKey)", "0 \(AgentProtocol.agentKey)",
                                      "0 \(AgentProtocol.outputsKey)"]), "\(keys)")

        room.keep(Self.decided(graph))
        #expect(room.publish(pausedPlayers: [:], agent: Self.agent).isEmpty, "the same again: nothing to write")
        room.connected()
        room.keep(Self.decided(graph))
        #expect(Self.writes(room.publish(pausedPlayers: [:], agent: Self.agent)).count >= 4,
                "a new connection is told everything again")
    }

    @Test func aGoneStreamsStatusIsRemovedAndItsRequestsCleared() {
        var room = PublishingRoom()
        var graph = Self.graph()
        room.keep(Self.decided(graph))
        _ = room.publish(pausedPlayers: [:], agent: Self.agent)
        graph.removeNode(10)
        graph.setPolicyEntry(subject: 10, key: AgentProtocol.streamKey, value: "{}")
        graph.setPolicyEntry(subject: 10, key: "policy.category", value: "ambient")
        room.keep(Self.decided(graph, streams: [:]))
        let writes = Self.writes(room.publish(pausedPlayers: [:], agent: Self.agent))
        #expect(writes.contains { $0.0 == 10 && $0.1 == AgentProtocol.streamKey && $0.2 == nil }, "\(writes)")
        #expect(writes.contains { $0.0 == 10 && $0.1 == "policy.category" && $0.2 == nil }, "\(writes)")
    }

    @Test func resumeRequestsAreAcknowledgedAfterTheStatuses() {
        var room = PublishingRoom()
        var controls = ControlRequests()
        controls.resumeRequests = [10]
        room.keep(Self.decided(Self.graph(), controls: controls))
        let writes = Self.writes(room.publish(pausedPlayers: [:], agent: Self.agent))
        let status = writes.firstIndex { $0.0 == 10 && $0.1 == AgentProtocol.streamKey }
        let acknowledged = writes.firstIndex { $0.0 == 10 && $0.1 == AgentProtocol.resumeKey && $0.2 == nil }
        #expect(status != nil && acknowledged != nil && status! < acknowledged!, "\(writes)")
    }

    @Test func aBrokenOverrideKeepsTheOneBeforeAndAWarningIsLoggedOnceWhileItLasts() {
        var room = PublishingRoom()
        var graph = Self.graph()
        graph.setPolicyEntry(subject: 10, key: AgentProtocol.categoryKey, value: "ambient")
        #expect(room.readRequests(in: graph).controls.nodeOverrides[10]?.category == .ambient)
        graph.setPolicyEntry(subject: 10, key: AgentProtocol.categoryKey, value: "loud")
        #expect(room.readRequests(in: graph).controls.nodeOverrides[10]?.category == .ambient, "the previous override stays")
        graph.setPolicyEntry(subject: 0, key: AgentProtocol.appOverridePrefix + "app:x", value: #"{"category": "loud", "options": []}"#)
        let warned = room.readRequests(in: graph).effects
        #expect(warned.count == 1 && warned.allSatisfy { if case .log(.warning, _) = $0 { true } else { false } }, "\(warned)")
        #expect(room.readRequests(in: graph).effects.isEmpty, "logged once while it lasts")
    }
}
