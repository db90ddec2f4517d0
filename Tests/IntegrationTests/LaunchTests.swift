import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

/// `pw-policy launch` declares the streams of apps that cannot call the
/// audio-session API (docs/API.md, "pw-policy launch"): a native client
/// (pw-play) and a PulseAudio one (paplay through pipewire-pulse) started
/// under it are classified as declared, by their session, and the
/// session ends with them.
@Suite(.serialized) struct LaunchTests {
    @Test func launchDeclaresNativeAndPulseClients() throws {
        try RealClient.require("paplay", package: "pulseaudio-utils")
        let scene = try AgentScene(pulse: true, toneSeconds: 30)
        let tone = scene.tone
        let game = try ChildProcess([CLI.binary, "launch", "--category", "ambient", "--", "pw-play", tone],
                                    environment: scene.sandbox.environment, stderr: scene.sandbox.path("launch-game.err"))
        defer { game.stop() }
        let reader = try ChildProcess([CLI.binary, "launch", "--category", "playback", "--option", "duck-others",
                                       "--option", "mix-with-others", "--mode", "spoken-audio", "--", "paplay", tone],
                                      environment: scene.sandbox.environment, stderr: scene.sandbox.path("launch-reader.err"))
        defer { reader.stop() }
        /// pw-play's stream is a native client's; paplay's comes through pipewire-pulse.
        func node(_ client: String) -> Graph.Node? {
            let graph = scene.client.graph
            return graph.streams.first { node in
                let name = node.clientID.flatMap { graph.clients[$0]?.props["application.name"] } ?? ""
                return client == "paplay" ? name == "paplay" : name.hasPrefix("pw-")
            }
        }
        func status(_ client: String) -> StreamStatus? { node(client).flatMap { scene.polledStatus(id: $0.id) } }
        let declared = scene.client.wait(timeout: 10) { _ in
            status("pw-play")?.source == "audio-session" && status("paplay")?.source == "audio-session"
        }
        let native = status("pw-play"), pulse = status("paplay")
        print("launch: pw-play → \(native.map { "\($0.category) \($0.options) (\($0.source)): \($0.reason)" } ?? "no status")")
        print("launch: paplay → \(pulse.map { "\($0.category) \($0.options) \($0.mode) (\($0.source)): \($0.reason)" } ?? "no status")")
        let errors = (try? String(contentsOfFile: scene.sandbox.path("launch-game.err"), encoding: .utf8)) ?? ""
        #expect(declared, "\(String(describing: native)); \(String(describing: pulse)); \(errors)")
        #expect(native?.category == "ambient" && native?.options == [])
        #expect(pulse?.category == "playback" && pulse?.options == ["mix-with-others", "duck-others"] && pulse?.mode == "spoken-audio")
        // The reader ducks the game (a duck-others session beside an ambient one).
        #expect(scene.client.wait(timeout: 5) { _ in status("pw-play")?.gain == 0.2 }, "\(String(describing: status("pw-play")))")
        // Both declarations are also the streams' own properties (and the
        // token). The mirror may know a node from its global before its
        // info, which carries them.
        func declaredByProperties(_ node: Graph.Node) -> Bool {
            node.props["policy.category"] != nil && node.props[AudioSessionAPI.streamTokenKey]?.count == 32
        }
        _ = scene.client.wait(timeout: 5) { _ in ["pw-play", "paplay"].compactMap(node).allSatisfy(declaredByProperties) }
        let nodes = ["pw-play", "paplay"].compactMap(node)
        #expect(nodes.count == 2)
        for node in nodes {
            #expect(declaredByProperties(node), "\(node.props.filter { $0.key.hasPrefix("policy.") })")
        }
        let sessions = scene.agentStatus()?.audioSessions?.sessions ?? []
        print("launch: sessions \(sessions.map { "\($0.path) pid \($0.pid.map(String.init) ?? "?"): \($0.declared) → \($0.streams)" })")
        #expect(Set(sessions.compactMap(\.pid)) == [game.pid, reader.pid], "the launchers own the sessions")

        // The command ends (SIGTERM passed on to it): its session ends.
        game.stop(signal: SIGTERM)
        #expect(game.exitStatus != nil)
        #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.audioSessions?.sessions.count == 1 })
        // pw-policy launch exits with its command's status: 128 + the signal that ended it.
        let sleeper = try ChildProcess([CLI.binary, "launch", "--category", "ambient", "--", "sleep", "30"],
                                       environment: scene.sandbox.environment)
        #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.audioSessions?.sessions.count == 2 })
        sleeper.stop(signal: SIGTERM)
        #expect(sleeper.exitStatus == 128 + SIGTERM, "SIGTERM passed on to sleep: \(String(describing: sleeper.exitStatus))")
        let failing = try scene.sandbox.run([CLI.binary, "launch", "--category", "ambient", "--", "sh", "-c", "exit 3"])
        #expect(failing.status == 3, "\(failing.stderr)")
        let missing = try scene.sandbox.run([CLI.binary, "launch", "--category", "ambient", "--", "/nonexistent/game"])
        #expect(missing.status == 127 && missing.stderr.contains("cannot run /nonexistent/game"), "\(missing.stderr)")
        let bad = try scene.sandbox.run([CLI.binary, "launch", "--category", "musik", "--", "true"])
        #expect(bad.status == 64 && bad.stderr.contains("'musik' is not a category"), "\(bad.stderr)")
    }

    /// Without an agent (no service on the bus) the command still runs,
    /// its streams carrying the declaration as their own properties.
    @Test func withoutAnAgentTheStreamsCarryTheDeclaration() throws {
        let scene = try AgentScene()
        scene.stopAgent()
        let result = try scene.sandbox.run([CLI.binary, "launch", "--category", "ambient", "--option", "mix-with-others", "--",
                                            "sh", "-c", "echo \"$PIPEWIRE_PROPS|$PULSE_PROP\""])
        print("launch without an agent: \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) / \(result.stderr)")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("{ policy.category=ambient policy.options=[ mix-with-others ] policy.mode=default }|"
            + "policy.category=ambient policy.options=mix-with-others policy.mode=default"), "\(result.stdout)")
        #expect(result.stderr.contains("no audio session"), "\(result.stderr)")
    }
}
