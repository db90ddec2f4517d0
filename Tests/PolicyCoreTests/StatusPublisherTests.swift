import Foundation
import Testing
@testable import PolicyCore
import PolicyTestSupport

@Suite struct StatusPublisherTests {
    static let phone = SessionKey("pid:1866/play-and-record")
    static let radio = SessionKey("pid:31691/playback")
    /// The radio's app has another session beside: its name says which.
    static let names = DecisionNames(sessions: [phone: SessionName(app: "Phone"),
                                                radio: SessionName(app: "Radio", which: "playback")],
                                     streams: [10: "Music"])

    static func graph() -> Graph {
        var graph = Graph()
        graph.addSink(1, name: "speakers", props: ["node.description": "Built-in Speakers"])
        graph.addSink(2, name: "bluez_output.aa")
        graph.addSink(3, name: "filter", props: ["node.virtual": "true"])
        graph.addStream(10)
        graph.addLink(50, from: 10, to: 1)
        graph.addStream(11, state: .idle)
        graph.setDefaults(sink: "speakers")
        return graph
    }

    // MARK: stream status

    @Test func streamStatusFields() {
        let graph = Self.graph()
        let classified = testClassified(10, category: .soloAmbient, app: "Player", options: [.duckOthers, .mixWithOthers],
                                        warnings: ["from the classifier"])
        let decision = StreamDecision(gain: 0.2, duckedBy: [Self.phone, Self.radio], explanation: ["ducked by Phone"])
        let status = StatusPublisher.streamStatus(node: graph.nodes[10]!, classified: classified, decision: decision,
                                                  graph: graph, names: Self.names, extraWarnings: ["override broken"])
        #expect(status.id == 10)
        #expect(status.app == "Player" && status.appKey == "app:Player" && status.session == "Player:solo-ambient")
        #expect(status.direction == "playback" && status.state == "running")
        #expect(status.category == "solo-ambient")
        #expect(status.options == ["mix-with-others", "duck-others"], "in the options' declared order")
        #expect(status.mode == "default" && !status.exempt && status.source == "rule" && status.reason == "test rule")
        #expect(status.warnings == ["from the classifier", "override broken"])
        #expect(status.gain == 0.2 && status.hold == nil && !status.silenced)
        #expect(status.duckedBy == [StreamStatus.Ducker(session: Self.phone.rawValue, app: "Phone"),
                                    StreamStatus.Ducker(session: Self.radio.rawValue, app: "Radio", which: "playback")])
        #expect(status.output == "speakers")
        #expect(status.explanation == ["ducked by Phone"])
    }

    @Test func streamStatusWithoutDecisionIsUntouched() {
        let graph = Self.graph()
        let status = StatusPublisher.streamStatus(node: graph.nodes[11]!, classified: testClassified(11), decision: nil,
                                                  graph: graph, names: DecisionNames(), extraWarnings: [])
        #expect(status.gain == 1 && status.hold == nil && status.duckedBy.isEmpty && !status.silenced)
        #expect(status.output == nil && status.state == "idle")
    }

    @Test(arguments: [
        (HoldReason.interrupted(by: phone, app: "Phone", resumable: true),
         StreamStatus.Hold(kind: "interrupted", by: phone.rawValue, byApp: "Phone", resumable: true, app: "running")),
        (.interrupted(by: phone, app: "Phone", resumable: false),
         StreamStatus.Hold(kind: "interrupted", by: phone.rawValue, byApp: "Phone", resumable: false, app: "running")),
        (.waiting(for: radio, app: "Radio"),
         StreamStatus.Hold(kind: "waiting", by: radio.rawValue, byApp: "Radio", byWhich: "playback", resumable: true,
                           app: "running")),
        (.routeLost(output: "headphones"),
         StreamStatus.Hold(kind: "route-lost", resumable: false, output: "headphones", app: "running")),
    ])
    func holdKinds(_ reason: HoldReason, _ expected: StreamStatus.Hold) {
        let graph = Self.graph()
        let status = StatusPublisher.streamStatus(node: graph.nodes[10]!, classified: testClassified(10),
                                                  decision: StreamDecision(gain: 0, hold: reason), graph: graph,
                                                  names: Self.names, extraWarnings: [])
        #expect(status.hold == expected)
        #expect(status.hold?.kind == reason.kind.rawValue)
        #expect(status.gain == 0)
    }

    /// Whether the held app stands still is what its node says: suspended or
    /// idle (not scheduled) is stopped; running plays on into nothing.
    @Test(arguments: [(Graph.NodeState.suspended, "stopped"), (.idle, "stopped"), (.running, "running")])
    func aHoldSaysWhetherTheAppStandsStill(_ state: Graph.NodeState, _ app: String) {
        var graph = Self.graph()
        graph.nodes[10]?.state = state
        let status = StatusPublisher.streamStatus(node: graph.nodes[10]!, classified: testClassified(10),
                                                  decision: StreamDecision(gain: 0, hold: .routeLost(output: "headphones")),
                                                  graph: graph, names: Self.names, extraWarnings: [])
        #expect(status.hold?.app == app)
    }

    @Test func silencedStatus() {
        let graph = Self.graph()
        let status = StatusPublisher.streamStatus(node: graph.nodes[10]!, classified: testClassified(10),
                                                  decision: StreamDecision(gain: 0, silenced: true), graph: graph,
                                                  names: DecisionNames(), extraWarnings: [])
        #expect(status.silenced && status.gain == 0 && status.hold == nil)
    }

    // MARK: outputs

    @Test func outputsStatus() {
        let outputs = StatusPublisher.outputs(graph: Self.graph())
        #expect(outputs == [
            OutputStatus(id: 1, name: "speakers", description: "Built-in Speakers", isPrivate: false, isAvailable: true,
                         isDefault: true),
            OutputStatus(id: 2, name: "bluez_output.aa", description: "bluez_output.aa", isPrivate: true,
                         isAvailable: true, isDefault: false),
        ])
    }

    /// A card's sink shows the port it plays to, as the card describes it.
    @Test func outputsShowTheCardsActivePort() throws {
        var graph = Graph()
        graph.addDevice(40, routes: [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                                                 description: "Headphones", available: .yes, portType: "headphones")])
        graph.addSink(1, name: "alsa_output.analog-stereo", device: 40, profileDevice: 0)
        let output = try #require(StatusPublisher.outputs(graph: graph).first)
        #expect(output.port == "Headphones" && output.isPrivate)
        #expect(StatusPublisher.outputs(graph: Self.graph()).allSatisfy { $0.port == nil })
    }

    // MARK: events

    struct EventCase: CustomTestStringConvertible, Sendable {
        var event: PolicyEvent
        var type: EventType
        /// Words the text must hold.
        var words: [String]
        var session: String?
        var by: String?
        var stream: UInt32?
        var shouldResume: Bool?
        var level: Double?
        var reason: String?
        var testDescription: String { type.rawValue }
    }

    static let eventCases: [EventCase] = [
        EventCase(event: .interruptionBegan(session: radio, by: phone, resumable: true), type: .interruptionBegan,
                  words: ["\"Radio\" (playback) interrupted by \"Phone\", resumes"],
                  session: radio.rawValue, by: phone.rawValue, shouldResume: true),
        EventCase(event: .interruptionBegan(session: radio, by: phone, resumable: false), type: .interruptionBegan,
                  words: ["interrupted", "\"Phone\""], session: radio.rawValue, by: phone.rawValue, shouldResume: false),
        EventCase(event: .interruptionEnded(session: phone, shouldResume: true), type: .interruptionEnded,
                  words: ["\"Phone\"", "ended", "true"], session: phone.rawValue, shouldResume: true),
        EventCase(event: .duckBegan(session: radio, by: phone, level: 0.2), type: .duckBegan,
                  words: ["\"Radio\" (playback) ducked to 0.20 by \"Phone\""], session: radio.rawValue, by: phone.rawValue,
                  level: 0.2),
        EventCase(event: .duckEnded(session: radio), type: .duckEnded, words: ["\"Radio\" (playback) no longer ducked"],
                  session: radio.rawValue),
        EventCase(event: .silenced(session: phone), type: .silenced, words: ["\"Phone\" silenced"],
                  session: phone.rawValue),
        EventCase(event: .unsilenced(session: phone), type: .unsilenced, words: ["\"Phone\" no longer silenced"],
                  session: phone.rawValue),
        EventCase(event: .routeChanged(reason: .oldDeviceUnavailable, output: "headphones"), type: .routeChanged,
                  words: ["old-device-unavailable", "headphones"], reason: "old-device-unavailable"),
        EventCase(event: .routeChanged(reason: .newDeviceAvailable, output: "usb"), type: .routeChanged,
                  words: ["new-device-available", "usb"], reason: "new-device-available"),
        EventCase(event: .heldForRoute(stream: 10, output: "headphones"), type: .heldForRoute,
                  words: ["stream 10 \"Music\" held", "\"headphones\""], stream: 10, reason: "old-device-unavailable"),
        // A session the decision cannot name (it always can) is still not shown by its key.
        EventCase(event: .duckEnded(session: SessionKey("pid:7/ambient")), type: .duckEnded,
                  words: ["\"unknown app\" no longer ducked"], session: "pid:7/ambient"),
        EventCase(event: .resumed(stream: 12), type: .resumed, words: ["stream 12", "resumed"], stream: 12),
    ]

    @Test(arguments: eventCases)
    func eventRecord(_ example: EventCase) {
        let record = StatusPublisher.record(example.event, seq: 7, names: Self.names)
        #expect(record.seq == 7)
        #expect(record.type == example.type)
        for word in example.words { #expect(record.text.contains(word), "\(record.text) lacks \(word)") }
        #expect(!record.text.contains("\n"))
        #expect(!record.text.contains("pid:"), "a session key in \(record.text)")
        #expect(record.session == example.session)
        #expect(record.by == example.by)
        #expect(record.stream == example.stream)
        #expect(record.shouldResume == example.shouldResume)
        #expect(record.level == example.level)
        #expect(record.reason == example.reason)
    }

    /// Adding an event type is one edit (EventType) and its documentation:
    /// the protocol lists what the agent publishes, `monitor`'s docs and help
    /// every type it prints.
    @Test(arguments: EventType.allCases)
    func everyEventTypeIsDocumented(_ type: EventType) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        func read(_ path: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }
        let (protocolDoc, cliDoc) = (try read("docs/PROTOCOL.md"), try read("docs/CLI.md"))
        if type.isPublishedByTheAgent {
            #expect(protocolDoc.contains("`\(type.rawValue)`"), "docs/PROTOCOL.md lacks \(type.rawValue)")
        }
        #expect(cliDoc.contains("`\(type.rawValue)`"), "docs/CLI.md lacks \(type.rawValue)")
        let help = try read("Tests/Snapshots/cli-help/monitor.txt").replacingOccurrences(of: "\n", with: " ")
        #expect(help.range(of: "\\b\(type.rawValue)\\b", options: .regularExpression) != nil, "monitor --help lacks \(type.rawValue)")
    }

    /// Each event a decision makes is one of the declared types.
    @Test func decisionEventsHaveTheirOwnTypes() {
        let types = Set(Self.eventCases.map { StatusPublisher.record($0.event, seq: 0, names: DecisionNames()).type })
        #expect(types.allSatisfy { $0.isPublishedByTheAgent })
        #expect(types.count == 9)
    }

    // MARK: JSON

    @Test func jsonIsSortedAndCompact() {
        struct Unordered: Encodable { var zebra = 1; var apple = "a/b"; var mango: [Int] = [2, 1] }
        #expect(StatusPublisher.json(Unordered()) == #"{"apple":"a/b","mango":[2,1],"zebra":1}"#)
    }

    @Test func jsonIsStableAndRoundTrips() throws {
        let graph = Self.graph()
        let status = StatusPublisher.streamStatus(
            node: graph.nodes[10]!, classified: testClassified(10), graph: graph,
            decision: StreamDecision(gain: 0, hold: .routeLost(output: "headphones")), names: Self.names)
        let first = StatusPublisher.json(status)
        #expect(first == StatusPublisher.json(status))
        #expect(try JSONDecoder().decode(StreamStatus.self, from: Data(first.utf8)) == status)
        // Keys in sorted order, at every level.
        let keys = ["\"app\"", "\"appKey\"", "\"category\"", "\"direction\"", "\"duckedBy\"", "\"exempt\"",
                    "\"explanation\"", "\"gain\"", "\"hold\"", "\"id\"", "\"mode\"", "\"options\"", "\"reason\"",
                    "\"session\"", "\"silenced\"", "\"source\"", "\"state\"", "\"warnings\""]
        let positions = keys.map { first.range(of: $0 + ":")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(first.contains(#""hold":{"app":"running","kind":"route-lost","output":"headphones","resumable":false}"#))
    }

    @Test func eventJSONLeavesOutMissingFields() {
        let record = StatusPublisher.record(.resumed(stream: 3), seq: 1, names: DecisionNames())
        #expect(StatusPublisher.json(record) == #"{"seq":1,"stream":3,"text":"stream 3 resumed by the user","type":"resumed"}"#)
    }
}

private extension StatusPublisher {
    /// The agent's call, with the sinks found from `graph` as the agent finds them.
    static func streamStatus(node: Graph.Node, classified: ClassifiedStream, decision: StreamDecision?,
                             graph: Graph, names: DecisionNames, extraWarnings: [String]) -> StreamStatus {
        streamStatus(node: node, classified: classified, decision: decision, graph: graph,
                     linkedSinks: EngineInputBuilder.linkedSinks(in: graph), names: names, extraWarnings: extraWarnings)
    }

    /// The call with arguments in reading order, for the tests above.
    static func streamStatus(node: Graph.Node, classified: ClassifiedStream, graph: Graph, decision: StreamDecision,
                             names: DecisionNames) -> StreamStatus {
        streamStatus(node: node, classified: classified, decision: decision, graph: graph, names: names,
                     extraWarnings: [])
    }
}
