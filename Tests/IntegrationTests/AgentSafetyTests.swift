import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire
import Testing

extension TimingSensitiveSuites {
    /// Issue 4, "never lose the user's audio state": exits, crashes, daemon
    /// restarts and bad input.
    @Suite(.serialized)
    struct AgentSafetyTests {
        @Test(arguments: [SIGTERM, SIGINT])
        func stoppingTheAgentRestoresEveryGainAndHold(signal: Int32) throws {
            let scene = try AgentScene(settings: AgentScene.gamesAlwaysSolo)
            let players = try scene.duckAndHold(promptTarget: "headphones")
            defer { players.forEach { $0.stop() } }
            scene.stopAgent(signal: signal)
            scene.client.pump(0.5)
            #expect(scene.volume("music") == 1 && scene.volume("player") == 1, "\(scene.describe(["music", "player"]))")
            #expect(scene.sinks(of: "player") == ["speakers"], "the held player was not relinked: \(scene.describe(["player"]))\n\(scene.log.split(separator: "\n").filter { !$0.contains("set gain") }.suffix(25).joined(separator: "\n"))")
            // Its links outlive the agent (they linger), so it keeps playing.
            #expect(scene.log.contains("restored"))
            // Restoring is the agent's gain only: the user's volume is as set.
            scene.expectUserVolumesKept()
        }

        @Test func afterSIGKILLTheNextStartRestoresWhatNoLongerApplies() throws {
            let scene = try AgentScene(settings: AgentScene.gamesAlwaysSolo)
            var players = try scene.duckAndHold(promptTarget: "headphones")
            defer { players.forEach { $0.stop() } }
            scene.stopAgent(signal: SIGKILL)
            // While no agent runs, the prompt and the game end.
            players[1].stop()
            players[3].stop()
            players = [players[0], players[2]]
            scene.client.pump(0.3)
            #expect(abs((scene.volume("music") ?? 0) - 0.2) < 0.01, "a dead agent cannot restore: \(scene.describe(["music"]))")
            try scene.startAgent()
            #expect(scene.waitForVolume("music", 1, timeout: 1.5), "\(scene.describe(["music"]))")
            #expect(scene.waitForSinks("player", ["speakers"], timeout: 1.5) && scene.waitForVolume("player", 1, timeout: 1.5),
                    "the player stayed held by a dead agent: \(scene.describe(["player"]))")
            // What the journal restores is the agent's gain only.
            scene.expectUserVolumesKept()
        }

        @Test func afterSIGKILLStillValidDecisionsAreKept() throws {
            let scene = try AgentScene(settings: AgentScene.gamesAlwaysSolo)
            let players = try scene.duckAndHold(promptTarget: "headphones")
            defer { players.forEach { $0.stop() } }
            scene.stopAgent(signal: SIGKILL)
            try scene.startAgent()
            scene.client.pump(1.0)
            #expect(abs((scene.volume("music") ?? 0) - 0.2) < 0.01 && scene.sinks(of: "player").isEmpty,
                    "\(scene.describe(["music", "player"]))")
            scene.expectUserVolumesKept()
        }

        @Test func silentModeAndAppOverridesSurviveARestart() throws {
            let scene = try AgentScene()
            #expect(try scene.cli(["silent", "on"]).status == 0)
            let set = try scene.cli(["set", "--app", "pw-cat", "--category", "ambient", "--persist"])
            #expect(set.status == 0, "\(set.stdout)\(set.stderr)")
            scene.client.pump(0.3)
            scene.stopAgent()
            try scene.startAgent()
            let game = try scene.play("music")
            defer { game.stop() }
            // pw-play's stream is ambient now (the app override), and silent mode silences it.
            #expect(scene.waitForStatus("music") { $0.category == "ambient" }, "\(String(describing: scene.polledStatus("music")))")
            #expect(scene.waitForVolume("music", 0), "\(scene.describe(["music"]))")
        }

        @Test func garbageMetadataIsAWarningAndKeepsThePreviousCategory() throws {
            let scene = try AgentScene()
            let music = try scene.play("music")
            defer { music.stop() }
            let id = try #require(scene.stream("music")?.id)
            #expect(scene.waitForStatus("music") { $0.category == "playback" })
            try scene.sandbox.run(["pw-metadata", "-n", "pw-policy", String(id), "policy.category", "ambient", "Spa:String"])
            #expect(scene.waitForStatus("music") { $0.category == "ambient" })
            let junk = String(repeating: "\u{1}x", count: 5000)
            let write = try scene.sandbox.run(["pw-metadata", "-n", "pw-policy", String(id), "policy.category", junk])
            #expect(write.status == 0, "pw-metadata: \(write.stderr)")
            try scene.sandbox.run(["pw-metadata", "-n", "pw-policy", "0", "pw-policy.silent-mode", "maybe"])
            try scene.sandbox.run(["pw-metadata", "-n", "pw-policy", "4242", "policy.category", "playback"])
            // Read through a new binding each time: PipeWire (0.3.65 to 1.6)
            // does not forward an exported metadata's changes to settled
            // listeners while another client is binding it (pw-metadata
            // just did), so a listener that stays may miss the warning.
            #expect(scene.client.wait { _ in scene.polledStatus(id: id)?.warnings.contains { $0.contains("not a category") } == true },
                    "\(String(describing: scene.polledStatus(id: id)))")
            #expect(scene.polledStatus(id: id)?.category == "ambient", "the previous category was lost")
            // A request for a node that does not exist is removed, not left for
            // the next node that gets that id (PipeWire 1.6 refuses the write itself).
            #expect(scene.client.wait { _ in
                (try? scene.freshRead { $0.metadata(named: AgentProtocol.metadataName)?.entries[4242] == nil }) == true
            })
            #expect(scene.agent?.isRunning == true, "the agent died:\n\(scene.log)")
            #expect(scene.log.contains("is not true, false or follow"))
        }

        @Test func theAgentReconnectsAfterPipeWireRestartsAndReapplies() throws {
            let scene = try AgentScene()
            let pid = try #require(scene.sandbox.pid(of: "pipewire"))
            kill(pid, SIGKILL)
            scene.client.pump(0.5)
            #expect(scene.agent?.isRunning == true, "the agent exited when PipeWire died:\n\(scene.log)")
            // A new daemon and session manager at the same socket.
            let restarted = try scene.sandbox.restartDaemons()
            #expect(restarted)
            // Fresh reads: a client binding the metadata while the agent fills it
            // may never get those entries (PipeWire 0.3.65).
            let back = scene.sandbox.wait(timeout: 20) { scene.agentStatus()?.pid == scene.agent?.pid }
            let client = try TestClient(sandbox: scene.sandbox)
            #expect(back, "the agent did not come back:\n\(scene.log)")
            let music = try scene.sandbox.play(tone: scene.tone, as: "music2", role: "Music")
            let prompt = try scene.sandbox.play(tone: scene.tone, as: "prompt2", properties: "{ policy.category=playback policy.options=[ duck-others ] }")
            defer { music.stop(); prompt.stop() }
            let ducked = client.wait(timeout: 5) { _ in abs((client.stream(withMediaName: "music2")?.volume ?? 0) - 0.2) < 0.01 }
            #expect(ducked, "\(scene.log)")
        }
    }
}
