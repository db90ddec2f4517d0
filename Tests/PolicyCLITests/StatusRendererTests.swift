import Foundation
import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct StatusRendererTests {
    let text = StatusRenderer.text(Fixtures.busyView)

    private func line(containing needle: String) -> String? {
        text.split(separator: "\n").map(String.init).first { $0.contains(needle) }
    }

    @Test func agentSectionShowsHealthConfigAndSilentMode() {
        #expect(text.hasPrefix("Agent\n"))
        #expect(line(containing: "State:")?.contains("running (pid 4242, version 0.1.0)") == true)
        #expect(text.contains("/usr/share/pw-policy/pw-policy.conf"))
        #expect(text.contains("/home/u/.config/pw-policy/pw-policy.conf.d/10-mine.conf"))
        #expect(line(containing: "Silent mode:")?.hasSuffix("off") == true)
    }

    /// A row's further lines, under its first after the label ("Silent mode" is the widest).
    static let continuation = String(repeating: " ", count: "Silent mode: ".count)

    /// Presenting (docs/POLICY.md): each screen cast shared and what it does
    /// to alerts, in the text and the JSON; an older agent's status has no row.
    @Test(arguments: [
        (PresentingStatus?.none, [String]()),
        (PresentingStatus(screenCasts: [], silencesAlerts: true), ["Presenting:  no"]),
        (PresentingStatus(screenCasts: [ScreenCast(node: 42, implementation: "GNOME Shell", consumers: [57, 61])],
                          silencesAlerts: true),
         ["Presenting:  yes: GNOME Shell screen cast, node 42, to node 57, node 61",
          StatusRendererTests.continuation + "alerts silenced (presenting.silence-alerts)"]),
        (PresentingStatus(screenCasts: [ScreenCast(node: 42, implementation: "KWin", consumers: [57])], silencesAlerts: false),
         ["Presenting:  yes: KWin screen cast, node 42, to node 57",
          StatusRendererTests.continuation + "alerts play (presenting.silence-alerts = false)"]),
    ])
    func agentSectionSaysWhetherTheScreenIsShared(presenting: PresentingStatus?, expected: [String]) throws {
        var graph = Fixtures.busyGraph
        let id = try #require(graph.metadata(named: AgentProtocol.metadataName)?.id)
        var agent = Fixtures.agent
        agent.presenting = presenting
        graph.metadata[id]?.entries[0]?[AgentProtocol.agentKey]?.value = Fixtures.json(agent)
        let view = StatusView(remote: "pipewire-0", graph: graph, graphOutputs: [])
        // Without the tree's branches: the row's place among the others may change.
        let lines = StatusRenderer.text(view).split(separator: "\n").map { String($0.dropFirst(4)) }
        var shown: [String] = []
        if let row = lines.firstIndex(where: { $0.hasPrefix("Presenting:") }) {
            shown = [lines[row]] + lines[(row + 1)...].prefix { $0.hasPrefix(Self.continuation) }
        }
        #expect(shown == expected)
        let json = StatusRenderer.json(view)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let info = try #require(objects.first?["info"] as? [String: Any])
        let published = info["presenting"] as? [String: Any]
        #expect((published == nil) == (presenting == nil))
        #expect((published?["screenCasts"] as? [[String: Any]])?.first?["node"] as? Int == presenting?.screenCasts.first.map { Int($0.node) })
        #expect(published?["silencesAlerts"] as? Bool == presenting?.silencesAlerts)
    }

    @Test func agentSectionShowsTheStackAfterTheRemote() throws {
        let lines = text.split(separator: "\n").map(String.init)
        let stack = try #require(lines.firstIndex { $0.contains("Stack:") })
        #expect(lines[stack] == " ├─ Stack:       PipeWire 0.3.65 · WirePlumber 0.4.13 · fades: stepped (no native volume ramps before PipeWire 0.3.68)")
        #expect(lines[stack - 1].contains("PipeWire:    'pipewire-0'"))
    }

    /// Beside WirePlumber's role policy (docs/POLICY.md, "Beside WirePlumber's
    /// role policy"): the stack row says it is active, and a stream behind a
    /// loopback plays to the loopback's sink via the loopback.
    @Test func theRolePolicyIsOnTheStackRowAndAStreamPlaysViaItsLoopback() throws {
        var graph = Fixtures.busyGraph
        let id = try #require(graph.metadata(named: AgentProtocol.metadataName)?.id)
        var agent = Fixtures.agent
        agent.stack?.rolePolicy = .init(loopbacks: ["input.loopback.sink.role.multimedia", "input.loopback.sink.role.navigation"],
                                        duckLevel: 0.3, duckingTakenOver: true)
        var spotify = Fixtures.stream(57, app: "Spotify")
        spotify.via = "Multimedia"
        graph.metadata[id]?.entries[0]?[AgentProtocol.agentKey]?.value = Fixtures.json(agent)
        graph.metadata[id]?.entries[57]?[AgentProtocol.streamKey]?.value = Fixtures.json(spotify)
        let text = StatusRenderer.text(StatusView(remote: "pipewire-0", graph: graph, graphOutputs: []))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("Stack:") && $0.hasSuffix(" · WirePlumber role policy: active (2 role loopbacks)") },
                "\(text)")
        #expect(lines.contains { $0.contains("57. Spotify") && $0.contains("→ speakers via Multimedia") }, "\(text)")
    }

    /// Where the media keys go, and what the last key did (docs/CLI.md, "status").
    @Test func agentSectionSaysWhereTheMediaKeysGo() throws {
        var graph = Fixtures.busyGraph
        let id = try #require(graph.metadata(named: AgentProtocol.metadataName)?.id)
        var agent = Fixtures.agent
        agent.mediaKeys = MediaKeysStatus(target: "org.mpris.MediaPlayer2.mpv", reason: "paused-by-pw-policy",
                                          text: #"org.mpris.MediaPlayer2.mpv ("mpv"): paused by pw-policy"#,
                                          lastKey: "PlayPause to org.mpris.MediaPlayer2.mpv: nothing: a call holds the music")
        graph.metadata[id]?.entries[0]?[AgentProtocol.agentKey]?.value = Fixtures.json(agent)
        let view = StatusView(remote: "pipewire-0", graph: graph, graphOutputs: [], graphStack: nil)
        let lines = StatusRenderer.text(view).split(separator: "\n").map(String.init)
        let row = try #require(lines.firstIndex { $0.contains("Media keys:") })
        #expect(lines[row].hasSuffix(#"Media keys:  → org.mpris.MediaPlayer2.mpv ("mpv"): paused by pw-policy"#), "\(lines[row])")
        #expect(lines[row + 1].hasSuffix("last key: PlayPause to org.mpris.MediaPlayer2.mpv: nothing: a call holds the music"))
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(StatusRenderer.json(view).utf8)) as? [[String: Any]])
        let info = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        let keys = try #require(info["mediaKeys"] as? [String: Any])
        #expect(keys["target"] as? String == "org.mpris.MediaPlayer2.mpv")
        #expect(keys["reason"] as? String == "paused-by-pw-policy")
    }

    /// The agent's published stack wins over what the CLI found; without
    /// the agent (or from an agent older than `stack`) the CLI's is shown.
    @Test(arguments: [(true, true), (true, false), (false, false)])
    func stackComesFromTheAgentElseTheGraph(agentRuns: Bool, agentPublishesStack: Bool) throws {
        var graph = Fixtures.busyGraph
        let id = try #require(graph.metadata(named: AgentProtocol.metadataName)?.id)
        if agentRuns {
            var agent = Fixtures.agent
            if !agentPublishesStack { agent.stack = nil }
            graph.metadata[id]?.entries[0]?[AgentProtocol.agentKey]?.value = Fixtures.json(agent)
        } else {
            graph.metadata = [:]
        }
        let cliStack = StackStatus(pipewire: .init(version: "1.4.2"),
                                   wireplumber: .init(client: 32, pid: nil, version: "0.5.8", versionSource: "application.version"),
                                   capabilities: StackCapabilities(nativeVolumeRamps: true))
        let view = StatusView(remote: "pipewire-0", graph: graph, graphOutputs: [], graphStack: cliStack)
        let expected = agentPublishesStack ? Fixtures.stack : cliStack
        #expect(view.stack == expected)
        #expect(StatusRenderer.text(view).contains("Stack:") && StatusRenderer.text(view).contains(expected.summary))
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(StatusRenderer.json(view).utf8)) as? [[String: Any]])
        let info = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        let stack = try #require(info["stack"])
        #expect(try JSONDecoder().decode(StackStatus.self, from: JSONSerialization.data(withJSONObject: stack)) == expected)
    }

    @Test func stackJSONShape() throws {
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(StatusRenderer.json(Fixtures.busyView).utf8)) as? [[String: Any]])
        let info = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        let stack = try #require(info["stack"] as? [String: Any])
        #expect((stack["pipewire"] as? [String: Any])?["version"] as? String == "0.3.65")
        let wirePlumber = try #require(stack["wireplumber"] as? [String: Any])
        #expect(wirePlumber["version"] as? String == "0.4.13" && wirePlumber["versionSource"] as? String == "linked-library")
        #expect(wirePlumber["client"] as? Int == 26 && wirePlumber["pid"] as? Int == 1931)
        #expect((stack["capabilities"] as? [String: Any])?["nativeVolumeRamps"] as? Bool == false)
    }

    @Test func missingWirePlumberStandsOut() {
        var view = Fixtures.busyView
        view.stack = StackStatus(pipewire: .init(version: "1.4.2"), wireplumber: nil,
                                 capabilities: StackCapabilities(nativeVolumeRamps: true))
        let colored = StatusRenderer.text(view, style: TextStyle(isColored: true))
        #expect(colored.contains("PipeWire 1.4.2 · \u{1B}[31mWirePlumber not running\u{1B}[0m · fades: native ramps (steps for clients older than PipeWire 0.3.68)"))
        #expect(StatusRenderer.text(view).contains("Stack:       PipeWire 1.4.2 · WirePlumber not running · fades: native ramps (steps for clients older than PipeWire 0.3.68)"))
    }

    @Test func outputsMarkTheDefaultAndPrivateOnes() {
        #expect(line(containing: "31. Speakers")?.hasPrefix("  * ") == true)
        #expect(line(containing: "36. Headphones")?.hasPrefix("    ") == true)
        #expect(line(containing: "36. Headphones")?.contains("private") == true)
    }

    @Test func streamsShowTheirEffect() {
        #expect(line(containing: "57. Spotify")?.hasSuffix("[gain 0.20 DUCKED by \"Maps\"]") == true)
        #expect(line(containing: "63. Firefox")?.hasSuffix("[HELD: interrupted by \"Zoom\", resumes]") == true)
        #expect(line(containing: "80. Game")?.hasSuffix("[SILENCED]") == true)
        #expect(line(containing: "60. Maps")?.contains("duck-others") == true)
        #expect(line(containing: "60. Maps")?.contains("[") == false)
    }

    @Test func sessionsAreGroupedByCategoryInCategoryOrder() throws {
        let lines = text.split(separator: "\n").map(String.init)
        func index(_ needle: String) throws -> Int { try #require(lines.firstIndex { $0.contains(needle) }, "no line with \(needle)") }
        let playback = try index("─ playback:"), soloAmbient = try index("─ solo-ambient:"), call = try index("─ play-and-record:")
        // Category.allCases order: solo-ambient, playback, …, play-and-record.
        #expect(soloAmbient < playback && playback < call)
        #expect(try index("57. Spotify") > playback && index("57. Spotify") < call)
        // Both streams of the call session sit under play-and-record, together.
        #expect(try index("71. Zoom") == index("70. Zoom") + 1)
        #expect(try index("70. Zoom") > call)
        #expect(lines.last { $0.contains("─ ") }?.contains("└─") == true)
    }

    @Test func appOverridesAreShownInTextAndJSON() throws {
        var graph = Fixtures.busyGraph
        let request = AppOverrideRequest(category: "playback", options: ["duck-others"], mode: "spoken-audio", persist: true)
        let id = try #require(graph.metadata(named: AgentProtocol.metadataName)?.id)
        graph.metadata[id]?.entries[0]?[AgentProtocol.appOverrideKey("org.gnome.Maps")] =
            Graph.MetadataEntry(subject: 0, key: AgentProtocol.appOverrideKey("org.gnome.Maps"), type: AgentProtocol.jsonType,
                                value: Fixtures.json(request))
        let view = StatusView(remote: "pipewire-0", graph: graph, graphOutputs: [])
        #expect(StatusRenderer.text(view).contains("App overrides: org.gnome.Maps: playback [duck-others] mode spoken-audio (persistent)"))
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(StatusRenderer.json(view).utf8)) as? [[String: Any]])
        let info = try #require(objects.first { $0["type"] as? String == "PwPolicy:AppOverride" }?["info"] as? [String: Any])
        #expect(info["appKey"] as? String == "org.gnome.Maps" && info["persist"] as? Bool == true)
    }

    @Test func aCardsOutputShowsItsPort() {
        var graph = Fixtures.busyGraph
        graph.metadata = [:]
        let card = OutputStatus(id: 48, name: "alsa_output.analog-stereo", description: "Built-in Audio", isPrivate: true,
                                isAvailable: true, isDefault: false, port: "Headphones")
        let text = StatusRenderer.text(StatusView(remote: "pipewire-0", graph: graph, graphOutputs: [card]))
        #expect(text.contains("48. Built-in Audio  [port: Headphones, private, alsa_output.analog-stereo]"), "\(text)")
    }

    @Test func warningsAreListed() {
        #expect(text.contains("Warnings\n"))
        #expect(line(containing: "80. Game: policy.options") != nil)
    }

    @Test func withoutTheAgentStreamsAreStillListed() {
        var graph = Fixtures.busyGraph
        graph.metadata = [:]
        let view = StatusView(remote: "pipewire-0", graph: graph, graphOutputs: [Fixtures.outputs[0]])
        let text = StatusRenderer.text(view)
        #expect(text.contains("not running; start it with 'pw-policy run'"))
        #expect(text.contains("57. Spotify"))
        #expect(text.contains("* ") && text.contains("31. Speakers"))
        #expect(!text.contains("DUCKED"))
    }

    @Test func jsonIsAnArrayOfIdTypeInfoObjects() throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(StatusRenderer.json(Fixtures.busyView).utf8))
        let objects = try #require(parsed as? [[String: Any]])
        #expect(objects.allSatisfy { $0["id"] is Int && $0["type"] is String && $0["info"] is [String: Any] })
        let agent = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        #expect(agent["running"] as? Bool == true)
        #expect(agent["pid"] as? Int == 4242)
        let outputs = objects.filter { $0["type"] as? String == "PwPolicy:Output" }
        #expect(outputs.compactMap { $0["id"] as? Int } == [31, 36])
        let spotify = try #require(objects.first { $0["id"] as? Int == 57 }?["info"] as? [String: Any])
        #expect(spotify["effect"] as? String == "gain 0.20 DUCKED by \"Maps\"")
        #expect(spotify["category"] as? String == "playback")
        #expect(spotify["gain"] as? Double == 0.2)
        // info is the published StreamStatus: it decodes as one.
        let data = try JSONSerialization.data(withJSONObject: spotify)
        #expect(try JSONDecoder().decode(StreamStatus.self, from: data).duckedBy.first?.app == "Maps")
    }

    @Test func jsonWithoutTheAgentSaysSo() throws {
        var graph = Fixtures.busyGraph
        graph.metadata = [:]
        let json = StatusRenderer.json(StatusView(remote: "r", graph: graph, graphOutputs: []))
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let agent = try #require(objects.first?["info"] as? [String: Any])
        #expect(agent["running"] as? Bool == false)
        let stream = try #require(objects.first { $0["id"] as? Int == 57 }?["info"] as? [String: Any])
        #expect(stream["app"] as? String == "Spotify")
        #expect(stream["category"] == nil)
    }
}

@Suite struct JSONLayoutTests {
    @Test func laysOutLikePwDump() {
        #expect(JSONLayout.pretty("{\"a\":[],\"b\":{},\"c\":[1,2]}") == "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    2\n  ]\n}")
    }

    @Test func leavesStringsAlone() throws {
        let compact = "{\"k\":\"a, b: {c} [d] \\\"e\\\" \\\\\"}"
        let pretty = JSONLayout.pretty(compact)
        let parsed = try JSONSerialization.jsonObject(with: Data(pretty.utf8)) as? [String: String]
        #expect(parsed?["k"] == "a, b: {c} [d] \"e\" \\")
    }
}
