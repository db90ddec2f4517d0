import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct StreamResolverTests {
    let graph = Fixtures.busyGraph
    var streams: [StreamCandidate] { StreamCandidate.all(in: graph, snapshot: AgentSnapshot(metadata: graph.metadata(named: "pw-policy"))) }

    private func failure(_ query: String) -> CLIFailure? {
        do {
            _ = try StreamResolver.resolve(query, among: streams, graph: graph)
            return nil
        } catch {
            return error
        }
    }

    @Test func byIdAndByNamesCaseInsensitively() throws {
        #expect(try StreamResolver.resolve("57", among: streams, graph: graph).app == "Spotify")
        #expect(try StreamResolver.resolve("spotify", among: streams, graph: graph).id == 57)
        #expect(try StreamResolver.resolve("SPOTIFY", among: streams, graph: graph).id == 57)
        #expect(try StreamResolver.resolve(" Turn left ", among: streams, graph: graph).id == 60)  // media.name
        #expect(try StreamResolver.resolve("firefox-node", among: streams, graph: graph).id == 63)  // node.name
    }

    @Test func ambiguousNamesListTheStreams() throws {
        let error = try #require(failure("zoom"))
        #expect(error.kind == .notFound)
        #expect(error.message == "'zoom' matches 2 streams: 70 (Zoom, capture, running), 71 (Zoom, playback, running); give the id")
    }

    @Test func typosGetASuggestion() throws {
        let error = try #require(failure("spotifi"))
        #expect(error.kind == .notFound)
        #expect(error.message == "no stream matches 'spotifi'; did you mean 'Spotify' (id 57)?")
    }

    @Test func unrelatedNamesPointToStatus() throws {
        #expect(try #require(failure("qwertyuiop")).message == "no stream matches 'qwertyuiop' (see 'pw-policy status' for the streams)")
        let none = try? StreamResolver.resolve("x", among: [], graph: Graph())
        #expect(none == nil)
    }

    @Test func idsOfOtherNodesSayWhatTheyAre() throws {
        #expect(try #require(failure("31")).message == "node 31 is not an audio stream (it is Audio/Sink 'speakers')")
        #expect(try #require(failure("999")).message.hasPrefix("no stream with id 999"))
        #expect(try #require(failure("  ")).kind == .usage)
    }

    @Test func appKeysComeFromRunningStreamsThenOverridesThenAsGiven() throws {
        let zoom = try StreamResolver.appKey(for: "Zoom", among: streams, existingOverrides: [])
        #expect(zoom.key == "zoom" && zoom.streams.map(\.id) == [70, 71])
        let existing = try StreamResolver.appKey(for: "ORG.Example", among: streams, existingOverrides: ["org.example"])
        #expect(existing.key == "org.example" && existing.streams.isEmpty)
        let fresh = try StreamResolver.appKey(for: "vlc", among: streams, existingOverrides: [])
        #expect(fresh.key == "vlc")
    }
}
