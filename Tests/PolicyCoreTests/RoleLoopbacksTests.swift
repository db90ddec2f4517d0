import Testing
@testable import PolicyCore
import PolicyTestSupport

/// WirePlumber 0.5's role loopbacks as the agent reads them from the graph,
/// what its role policy does to them, and how the agent applies that in its
/// place (docs/POLICY.md, "Beside WirePlumber's role policy").
@Suite struct RoleLoopbacksTests {
    /// Speakers (1, default), headphones (2), and the six loopbacks of
    /// WirePlumber's example `media-role-nodes.conf`, playing to the speakers.
    static func desktop(defaultRole: String? = "Multimedia", duckLevel: String? = "0.3",
                        multimediaPlaysTo: UInt32? = 1, multimediaVolume: Float = 1) -> Graph {
        var graph = Graph()
        var next: UInt32 = 600
        graph.addSink(1, name: "speakers", channels: ["FL", "FR"])
        graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"], channels: ["FL", "FR"])
        graph.setDefaults(sink: "speakers")
        graph.setWirePlumberSettings(defaultRole: defaultRole, duckLevel: duckLevel)
        graph.addRoleLoopback(input: 20, output: 21, role: "multimedia", description: "Multimedia",
                              intendedRoles: ["Music", "Movie", "Game", "Multimedia"], priority: 10,
                              volume: multimediaVolume, playsTo: multimediaPlaysTo, nextLinkID: &next)
        graph.addRoleLoopback(input: 22, output: 23, role: "notification", description: "System Notifications",
                              intendedRoles: ["Notification"], priority: 20, playsTo: 1, nextLinkID: &next)
        graph.addRoleLoopback(input: 24, output: 25, role: "navigation", description: "Navigation",
                              intendedRoles: ["Navigation", "GPS"], priority: 30, lowerPriority: "duck", playsTo: 1,
                              nextLinkID: &next)
        graph.addRoleLoopback(input: 26, output: 27, role: "assistant", description: "Voice Assistant",
                              intendedRoles: ["Assistant"], priority: 40, lowerPriority: "cork", playsTo: 1, nextLinkID: &next)
        graph.addRoleLoopback(input: 28, output: 29, role: "communication", description: "Communication",
                              intendedRoles: ["Communication", "Phone"], priority: 50, lowerPriority: "cork", playsTo: 1,
                              nextLinkID: &next)
        graph.addRoleLoopback(input: 30, output: 31, role: "alert", description: "Alert", intendedRoles: ["Alert", "Emergency"],
                              priority: 100, lowerPriority: "cork", playsTo: 1,
                              extra: ["policy.role-based.preferred-target": "Speaker"], nextLinkID: &next)
        return graph
    }

    /// A playback stream of `role` (nil: none), linked into `into` by link `link`.
    static func stream(_ id: UInt32, role: String?, into: UInt32?, link: UInt32, _ graph: inout Graph,
                       props: [String: String] = [:]) {
        graph.addStream(id, props: (role.map { ["media.role": $0] } ?? [:]).merging(props) { $1 })
        if let into { graph.addLink(link, from: id, to: into) }
    }

    // MARK: reading the graph

