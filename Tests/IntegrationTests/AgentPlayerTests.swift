import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

extension AgentScene {
    /// mpv's stream and its published status once the agent matched mpv to
    /// it and shows the player's `status`; nil when that never came.
    func mpvStream(status: String = "Playing") -> (id: UInt32, status: StreamStatus)? {
        var found: (UInt32, StreamStatus)?
        // mpv took over 10 s to play while other suites' sandboxes ran
        // beside it on two cores.
        _ = sandbox.wait(timeout: 20) {
            client.pump(0.05)
            guard let node = client.graph.streams.first(where: { $0.props["application.name"] == "mpv" || $0.props["application.process.binary"] == "mpv" }),
                  let published = polledStatus(id: node.id), published.player?.status == status else { return false }
            found = (node.id, published)
            return true
        }
        return found
    }
}

extension TimingSensitiveSuites {
    /// The agent and the media players on the sandbox's private session bus:
    /// which player controls a stream, shown by `status` and `explain`
    /// (docs/PLAYERS.md).
    @Suite(.serialized) struct AgentPlayerTests {
        @Test func statusAndExplainShowTheMpvPlayerThatControlsItsStream() throws {
            let scene = try AgentScene()
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            let status = try #require(scene.mpvStream()?.status, "the agent never showed mpv's player on its stream; log:\n\(scene.log)")
            #expect(status.player?.busName == "org.mpris.MediaPlayer2.mpv")
            #expect(status.player?.matchedBy == "same process (\(mpv.pid))")
            #expect(scene.agentStatus()?.players == "1 MPRIS player on the session bus")
            let explain = try scene.sandbox.run([CLI.binary, "explain", "-r", scene.sandbox.remote, String(status.id)])
            #expect(explain.stdout.contains("org.mpris.MediaPlayer2.mpv): Playing"), "explain printed:\n\(explain.stdout)")
            #expect(explain.stdout.contains("matched by same process (\(mpv.pid))"))
        }

