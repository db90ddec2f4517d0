import Testing
@testable import PolicyCore
import PolicyTestSupport

/// Which streams an audio session governs (docs/API.md, "Which streams a
/// session governs"): a caller's declaration reaches its own streams only.
@Suite struct AudioSessionClaimsTests {
    /// Callers: ":1.1" (pid 100, two sessions: 1 and 2), ":1.2" (pid 200,
    /// session 3), ":1.3" in Flatpak org.example.Game (session 4). The
    /// process tree: 101 and 102 are children of 100, 103 a child of 101;
    /// 201 a child of 200 and grandchild of 100's sibling 50; 300 is nobody's.
    static func table() -> AudioSessionTable {
        var table = AudioSessionTable()
        for (caller, token) in [(":1.1", "one"), (":1.1", "two"), (":1.2", "three"), (":1.3", "four")] {
            _ = table.handle(.create(category: "playback", options: [], mode: ""), from: caller, token: token, now: 0)
        }
        table.identified(":1.1", pid: 100, flatpakAppID: nil)
        table.identified(":1.2", pid: 200, flatpakAppID: nil)
        table.identified(":1.3", pid: 7000, flatpakAppID: "org.example.Game")
        return table
    }
    static let ancestry: [Int32: Int32] = [101: 100, 102: 100, 103: 101, 100: 50, 201: 200, 200: 50, 50: 1]

    struct ClaimCase: CustomTestStringConvertible, Sendable {
        var name: String
        var props: [String: String]
        var session: UInt32?
        var testDescription: String { name }
    }

    static let cases: [ClaimCase] = [
        ClaimCase(name: "the caller's own process", props: ["application.process.id": "100"], session: 1),
        ClaimCase(name: "its child: the oldest session", props: ["application.process.id": "101"], session: 1),
        ClaimCase(name: "its grandchild", props: ["application.process.id": "103"], session: 1),
        ClaimCase(name: "a token picks the second session", props: ["application.process.id": "102", "policy.session": "two"], session: 2),
        ClaimCase(name: "another caller's child", props: ["application.process.id": "201"], session: 3),
        ClaimCase(name: "nobody's process", props: ["application.process.id": "300"], session: nil),
        ClaimCase(name: "the common ancestor's other child is not the caller's", props: ["application.process.id": "50"], session: nil),
        ClaimCase(name: "no pid", props: [:], session: nil),
        ClaimCase(name: "a token from another process tree", props: ["application.process.id": "300", "policy.session": "three"], session: 3),
        ClaimCase(name: "a token nobody holds", props: ["application.process.id": "300", "policy.session": "guess"], session: nil),
        ClaimCase(name: "a Flatpak app's stream: its app's caller",
                  props: ["application.process.id": "2", "pipewire.access.portal.app_id": "org.example.Game"], session: 4),
        ClaimCase(name: "a Flatpak stream is never taken for a host pid",
                  props: ["application.process.id": "101", "pipewire.access.portal.app_id": "org.other.App"], session: nil),
    ]

    @Test(arguments: cases)
    func streamsAreClaimedByTheirOwnCallersOnly(_ test: ClaimCase) {
        var graph = Graph()
        graph.addStream(10, props: test.props)
        let claims = AudioSessionClaims.claim(Self.table(), graph: graph, ancestry: Self.ancestry)
        print("audio session claim, \(test.name): \(claims[10].map { "session \($0)" } ?? "none")")
        #expect(claims[10] == test.session)
    }

    @Test func theNearestOwnerWins() {
        // The launcher (pid 100) declared; the app it started (pid 101) declares for itself.
        var table = Self.table()
        _ = table.handle(.create(category: "ambient", options: [], mode: ""), from: ":1.9", token: "nine", now: 0)
        table.identified(":1.9", pid: 101, flatpakAppID: nil)
        var graph = Graph()
        graph.addStream(10, props: ["application.process.id": "103"])
        graph.addStream(11, props: ["application.process.id": "102"])
        let claims = AudioSessionClaims.claim(table, graph: graph, ancestry: Self.ancestry)
        #expect(claims[10] == 5 && claims[11] == 1, "\(claims)")
        #expect(AudioSessionClaims.streamProcessIDs(in: graph) == [102, 103])
    }

    @Test func aCallerNotYetIdentifiedClaimsByTokenOnly() {
        var table = AudioSessionTable()
        _ = table.handle(.create(category: "ambient", options: [], mode: ""), from: ":1.5", token: "five", now: 0)
        var graph = Graph()
        graph.addStream(10, props: ["application.process.id": "100"])
        graph.addStream(11, props: ["application.process.id": "100", "policy.session": "five"])
        #expect(AudioSessionClaims.claim(table, graph: graph, ancestry: [:]) == [11: 1])
    }
}