    @Test func theExamplesLoopbacksAreReadWithTheirPairsRolesPrioritiesAndActions() throws {
        let roles = RoleLoopbacks.observed(in: Self.desktop())
        #expect(roles.isActive && roles.loopbacks.count == 6)
        #expect(roles.defaultRole == "Multimedia" && roles.duckLevelSetting == "0.3")
        let multimedia = try #require(roles.loopback(input: 20))
        #expect(multimedia == RoleLoopbacks.Loopback(input: 20, output: 21, name: "input.loopback.sink.role.multimedia",
                                                     description: "Multimedia",
                                                     intendedRoles: ["Music", "Movie", "Game", "Multimedia"], priority: 10,
                                                     samePriority: .mix, lowerPriority: .mix, volume: 1, playsTo: 1))
        let alert = try #require(roles.loopback(input: 30))
        #expect(alert.priority == 100 && alert.lowerPriority == .cork && alert.preferredTarget == "Speaker")
        #expect(roles.nodes == Set([20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]))
        #expect(!roles.isLoopbackNode(1) && roles.isLoopbackNode(21))
    }

    struct RecognitionCase: CustomTestStringConvertible, Sendable {
        var label: String
        var props: [String: String]
        var name = "some-sink"
        var isLoopback: Bool
        var testDescription: String { label }
    }

    static let recognitionCases: [RecognitionCase] = [
        RecognitionCase(label: "a role-based target with a link group",
                        props: ["policy.role-based.target": "true", "node.link-group": "g"], isLoopback: true),
        RecognitionCase(label: "WirePlumber reads 1 as true", props: ["policy.role-based.target": "1", "node.link-group": "g"],
                        isLoopback: true),
        RecognitionCase(label: "the example's name, no property", props: ["node.link-group": "g"],
                        name: "input.loopback.sink.role.multimedia", isLoopback: true),
        RecognitionCase(label: "a device with intended roles is an output, not a loopback",
                        props: ["device.intended-roles": "[ \"Communication\" ]"], isLoopback: false),
        RecognitionCase(label: "a role-based target without a link group has no playing side",
                        props: ["policy.role-based.target": "true"], isLoopback: false),
        RecognitionCase(label: "policy.role-based.target = false", props: ["policy.role-based.target": "false", "node.link-group": "g"],
                        isLoopback: false),
    ]

    @Test(arguments: recognitionCases)
    func aLoopbackIsRecognisedByItsPropertiesOrName(_ scenario: RecognitionCase) {
        var graph = Graph()
        graph.addSink(5, name: scenario.name, props: scenario.props)
        #expect(RoleLoopbacks.observed(in: graph).isActive == scenario.isLoopback)
        #expect(RoleLoopbacks.isLoopbackInput(graph.nodes[5]!) == scenario.isLoopback)
        // Never an output device, whatever node.virtual says.
        #expect(OutputDetection.outputs(in: graph).contains { $0.id == 5 } == !scenario.isLoopback)
    }

    struct TargetCase: CustomTestStringConvertible, Sendable {
        var label: String
        var role: String?
        var defaultRole: String? = "Multimedia"
        var capture = false
        var loopback: UInt32?
        var testDescription: String { label }
    }

    static let targetCases: [TargetCase] = [
        TargetCase(label: "Music", role: "Music", loopback: 20),
        TargetCase(label: "GPS goes with Navigation", role: "GPS", loopback: 24),
        TargetCase(label: "Phone goes with Communication", role: "Phone", loopback: 28),
        TargetCase(label: "Emergency goes with Alert", role: "Emergency", loopback: 30),
        TargetCase(label: "roles are compared exactly, as WirePlumber does", role: "music", loopback: nil),
        TargetCase(label: "a role no loopback takes goes to the default sink", role: "Accessibility", loopback: nil),
        TargetCase(label: "no role: the default role's loopback", role: nil, loopback: 20),
        TargetCase(label: "no role, no default role", role: nil, defaultRole: nil, loopback: nil),
        TargetCase(label: "a capture stream is no loopback's", role: "Music", capture: true, loopback: nil),
    ]

    @Test(arguments: targetCases)
    func theLoopbackWirePlumberWouldLinkAStreamInto(_ scenario: TargetCase) {
        var graph = Self.desktop(defaultRole: scenario.defaultRole)
        graph.addStream(40, direction: scenario.capture ? .capture : .playback,
                        props: scenario.role.map { ["media.role": $0] } ?? [:])
        #expect(RoleLoopbacks.observed(in: graph).loopback(for: graph.nodes[40]!)?.input == scenario.loopback)
    }

    @Test func aStreamBehindALoopbackPlaysToTheLoopbacksSinkNeverToTheLoopback() {
        var graph = Self.desktop(multimediaPlaysTo: 2)
        Self.stream(40, role: "Music", into: 20, link: 700, &graph)
        graph.addStream(41)
        graph.addLink(701, from: 41, to: 1)
        let classified: [UInt32: ClassifiedStream] = [40: testClassified(40, app: "music"), 41: testClassified(41, app: "other")]
        let roles = RoleLoopbacks.observed(in: graph)
        var input = EngineInputBuilder.build(graph: graph, classified: classified, now: 1, silentMode: false,
                                             resumeRequests: [], roles: roles)
        #expect(input.streams.map(\.output) == [2, 1], "through the loopback to the headphones; the other straight")
        #expect(!input.outputs.contains { roles.isLoopbackNode($0.id) }, "a loopback is no output")
        #expect(input.outputs.map(\.id) == [1, 2])

        // Its playing side unlinked for a moment (its sink went): no output,
        // not the loopback, and the stream is still linked.
        graph.links = graph.links.filter { $0.value.outputNode != 21 }
        graph.nodes[40]?.state = .idle
        input = EngineInputBuilder.build(graph: graph, classified: classified, now: 2, silentMode: false,
                                         resumeRequests: [], roles: RoleLoopbacks.observed(in: graph))
        #expect(input.streams[0].output == nil && !input.streams[0].isUnlinked)
        // Without the roles, the old reading: the loopback as the output.
        input = EngineInputBuilder.build(graph: graph, classified: classified, now: 2, silentMode: false, resumeRequests: [])
        #expect(input.streams[0].output == 20)
    }

    // MARK: what WirePlumber's role policy does

    struct ActionCase: CustomTestStringConvertible, Sendable {
        var label: String
        /// Playing streams: (role, loopback input).
        var playing: [(String, UInt32)]
        var leader: UInt32?
        var actions: [UInt32: RoleLoopbacks.Action]
        var testDescription: String { label }
    }

    static let actionCases: [ActionCase] = [
        ActionCase(label: "nothing plays", playing: [], leader: nil, actions: [:]),
        ActionCase(label: "music alone leads", playing: [("Music", 20)], leader: 20, actions: [:]),
        ActionCase(label: "a navigation prompt ducks the lower roles", playing: [("Music", 20), ("Navigation", 24)],
                   leader: 24, actions: [20: .duck, 22: .duck]),
        ActionCase(label: "a call corks everything below it", playing: [("Music", 20), ("Communication", 28)],
                   leader: 28, actions: [20: .cork, 22: .cork, 24: .cork, 26: .cork]),
        ActionCase(label: "an alert over a call corks the call too",
                   playing: [("Music", 20), ("Communication", 28), ("Alert", 30)],
                   leader: 30, actions: [20: .cork, 22: .cork, 24: .cork, 26: .cork, 28: .cork]),
        ActionCase(label: "two streams of one role mix", playing: [("Music", 20), ("Movie", 20)], leader: 20, actions: [:]),
    ]

    @Test(arguments: actionCases)
    func wirePlumbersActionsFollowThePriorityOfWhatPlays(_ scenario: ActionCase) {
        var graph = Self.desktop()
        for (index, (role, loopback)) in scenario.playing.enumerated() {
            Self.stream(40 + UInt32(index), role: role, into: loopback, link: 700 + UInt32(index), &graph)
        }
        let actions = RoleActions.now(RoleLoopbacks.observed(in: graph), graph: graph)
        #expect(actions == RoleActions(leader: scenario.leader, actions: scenario.actions))
    }

    @Test func onlyApplicationStreamsLead() {
        var graph = Self.desktop()
        Self.stream(40, role: "Music", into: 20, link: 700, &graph)
        // A monitor stream, the agent's own meter and a loopback's playing
        // side linked into the navigation loopback are no role links.
        Self.stream(41, role: nil, into: 24, link: 701, &graph, props: ["stream.monitor": "true"])
        Self.stream(42, role: nil, into: 24, link: 702, &graph, props: [Graph.Node.agentsOwnKey: "meter"])
        graph.addLink(703, from: 23, to: 24)
        let actions = RoleActions.now(RoleLoopbacks.observed(in: graph), graph: graph)
        #expect(actions == RoleActions(leader: 20, actions: [:]))
    }

    // MARK: the agent in WirePlumber's place

    struct GainCase: CustomTestStringConvertible, Sendable {
        var label: String
        /// The music: its engine gain, and where it is linked (nil: nowhere).
        var engineGain: Double
        var linkedInto: UInt32? = 20
        var held = false
        /// What else plays: (role, loopback).
        var others: [(String, UInt32)] = []
        var gain: Double
        var says: String
        var testDescription: String { label }
    }

    static let gainCases: [GainCase] = [
        GainCase(label: "the agent's duck below WirePlumber's: the agent's, not the product", engineGain: 0.2,
                 others: [("Navigation", 24)], gain: 0.2, says: "ducked there to 0.30 while \"Navigation\" (priority 30) plays"),
        GainCase(label: "WirePlumber ducks where the agent does not: WirePlumber's", engineGain: 1,
                 others: [("Navigation", 24)], gain: 0.3, says: "lower-priority = duck, applied by pw-policy"),
        GainCase(label: "nothing ducks: the agent's own level", engineGain: 0.2, gain: 0.2,
                 says: "plays through WirePlumber's role loopback \"Multimedia\" (input.loopback.sink.role.multimedia, priority 10)"),
        GainCase(label: "a link WirePlumber cannot cork (the agent's) is silenced", engineGain: 1,
                 others: [("Communication", 28)], gain: 0, says: "corked there (gain 0)"),
        GainCase(label: "a held stream keeps its hold", engineGain: 0, linkedInto: nil, held: true,
                 others: [("Navigation", 24)], gain: 0, says: "ducked there"),
        GainCase(label: "not linked yet: the loopback of its role, from its first sample", engineGain: 1, linkedInto: nil,
                 others: [("Navigation", 24)], gain: 0.3, says: "ducked there to 0.30"),
        GainCase(label: "linked straight to the speakers: no loopback's policy", engineGain: 1, linkedInto: 1,
                 others: [("Navigation", 24)], gain: 1, says: ""),
    ]

    @Test(arguments: gainCases)
    func heardIsTheLowerOfTheAgentsLevelAndWirePlumbers(_ scenario: GainCase) {
        var graph = Self.desktop()
        Self.stream(40, role: "Music", into: scenario.linkedInto, link: 700, &graph)
        for (index, (role, loopback)) in scenario.others.enumerated() {
            Self.stream(41 + UInt32(index), role: role, into: loopback, link: 701 + UInt32(index), &graph)
        }
        let roles = RoleLoopbacks.observed(in: graph)
        let decision = StreamDecision(gain: scenario.engineGain,
                                      hold: scenario.held ? .interrupted(by: SessionKey("pid:1/x"), app: "x", resumable: true) : nil,
                                      explanation: ["from the engine"])
        let applied = RoleGains.applied(to: [40: decision], roles: roles, actions: RoleActions.now(roles, graph: graph),
                                        duckLevel: 0.3, graph: graph)[40]!
        #expect(abs(applied.gain - scenario.gain) < 1e-9, "\(applied.explanation)")
        #expect(applied.hold == decision.hold)
        #expect(applied.explanation.first == "from the engine")
        if scenario.says.isEmpty {
            #expect(applied.explanation == ["from the engine"])
        } else {
            #expect(applied.explanation.last?.contains(scenario.says) == true, "\(applied.explanation)")
        }
    }

    struct TakeoverCase: CustomTestStringConvertible, Sendable {
        var label: String
        var loopbacks = true
        var setting: String?
        var replaced: String?
        var dryRun = false
        var multimediaVolume: Float = 1
        var expected: RoleDuckTakeover.Step
        var testDescription: String { label }
    }

    static func write(_ value: String) -> MetadataWrite {
        MetadataWrite(metadata: "sm-settings", subject: 0, key: "linking.role-based.duck-level", type: "Spa:String:JSON",
                      value: value)
    }

    static let takeoverNotice = "WirePlumber role policy: its ducking is done by pw-policy (linking.role-based.duck-level "
        + "0.3 applied to the streams behind its loopbacks; the setting is 1 while pw-policy runs)"

    static let takeoverCases: [TakeoverCase] = [
        TakeoverCase(label: "no loopbacks: nothing to do", loopbacks: false, setting: "0.3",
                     expected: .init(replaced: nil, duckLevel: 0.3)),
        TakeoverCase(label: "taken over: the level remembered, the setting 1, a loopback WirePlumber ducked put back",
                     setting: "0.3", multimediaVolume: 0.3,
                     expected: .init(replaced: "0.3", duckLevel: 0.3, writes: [write("1.0")], resets: [21],
                                     notice: takeoverNotice)),
        TakeoverCase(label: "taken over already: nothing more", setting: "1.0", replaced: "0.3",
                     expected: .init(replaced: "0.3", duckLevel: 0.3)),
        TakeoverCase(label: "the user set another level meanwhile: that one, taken over",
                     setting: "0.5", replaced: "0.3",
                     expected: .init(replaced: "0.5", duckLevel: 0.5, writes: [write("1.0")],
                                     notice: takeoverNotice.replacing("0.3 applied", with: "0.5 applied"))),
        TakeoverCase(label: "the user's own 1: nothing to take over", setting: "1.0",
                     expected: .init(replaced: nil, duckLevel: 1)),
        TakeoverCase(label: "the setting not read for a moment: the level to give back remembered",
                     setting: nil, replaced: "0.3", expected: .init(replaced: "0.3", duckLevel: 0.3)),
        TakeoverCase(label: "a dry run changes nothing", setting: "0.3", dryRun: true,
                     expected: .init(replaced: nil, duckLevel: 0.3)),
        TakeoverCase(label: "loopbacks gone: the setting back", loopbacks: false, setting: "1.0", replaced: "0.3",
                     expected: .init(replaced: nil, duckLevel: 0.3, writes: [write("0.3")],
                                     notice: "WirePlumber's role loopbacks are gone: linking.role-based.duck-level back to 0.3")),
        TakeoverCase(label: "loopbacks gone with a WirePlumber restarted: its own setting stays", loopbacks: false,
                     setting: "0.3", replaced: "0.3", expected: .init(replaced: nil, duckLevel: 0.3)),
        TakeoverCase(label: "WirePlumber gone: remembered until it is back", loopbacks: false, setting: nil, replaced: "0.3",
                     expected: .init(replaced: "0.3", duckLevel: 0.3)),
    ]

    @Test(arguments: takeoverCases)
    func wirePlumbersDuckingIsTakenOverAndGivenBack(_ scenario: TakeoverCase) {
        var graph = scenario.loopbacks ? Self.desktop(duckLevel: scenario.setting, multimediaVolume: scenario.multimediaVolume)
            : Graph()
        if !scenario.loopbacks { graph.setWirePlumberSettings(duckLevel: scenario.setting) }
        let roles = RoleLoopbacks.observed(in: graph)
        #expect(roles.duckLevelSetting == scenario.setting)
        #expect(RoleDuckTakeover.step(roles: roles, replaced: scenario.replaced, dryRun: scenario.dryRun) == scenario.expected)
    }

    @Test func atExitTheSettingIsPutBackUnlessSomeoneChangedItSince() {
        #expect(RoleDuckTakeover.restore(replaced: "0.3", current: "1.0") == [Self.write("0.3")])
        #expect(RoleDuckTakeover.restore(replaced: nil, current: "1.0").isEmpty, "the user's own 1")
        #expect(RoleDuckTakeover.restore(replaced: "0.3", current: "0.5").isEmpty, "set since: the user's")
        #expect(RoleDuckTakeover.restore(replaced: "0.3", current: nil).isEmpty, "no WirePlumber to tell")
    }

    @Test func theStackLineSaysTheRolePolicyIsActive() {
        let stack = StackStatus(PipeWireStack(pipewire: "1.6.8", wirePlumber: .init(client: 30, version: "0.5.15")),
                                rolePolicy: .init(loopbacks: ["a", "b", "c", "d", "e", "f"], duckLevel: 0.3, duckingTakenOver: true))
        #expect(stack.summary.hasSuffix(" · WirePlumber role policy: active (6 role loopbacks)"))
        #expect(!StackStatus(PipeWireStack(pipewire: "1.6.8", wirePlumber: nil)).summary.contains("role policy"))
    }
}
