import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct CompletionWordsTests {
    @Test func findsTheRemoteInAnySpelling() {
        #expect(CompletionWords.remote(in: ["pw-policy", "explain", "-r", "/run/x", ""]) == "/run/x")
        #expect(CompletionWords.remote(in: ["pw-policy", "explain", "--remote", "pipewire-1"]) == "pipewire-1")
        #expect(CompletionWords.remote(in: ["pw-policy", "explain", "--remote=pipewire-2"]) == "pipewire-2")
        #expect(CompletionWords.remote(in: ["pw-policy", "explain", "-rpipewire-3"]) == "pipewire-3")
        #expect(CompletionWords.remote(in: ["pw-policy", "explain", "-r"]) == nil)
        #expect(CompletionWords.remote(in: ["pw-policy", "explain"]) == nil)
    }

    @Test func offersIdsAndNamesMatchingThePrefix() {
        let graph = Fixtures.busyGraph
        let streams = StreamCandidate.all(in: graph, snapshot: AgentSnapshot(metadata: graph.metadata(named: "pw-policy")))
        #expect(CompletionWords.streams(streams, prefix: "sp") == ["Spotify"])
        #expect(CompletionWords.streams(streams, prefix: "7") == ["70", "71"])
        #expect(CompletionWords.streams(streams, prefix: "").filter { $0 == "Zoom" }.count == 1)
        #expect(CompletionWords.apps(streams, overrides: ["org.gnome.Maps"], prefix: "") .contains("org.gnome.Maps"))
        #expect(CompletionWords.apps(streams, overrides: [], prefix: "z") == ["zoom"])
    }
}
