import Foundation
import PolicyCore
import Testing

/// The agent and the media players on the sandbox's private session bus:
/// which player controls a stream, shown by `status` and `explain`
/// (docs/PLAYERS.md).
@Suite(.serialized) struct AgentPlayerTests {
    @Test func statusAndExplainShowTheMpvPlayerThatControlsItsStream() throws {
        let scene = try AgentScene()
        let plugin = try #require(MPV.mprisPlugin, "mpv-mpris is not installed")
        let mpv = try scene.sandbox.spawn(["mpv", "--no-config", "--ao=pipewire", "--no-video", "--loop-file=inf",
                                           "--script=\(plugin)", scene.tone],
                                          stderr: scene.sandbox.path("mpv.err"))
        defer { mpv.stop() }
        var stream: Graph.Node? { scene.client.graph.streams.first { $0.props["application.name"] == "mpv" } }
        var seen: StreamStatus?
        let matched = scene.sandbox.wait(timeout: 10) {
            scene.client.pump(0.05)
            seen = stream.flatMap { scene.polledStatus(id: $0.id) }
            return seen?.player?.status == "Playing"
        }
        #expect(matched, "the agent never showed mpv's player on its stream; log:\n\(scene.log)")
        let status = try #require(seen)
        #expect(status.player?.busName == "org.mpris.MediaPlayer2.mpv")
        #expect(status.player?.matchedBy == "same process (\(mpv.pid))")
        #expect(scene.agentStatus()?.players == "1 MPRIS player on the session bus")
        let explain = try scene.sandbox.run([CLI.binary, "explain", "-r", scene.sandbox.remote, String(status.id)])
        #expect(explain.stdout.contains("org.mpris.MediaPlayer2.mpv): Playing"), "explain printed:\n\(explain.stdout)")
        #expect(explain.stdout.contains("matched by same process (\(mpv.pid))"))
    }

    @Test func withoutASessionBusTheAgentSaysSoOnceAndStillWorks() throws {
        let scene = try AgentScene(agentEnvironment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        let players = try #require(scene.agentStatus()?.players)
        #expect(players.hasPrefix("not watched: no session bus at unix:path=/nonexistent/bus"), "status says: \(players)")
        let music = try scene.sandbox.play(tone: scene.tone, as: "music", role: "Music")
        defer { music.stop() }
        #expect(scene.client.wait { _ in scene.polledStatus("music")?.category == "playback" },
                "the agent still classifies streams")
        #expect(scene.log.components(separatedBy: "no session bus").count - 1 == 1, "said once; log:\n\(scene.log)")
    }
}