        /// A player flooding the bus leaves the agent following the graph
        /// at once: during the flood, an alert in silent mode is silenced.
        /// What the flood costs is printed ("bus storm: …"), not asserted;
        /// bench/run measures it (docs/PLAYERS.md, "A player that floods the bus").
        @Test func aPlayerFloodingTheBusLeavesTheAgentFollowingTheGraph() throws {
            let scene = try AgentScene()
            let player = try TestPlayer(sandbox: scene.sandbox, name: "storm", options: ["--flood", "metadata"]) {
                scene.client.pump(0.05)
            }
            defer { player.process.stop() }
            #expect(scene.client.wait(timeout: 5) { _ in scene.log.contains("sends more than 100 PropertiesChanged a second") },
                    "the agent never stopped listening to the flood:\n\(scene.log)")
            func cpu(_ pid: Int32) -> Double {
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return 0 }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
            }
            let agentPID = try #require(scene.agent?.pid)
            let agentBefore = cpu(agentPID), playerBefore = cpu(player.pid)
            #expect(try scene.cli(["silent", "on"]).status == 0)
            let alert = try scene.play("alert", role: "Notification")
            defer { alert.stop() }
            #expect(scene.waitForVolume("alert", 0), "\(scene.describe(["alert"]))")
            scene.client.pump(3)
            print(String(format: "bus storm: in the ~3.5 s after the agent stopped listening, the agent used %.3f s of CPU, the flooding player %.3f s",
                         cpu(agentPID) - agentBefore, cpu(player.pid) - playerBefore))
            #expect(scene.agentStatus()?.players == "1 MPRIS player on the session bus")
        }

        @Test func withoutASessionBusTheAgentSaysSoOnceAndStillWorks() throws {
            let scene = try AgentScene(agentEnvironment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
            let players = try #require(scene.agentStatus()?.players)
            #expect(players.hasPrefix("not watched: no session bus at unix:path=/nonexistent/bus"), "status says: \(players)")
            let music = try scene.sandbox.play(tone: scene.tone, as: "music", role: "Music")
            defer { music.stop() }
            #expect(scene.waitForStatus("music") { $0.category == "playback" },
                    "the agent still classifies streams")
            #expect(scene.log.components(separatedBy: "no session bus").count - 1 == 1, "said once; log:\n\(scene.log)")
        }
    }

    /// What a person sees with a real mpv (and the mpv-mpris plugin) while the
    /// agent runs: paused on unplug and during a call, played again after the
    /// call or on `pw-policy resume`, never started otherwise (docs/PLAYERS.md).
    @Suite(.serialized) struct AgentPausesRealPlayersTests {
        /// mpv's MPRIS `PlaybackStatus`, as playerctl reads it on the sandbox's bus.
        func playbackStatus(_ scene: AgentScene) -> String? {
            guard let result = try? scene.sandbox.run(["playerctl", "-p", "mpv", "status"]), result.status == 0 else { return nil }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// How far mpv's position moves in `seconds`.
        func moved(_ mpv: MPVPlayer, in seconds: Double, _ scene: AgentScene) throws -> Double {
            let start = try #require(mpv.position())
            scene.client.pump(seconds)
            return try #require(mpv.position()) - start
        }

        @Test(arguments: ["pipewire", "pulse"])
        func unplugPausesMpvAndResumePlaysItOnTheSpeakers(output: String) throws {
            let scene = try AgentScene(pulse: output == "pulse", toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: output, mpris: true, device: "headphones")
            defer { mpv.stop() }
            let (id, _) = try #require(scene.mpvStream(), "the agent never matched mpv; log:\n\(scene.log.suffix(3000))")
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: id) == ["headphones"] })
            #expect(scene.waitUntilAgentSees(id: id, runningOn: "headphones"))
            let monitor = scene.sandbox.path("speakers.wav")
            let recorder = try scene.recordSink("speakers", to: "speakers.wav")
            defer { recorder.stop(signal: SIGINT) }
            let headphones = try #require(scene.client.node(named: "headphones"))
            try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
            let paused = scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return playbackStatus(scene) == "Paused" }
            #expect(paused, "mpv says \(playbackStatus(scene) ?? "nothing"); log:\n\(scene.log.suffix(3000))")
            let status = try #require(scene.mpvStream(status: "Paused")?.status)
            #expect(status.hold?.kind == "route-lost")
            #expect(status.player?.pausedByAgent == "paused by pw-policy; stays paused until 'pw-policy resume'")
            #expect(try moved(mpv, in: 1.5, scene) < 0.1, "the position stands still")
            #expect(scene.client.graph.linkedSinkNames(of: id).isEmpty, "nothing plays to the speakers")
            let resumeFrame = try Audio.framesWritten(toWAV: monitor)

            let resume = try scene.cli(["resume", String(id)])
            #expect(resume.status == 0, "\(resume.stderr)")
            let playing = scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return playbackStatus(scene) == "Playing" }
            #expect(playing, "mpv says \(playbackStatus(scene) ?? "nothing") after resume")
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: id) == ["speakers"] })
            #expect(try moved(mpv, in: 1.0, scene) > 0.7, "it plays on")
            recorder.stop(signal: SIGINT)
            // At most one graph cycle (1024 frames) may slip out at the unplug
            // (README, "Known limits"); the recorder's first 0.2 s is its start-up.
            let leaked = try Audio.loudFrames(ofWAV: monitor, skip: 0.2, frames: 0..<resumeFrame)
            #expect(leaked <= 1024, "\(leaked) frames of mpv reached the speakers while it was paused")
            // Positive control: once resumed, the same recorder hears it.
            let heard = try Audio.loudFrames(ofWAV: monitor, frames: resumeFrame..<Int.max)
            #expect(heard >= 24_000, "the recorder heard \(heard) frames of mpv after the resume: it would not hear a leak either")
        }

        @Test func aCallPausesMpvAndItsEndPlaysItFromWhereItStopped() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            let (id, _) = try #require(scene.mpvStream())
            let call = try scene.play("call", role: "Communication")
            let paused = scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return playbackStatus(scene) == "Paused" }
            #expect(paused, "mpv says \(playbackStatus(scene) ?? "nothing"); log:\n\(scene.log.suffix(3000))")
            #expect(scene.polledStatus(id: id)?.hold?.kind == "interrupted")
            let stoppedAt = try #require(mpv.position())
            scene.client.pump(1.5)
            #expect(try #require(mpv.position()) - stoppedAt < 0.1, "the position stands still during the call")
            call.stop()
            let playing = scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return playbackStatus(scene) == "Playing" }
            #expect(playing, "mpv says \(playbackStatus(scene) ?? "nothing") after the call; log:\n\(scene.log.suffix(3000))")
            let resumedAt = try #require(mpv.position())
            #expect(resumedAt - stoppedAt < 1.0, "it plays from where it stopped (\(stoppedAt) s, now \(resumedAt) s)")
            #expect(try moved(mpv, in: 1.0, scene) > 0.7)
        }

        @Test func mpvTheUserPausedBeforeTheCallStaysPausedAfterIt() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            _ = try #require(scene.mpvStream())
            #expect(mpv.set("pause", to: true))
            // Until the agent knows: mpv-mpris reports a change up to ~0.1 s
            // after it happened (docs/PLAYERS.md, "What is not known").
            #expect(scene.mpvStream(status: "Paused") != nil, "the agent never saw mpv paused")
            let call = try scene.play("call", role: "Communication")
            scene.client.pump(1.5)
            call.stop()
            scene.client.pump(2.0)
            #expect(playbackStatus(scene) == "Paused", "never started by the agent")
            #expect(!scene.log.contains("play org.mpris.MediaPlayer2.mpv"), "log:\n\(scene.log.suffix(3000))")
        }

        @Test func mpvWithoutMPRISOnItsNativeOutputIsHeldWithItsClockStopped() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", device: "headphones")
            defer { mpv.stop() }
            var stream: Graph.Node? { scene.client.graph.streams.first { $0.props["node.always-process"] == "true" } }
            #expect(scene.client.wait { graph in stream.map { graph.linkedSinkNames(of: $0.id) == ["headphones"] } ?? false })
            let id = try #require(stream?.id)
            #expect(scene.waitUntilAgentSees(id: id, runningOn: "headphones"))
            let headphones = try #require(scene.client.node(named: "headphones"))
            try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
            let stopped = scene.sandbox.wait(timeout: 5) {
                scene.client.pump(0.05)
                return scene.polledStatus(id: id)?.hold?.app == "stopped"
            }
            #expect(stopped, "\(String(describing: scene.polledStatus(id: id)?.hold)); log:\n\(scene.log.suffix(3000))")
            #expect(scene.client.graph.nodes[id]?.state == .suspended)
            #expect(try moved(mpv, in: 2.0, scene) < 0.1, "the app's clock stands still while held")
            let explain = try scene.cli(["explain", String(id)])
            #expect(explain.stdout.contains("stopped while held"), "\(explain.stdout)")
            #expect(try scene.cli(["resume", String(id)]).status == 0)
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: id) == ["speakers"] })
            #expect(try moved(mpv, in: 1.0, scene) > 0.7, "released: it plays on")
        }
    }

    /// What mpv cannot show, with our own test player (Tests/TestPlayer).
    @Suite(.serialized) struct AgentPausesTestPlayersTests {
        func status(_ scene: AgentScene, of player: TestPlayer) -> String? {
            let name = player.busName.replacingOccurrences(of: "org.mpris.MediaPlayer2.", with: "")
            guard let result = try? scene.sandbox.run(["playerctl", "-p", name, "status"]), result.status == 0 else { return nil }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func start(_ scene: AgentScene, _ name: String, _ options: [String] = []) throws -> (TestPlayer, UInt32) {
            let player = try TestPlayer(sandbox: scene.sandbox, name: name, options: options + ["-P", "{ media.role = Music }"]) {
                scene.client.pump(0.05)
            }
            var id: UInt32?
            let matched = scene.sandbox.wait(timeout: 10) {
                scene.client.pump(0.05)
                id = scene.client.graph.streams.first { $0.name == player.nodeName }?.id
                return id.flatMap { scene.polledStatus(id: $0)?.player?.busName } == player.busName
            }
            #expect(matched, "the agent never matched \(player.busName); log:\n\(scene.log.suffix(2000))")
            return (player, try #require(id))
        }

        func position(_ scene: AgentScene, _ player: TestPlayer) throws -> UInt64 {
            try #require(player.position(sandbox: scene.sandbox) { scene.client.pump(0.05) })
        }

        /// The headphones go away under a player: WirePlumber 0.5.11+ pauses
        /// the player of a removed sink itself and relinks its stream to the
        /// default sink a second later; the agent holds the stream for its
        /// lost route. Together: the player pauses once, nothing plays on
        /// the speakers meanwhile, and `pw-policy resume` plays it once
        /// (docs/PLAYERS.md, "Beside WirePlumber's own pause"). On older
        /// WirePlumbers the agent alone pauses it; the same holds.
        @Test func anUnplugPausesOnceBesideWirePlumbersOwnPauseAndResumePlaysOnce() throws {
            let scene = try AgentScene()
            let player = try TestPlayer(sandbox: scene.sandbox, name: "unplug",
                                        options: ["-P", "{ media.role = Music target.object = headphones }"]) {
                scene.client.pump(0.05)
            }
            let stream = { scene.client.graph.streams.first { $0.name == player.nodeName } }
            let id = try #require(scene.sandbox.wait(timeout: 10) { scene.client.pump(0.05); return stream() != nil } ? stream()?.id : nil)
            #expect(scene.waitUntilAgentSees(id: id, runningOn: "headphones"), "log:\n\(scene.log.suffix(2000))")
            #expect(scene.sandbox.wait(timeout: 10) {
                scene.client.pump(0.05)
                return scene.polledStatus(id: id)?.player?.busName == player.busName
            }, "the agent never matched the player")
            let headphones = try #require(scene.client.node(named: "headphones"))
            try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
            #expect(scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return status(scene, of: player) == "Paused" })
            // Past WirePlumber's one-second wait and its relink.
            scene.client.pump(2.5)
            let pauses = player.lines.filter { $0.hasPrefix("called Pause") }
            let paused = player.lines.filter { $0 == "status Paused" }.count
            print("unplug beside WirePlumber \(scene.agentStatus()?.stack?.wireplumber?.version ?? "?"): \(pauses.count) Pause calls "
                  + "(\(pauses.map { String($0.split(separator: " ").last ?? "") }.joined(separator: ", "))), paused \(paused) time(s)")
            #expect(paused == 1, "the player paused \(paused) times: \(player.lines)")
            #expect(scene.client.graph.linkedSinkNames(of: id).isEmpty, "linked to \(scene.client.graph.linkedSinkNames(of: id)) while held")
            #expect(scene.polledStatus(id: id)?.hold?.kind == "route-lost")
            #expect(scene.polledStatus(id: id)?.player?.pausedByAgent == "paused by pw-policy; stays paused until 'pw-policy resume'",
                    "\(String(describing: scene.polledStatus(id: id)?.player))")

            let resume = try scene.cli(["resume", String(id)])
            #expect(resume.status == 0, "\(resume.stderr)")
            #expect(scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return status(scene, of: player) == "Playing" })
            scene.client.pump(1.5)
            #expect(player.lines.filter { $0.hasPrefix("called Play") }.count == 1, "\(player.lines)")
            #expect(player.lines.filter { $0.hasPrefix("called Pause") }.count == pauses.count, "no Pause after the resume")
            #expect(scene.client.graph.linkedSinkNames(of: id) == ["speakers"])
        }

        @Test func aStreamFromAChildProcessPausesItsParentsPlayer() throws {
            let scene = try AgentScene()
            let (player, id) = try start(scene, "child", ["--child"])
            #expect(player.streamPID != player.pid, "the stream comes from another process")
            #expect(scene.polledStatus(id: id)?.player?.matchedBy.hasPrefix("process \(player.streamPID) descends from the player's \(player.pid)") == true)
            let call = try scene.play("call", role: "Communication")
            #expect(scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return status(scene, of: player) == "Paused" })
            let frozen = try position(scene, player)
            scene.client.pump(1.0)
            #expect(try position(scene, player) == frozen, "the child's stream stands still")
            call.stop()
            #expect(scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return status(scene, of: player) == "Playing" })
            scene.client.pump(1.0)
            #expect(try position(scene, player) > frozen, "it plays on after the call")
        }

        @Test func aPlayerThatIgnoresPauseIsHeldStillAndNeverPlayed() throws {
            let scene = try AgentScene()
            let (player, id) = try start(scene, "deaf", ["--ignore-pause"])
            let call = try scene.play("call", role: "Communication")
            let backstop = scene.sandbox.wait(timeout: 5) {
                scene.client.pump(0.05)
                let status = scene.polledStatus(id: id)
                return status?.player?.pausedByAgent?.hasPrefix("pause sent") == true && status?.hold?.app == "stopped"
            }
            #expect(backstop, "\(String(describing: scene.polledStatus(id: id))); log:\n\(scene.log.suffix(2000))")
            #expect(status(scene, of: player) == "Playing", "it says it plays on")
            #expect(scene.client.graph.links(from: id).isEmpty && scene.client.graph.nodes[id]?.volume == 0)
            let frozen = try position(scene, player)
            scene.client.pump(1.0)
            #expect(try position(scene, player) == frozen, "held: its clock stands still anyway")
            call.stop()
            #expect(scene.client.wait { graph in !graph.links(from: id).isEmpty }, "released after the call")
            #expect(!scene.log.contains("play \(player.busName)"), "never played: it never paused")
        }

        @Test func aPlayerThatVanishesWhenPausedIsForgotten() throws {
            let scene = try AgentScene()
            let (player, id) = try start(scene, "gone", ["--vanish-on-pause"])
            let call = try scene.play("call", role: "Communication")
            #expect(scene.sandbox.wait(timeout: 5) { !player.process.isRunning }, "it exits on Pause")
            #expect(scene.client.wait { graph in graph.nodes[id] == nil })
            call.stop()
            scene.client.pump(1.5)
            #expect(scene.agent?.isRunning == true)
            #expect(scene.log.contains("pause \(player.busName)") && !scene.log.contains("play \(player.busName)"),
                    "log:\n\(scene.log.suffix(2000))")
            let journal = try String(contentsOfFile: scene.sandbox.path("runtime/pw-policy/journal.json"), encoding: .utf8)
            #expect(!journal.contains(player.busName), "forgotten: \(journal)")
        }
    }
}
