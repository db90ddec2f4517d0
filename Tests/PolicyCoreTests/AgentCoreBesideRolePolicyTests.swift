import Foundation
import Testing
@testable import PolicyCore
import PolicyTestSupport

/// The control loop beside WirePlumber 0.5's role loopbacks (docs/POLICY.md,
/// "Beside WirePlumber's role policy"), on the in-memory daemon: the
/// loopbacks are paths, WirePlumber's ducking is taken over with its setting
/// journaled first and given back at exit, and a stream WirePlumber had
/// corked is linked back into its loopback, never around it.
@Suite struct AgentCoreBesideRolePolicyTests {
    /// The in-memory daemon with WirePlumber's example loopbacks (inputs 20,
    /// 22…30, playing sides 21…31, all playing to the speakers).
    static func daemon() throws -> InMemoryDaemon {
        var daemon = try InMemoryDaemon()
        daemon.stack = PipeWireStack(pipewire: "1.6.8", wirePlumber: .init(client: 98, version: "0.5.15"))
        var next: UInt32 = 600
        for (index, role) in [("multimedia", ["Music", "Movie", "Game", "Multimedia"], 10, "mix"),
                              ("notification", ["Notification"], 20, "mix"),
                              ("navigation", ["Navigation", "GPS"], 30, "duck"),
                              ("assistant", ["Assistant"], 40, "cork"),
                              ("communication", ["Communication", "Phone"], 50, "cork"),
                              ("alert", ["Alert", "Emergency"], 100, "cork")].enumerated() {
            daemon.graph.addRoleLoopback(input: 20 + 2 * UInt32(index), output: 21 + 2 * UInt32(index), role: role.0,
                                         description: role.0.capitalized, intendedRoles: role.1, priority: role.2,
                                         lowerPriority: role.3, playsTo: 1, nextLinkID: &next)
        }
        daemon.graph.setWirePlumberSettings(defaultRole: "Multimedia", duckLevel: "0.3")
        return daemon
    }

    static func duckLevel(_ daemon: InMemoryDaemon) -> String? {
        daemon.graph.metadata(named: "sm-settings")?.value(subject: 0, key: "linking.role-based.duck-level")
    }

    /// A playback stream of `role`, linked into loopback input `loopback` as
    /// WirePlumber links it.
    static func play(_ id: UInt32, role: String, into loopback: UInt32, _ daemon: inout InMemoryDaemon) {
        daemon.graph.addStream(id, props: ["media.role": role, "application.name": "app\(id)"])
        daemon.graph.addLink(id + 100, from: id, to: loopback)
    }

    @Test func wirePlumbersDuckLevelIsJournaledThenTakenOverAndGivenBackAtExit() throws {
        var daemon = try Self.daemon()
        let effects = daemon.connect()
        let save = try #require(effects.firstIndex { if case .saveJournal(let journal, _) = $0 { journal.wirePlumberDuckLevel == "0.3" } else { false } })
        let write = try #require(effects.firstIndex {
            if case .setMetadata(let write) = $0 { write.metadata == "sm-settings" && write.value == "1.0" } else { false }
        })
        #expect(save < write, "the level WirePlumber had is journaled before it changes")
        #expect(Self.duckLevel(daemon) == "1.0")
        #expect(daemon.logs.contains { $0.level == .notice && $0.text.hasPrefix("WirePlumber role policy: its ducking is done by pw-policy") })
        let agent = try #require(daemon.agentEntry(AgentProtocol.agentKey).flatMap {
            try? JSONDecoder().decode(AgentStatus.self, from: Data($0.utf8))
        })
        // In the loopbacks' order, by input id.
        let names = ["multimedia", "notification", "navigation", "assistant", "communication", "alert"]
            .map { "input.loopback.sink.role.\($0)" }
        #expect(agent.stack?.rolePolicy == StackStatus.RolePolicy(loopbacks: names, duckLevel: 0.3, duckingTakenOver: true))
        #expect(agent.stack?.summary.hasSuffix("WirePlumber role policy: active (6 role loopbacks)") == true)

        let restore = daemon.restoreAll()
        let back = try #require(restore.firstIndex {
            if case .setMetadata(let write) = $0 { write.metadata == "sm-settings" && write.value == "0.3" } else { false }
        })
        let flush = try #require(restore.firstIndex { $0 == .flush })
        #expect(back < flush)
        #expect(Self.duckLevel(daemon) == "0.3")
        #expect(daemon.saved.last?.journal.wirePlumberDuckLevel == nil)
    }

    @Test func theLoopbacksArePathsAndTheStreamsBehindThemAreDecidedFor() throws {
        var daemon = try Self.daemon()
        daemon.connect()
        Self.play(10, role: "Music", into: 20, &daemon)
        daemon.settle()
        for id: UInt32 in 20...31 { #expect(daemon.status(id) == nil, "loopback node \(id) is no stream of an app") }
        let music = try #require(daemon.status(10))
        #expect(music.output == "speakers" && music.via == "Multimedia" && music.gain == 1)

        // A navigation prompt: the agent's 0.2, below WirePlumber's 0.3 it applies in its place.
        Self.play(11, role: "Navigation", into: 24, &daemon)
        daemon.now += 1
        daemon.settle()
        #expect(daemon.graph.nodes[10]?.volume == 0.2)
        #expect(daemon.gain(21) == 1, "the loopback itself is not ducked")
        #expect(daemon.status(10)?.explanation.contains { $0.contains("ducked there to 0.30 while \"Navigation\"") } == true)
    }

    /// An alert WirePlumber puts above everything corks the music's
    /// loopback; the agent's own matrix lets a new player start at full gain
    /// (the newer wins), but WirePlumber's level for it is 0: the start gate
    /// is armed for it, so its first samples wait for that gain.
    @Test func theStartGateIsArmedWhileWirePlumbersRolePolicyLowersALoopback() throws {
        var daemon = try Self.daemon()
        daemon.connect()
        daemon.settle()
        #expect(!daemon.gate.armed, "nothing plays")
        Self.play(13, role: "Alert", into: 30, &daemon)
        daemon.now += 1
        daemon.settle()
        #expect(daemon.gate.armed, "the alert corks every lower role")
        daemon.stop(13)
        daemon.now += 1
        daemon.settle()
        #expect(!daemon.gate.armed)
    }

    @Test func aStreamWirePlumberCorkedIsLinkedBackIntoItsLoopbackNotAroundIt() throws {
        var daemon = try Self.daemon()
        daemon.connect()
        Self.play(10, role: "Music", into: 20, &daemon)
        daemon.settle()
        // A call: WirePlumber corks the music's role link before the agent sees the call.
        daemon.graph.links[110] = nil
        Self.play(12, role: "Communication", into: 28, &daemon)
        daemon.now += 1
        daemon.settle()
        #expect(daemon.status(10)?.hold?.kind == "interrupted")
        #expect(daemon.core.journal.applied[10]?.heldFrom == nil, "it had no link to remember")
        daemon.stop(12)
        daemon.now += 1
        daemon.settle()
        #expect(daemon.status(10)?.hold == nil)
        let targets = daemon.graph.links.values.filter { $0.outputNode == 10 }.map(\.inputNode)
        #expect(targets == [20], "linked into its loopback only, not to the default sink: \(targets)")
        #expect(daemon.gain(10) == 1)
    }
}
