import Foundation
import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct ExplainRendererTests {
    let view = Fixtures.busyView

    private func candidate(_ id: UInt32) throws -> StreamCandidate {
        try #require(view.streams.first { $0.id == id })
    }

    @Test func saysWhichStepDecidedAndWhy() throws {
        let text = ExplainRenderer.text(try candidate(57), snapshot: view.snapshot)
        #expect(text.hasPrefix("57. Spotify (playback stream, running) → speakers\n"))
        #expect(text.contains("a rule in the configuration — step 3 of 6"))
        #expect(text.contains("rule #1 (pw-policy.conf:10): application.name = \"Spotify\""))
        #expect(text.contains("[gain 0.20 DUCKED by \"Maps\"]"))
        #expect(text.contains("ducked to 0.20 by \"Maps\" (rule 15: …)"))
        #expect(text.contains("application.process.binary = \"spotify\""))
        #expect(text.contains("pw-policy set 57 --category"))
        #expect(text.contains("--app spotify"))
    }

    @Test func withoutTheAgentItStillShowsTheProperties() throws {
        var graph = Fixtures.busyGraph
        graph.metadata = [:]
        let view = StatusView(remote: "r", graph: graph, graphOutputs: [])
        let stream = try #require(view.streams.first { $0.id == 57 })
        let text = ExplainRenderer.text(stream, snapshot: view.snapshot)
        #expect(text.contains("the agent is not running"))
        #expect(text.contains("application.name = \"Spotify\""))
    }

    @Test func jsonCarriesStatusAndProps() throws {
        let json = ExplainRenderer.json(try candidate(63))
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects[0]["id"] as? Int == 63)
        let info = try #require(objects[0]["info"] as? [String: Any])
        #expect((info["hold"] as? [String: Any])?["byApp"] as? String == "Zoom")
        #expect((info["props"] as? [String: String])?["application.process.binary"] == "firefox")
        #expect(info["effect"] as? String == "HELD: interrupted by \"Zoom\", resumes")
    }

    @Test(arguments: ["override", "audio-session", "stream-properties", "rule", "app", "inference", "default"])
    func everySourceHasWords(source: String) {
        #expect(ExplainRenderer.sourceDescription(source).contains("of 6"))
    }

    @Test func shellWordsAreQuotedWhenNeeded() {
        #expect(ExplainRenderer.shellWord("org.gnome.Maps") == "org.gnome.Maps")
        #expect(ExplainRenderer.shellWord("My App") == "'My App'")
        #expect(ExplainRenderer.shellWord("it's") == "'it'\\''s'")
    }
}
