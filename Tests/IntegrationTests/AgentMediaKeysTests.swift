import Foundation
import PolicyCore
import PolicyDBus
import Testing

extension TimingSensitiveSuites {
    /// pw-policy's media-key proxy, `org.mpris.MediaPlayer2.pw_policy`, with
    /// real mpv players (mpv-mpris) on the sandbox's private session bus and
    /// playerctl sending the keys as a desktop would (docs/PLAYERS.md,
    /// "Media keys"): the audible player pauses, the one pw-policy paused
    /// resumes, and during a call nothing happens to the music.
    @Suite(.serialized) struct AgentMediaKeysTests {
        static let proxy = "org.mpris.MediaPlayer2.pw_policy"

        /// A player's `PlaybackStatus` as playerctl reads it (`mpv`, `pw_policy`).
        func playbackStatus(_ scene: AgentScene, _ player: String = "mpv") -> String? {
            guard let result = try? scene.sandbox.run(["playerctl", "-p", player, "status"]), result.status == 0 else { return nil }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func waitFor(_ scene: AgentScene, _ status: String, of player: String = "mpv", timeout: Double = 5) -> Bool {
            scene.sandbox.wait(timeout: timeout) { scene.client.pump(0.05); return playbackStatus(scene, player) == status }
        }

        /// playerctl sending a key to pw-policy's proxy.
        func press(_ scene: AgentScene, _ command: String = "play-pause") throws {
            let result = try scene.sandbox.run(["playerctl", "-p", "pw_policy", command])
            #expect(result.status == 0, "playerctl \(command): \(result.stderr)")
        }

        func waitForKeys(_ scene: AgentScene, _ condition: (MediaKeysStatus) -> Bool) -> MediaKeysStatus? {
            var found: MediaKeysStatus?
            _ = scene.sandbox.wait(timeout: 8) {
                scene.client.pump(0.05)
                found = scene.agentStatus()?.mediaKeys
                return found.map(condition) ?? false
            }
            return found.flatMap { condition($0) ? $0 : nil }
        }

        func moved(_ mpv: MPVPlayer, in seconds: Double, _ scene: AgentScene) throws -> Double {
            let start = try #require(mpv.position())
            scene.client.pump(seconds)
            return try #require(mpv.position()) - start
        }

        @Test func playPauseGoesToTheAudibleMpvAndTheProxyMirrorsIt() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            _ = try #require(scene.mpvStream(), "the agent never matched mpv; log:\n\(scene.log.suffix(3000))")
            let keys = waitForKeys(scene) { $0.target == "org.mpris.MediaPlayer2.mpv" && $0.reason == "audible" }
            #expect(keys != nil, "status says \(String(describing: scene.agentStatus()?.mediaKeys)); log:\n\(scene.log.suffix(3000))")
            // Our own observer on the bus: it follows the proxy by GetAll, then
            // by its PropertiesChanged signals only.
            let bus = try SessionBus.connect(address: scene.sandbox.environment["DBUS_SESSION_BUS_ADDRESS"], on: scene.client.loop).get()
            var seen = PlayerSet.empty
            let observer = MPRISObserver(bus: bus, log: { _ in }) { seen = $0 }
            try observer.start().get()
            #expect(scene.client.loop.run(timeout: 5) { seen[Self.proxy]?.status == .playing }, "the proxy says \(String(describing: seen[Self.proxy]))")
            #expect(seen[Self.proxy]?.identity == "pw-policy")
            #expect(scene.agentStatus()?.players == "1 MPRIS player on the session bus", "the agent does not manage its own proxy")

            let title = try scene.sandbox.run(["playerctl", "-p", "mpv", "metadata", "xesam:title"]).stdout
            #expect(!title.isEmpty)
            #expect(try scene.sandbox.run(["playerctl", "-p", "pw_policy", "metadata", "xesam:title"]).stdout == title,
                    "the proxy's Metadata is mpv's")
            let length = try scene.sandbox.run(["playerctl", "-p", "mpv", "metadata", "mpris:length"]).stdout
            #expect(!length.isEmpty)
            #expect(try scene.sandbox.run(["playerctl", "-p", "pw_policy", "metadata", "mpris:length"]).stdout == length)
            #expect(playbackStatus(scene, "pw_policy") == "Playing")

            try press(scene)
            #expect(waitFor(scene, "Paused"), "mpv says \(playbackStatus(scene) ?? "nothing"); log:\n\(scene.log.suffix(3000))")
            #expect(try moved(mpv, in: 1.0, scene) < 0.1, "paused: its position stands still")
            #expect(scene.client.loop.run(timeout: 5) { seen[Self.proxy]?.status == .paused },
                    "PropertiesChanged told the proxy's new status: \(String(describing: seen[Self.proxy]))")
            #expect(playbackStatus(scene, "pw_policy") == "Paused")
            let paused = waitForKeys(scene) { $0.reason == "most-recently-active" }
            #expect(paused?.target == "org.mpris.MediaPlayer2.mpv", "\(String(describing: paused))")
            #expect(paused?.lastKey == "PlayPause to org.mpris.MediaPlayer2.mpv: sent PlayPause")

            // The user's own key on the player they paused: it plays.
            try press(scene)
            #expect(waitFor(scene, "Playing"), "mpv says \(playbackStatus(scene) ?? "nothing")")
            #expect(try moved(mpv, in: 1.0, scene) > 0.7, "it plays on")
            _ = observer
        }

        /// dbus-send to the proxy; its output (the reply, or the error on stderr).
        func send(_ scene: AgentScene, _ member: String, _ arguments: [String] = []) throws -> Command.Result {
            try scene.sandbox.run(["dbus-send", "--session", "--print-reply", "--dest=\(Self.proxy)", "/org/mpris/MediaPlayer2", member]
                                  + arguments)
        }

        @Test func badCallsGetDBusErrorsAndTheAgentCarriesOn() throws {
            let scene = try AgentScene()
            _ = try #require(waitForKeys(scene) { $0.reason == "none" }, "the proxy never came: \(scene.log.suffix(2000))")
            let unknown = try send(scene, "org.mpris.MediaPlayer2.Player.Explode")
            #expect(unknown.status != 0 && unknown.stderr.contains("org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown.stderr)")
            let signature = try send(scene, "org.mpris.MediaPlayer2.Player.PlayPause", ["string:now"])
            #expect(signature.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(signature.stderr)")
            let property = try send(scene, "org.freedesktop.DBus.Properties.Get", ["string:org.mpris.MediaPlayer2.Player", "string:Volume"])
            #expect(property.stderr.contains("org.freedesktop.DBus.Error.UnknownProperty"), "\(property.stderr)")
            let set = try send(scene, "org.freedesktop.DBus.Properties.Set",
                               ["string:org.mpris.MediaPlayer2.Player", "string:PlaybackStatus", "variant:string:Playing"])
            #expect(set.stderr.contains("org.freedesktop.DBus.Error.PropertyReadOnly"), "\(set.stderr)")
            let introspection = try send(scene, "org.freedesktop.DBus.Introspectable.Introspect")
            #expect(introspection.stdout.contains(#"<interface name="org.mpris.MediaPlayer2.Player">"#), "\(introspection.stdout)")
            let identity = try send(scene, "org.freedesktop.DBus.Properties.Get", ["string:org.mpris.MediaPlayer2", "string:Identity"])
            #expect(identity.stdout.contains(#"variant       string "pw-policy""#), "\(identity.stdout)")
            // With no player, a key is answered and does nothing, and says so.
            let key = try send(scene, "org.mpris.MediaPlayer2.Player.PlayPause")
            #expect(key.status == 0, "\(key.stderr)")
            let said = waitForKeys(scene) { $0.lastKey != nil }
            #expect(said?.lastKey == "PlayPause: nothing: no media player on the session bus")
            #expect(scene.agent?.isRunning == true, "the agent is still there")
        }

        @Test func afterAnUnplugPlayPauseResumesTheMpvPwPolicyPausedAndReleasesItsHold() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true, device: "headphones")
            defer { mpv.stop() }
            let (id, _) = try #require(scene.mpvStream(), "the agent never matched mpv; log:\n\(scene.log.suffix(3000))")
            #expect(scene.waitUntilAgentSees(id: id, runningOn: "headphones"))
            let headphones = try #require(scene.client.node(named: "headphones"))
            try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
            #expect(waitFor(scene, "Paused"), "mpv says \(playbackStatus(scene) ?? "nothing"); log:\n\(scene.log.suffix(3000))")
            #expect(scene.mpvStream(status: "Paused")?.status.hold?.kind == "route-lost")
            let keys = waitForKeys(scene) { $0.reason == "paused-by-pw-policy" }
            #expect(keys?.target == "org.mpris.MediaPlayer2.mpv")
            #expect(keys?.text.contains("Play resumes it (releases its hold)") == true, "\(String(describing: keys))")
            #expect(try moved(mpv, in: 1.0, scene) < 0.1, "paused")

            try press(scene)
            #expect(waitFor(scene, "Playing"), "mpv says \(playbackStatus(scene) ?? "nothing"); log:\n\(scene.log.suffix(3000))")
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: id) == ["speakers"] }, "the hold is released")
            let resumed = scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return scene.polledStatus(id: id)?.hold == nil }
            #expect(resumed, "\(String(describing: scene.polledStatus(id: id)?.hold))")
            #expect(try moved(mpv, in: 1.0, scene) > 0.7, "it plays on")
            #expect(scene.agentStatus()?.mediaKeys?.lastKey?.contains("the user's resume") == true,
                    "\(String(describing: scene.agentStatus()?.mediaKeys))")
        }

        @Test func whileAGameHoldsTheMusicPlayPauseResumesTheMpvPwPolicyPaused() throws {
            let scene = try AgentScene(toneSeconds: 60, settings: AgentScene.gamesAlwaysSolo)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            let (id, _) = try #require(scene.mpvStream(), "the agent never matched mpv; log:\n\(scene.log.suffix(3000))")
            let game = try scene.play("game", role: "Game")
            defer { game.stop() }
            #expect(waitFor(scene, "Paused"), "the game pauses mpv; log:\n\(scene.log.suffix(3000))")
            #expect(scene.polledStatus(id: id)?.hold?.kind == "interrupted")
            let keys = waitForKeys(scene) { $0.reason == "paused-by-pw-policy" }
            #expect(keys?.text.contains("Play resumes it (releases its hold)") == true, "\(String(describing: keys))")

            try press(scene)
            #expect(waitFor(scene, "Playing"), "mpv says \(playbackStatus(scene) ?? "nothing"); log:\n\(scene.log.suffix(3000))")
            let released = scene.sandbox.wait(timeout: 5) { scene.client.pump(0.05); return scene.polledStatus(id: id)?.hold == nil }
            #expect(released, "\(String(describing: scene.polledStatus(id: id)?.hold))")
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: id) == ["speakers"] })
            #expect(try moved(mpv, in: 1.0, scene) > 0.7, "it plays on")
            #expect(scene.waitForStatus("game") { $0.hold?.kind == "interrupted" }, "the music is the newer now")
        }

        @Test func duringACallPlayPauseDoesNothingToTheMusicAndSaysWhy() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            _ = try #require(scene.mpvStream())
            let call = try scene.play("call", role: "Communication")
            defer { call.stop() }
            #expect(waitFor(scene, "Paused"), "the call pauses mpv; log:\n\(scene.log.suffix(3000))")
            let keys = waitForKeys(scene) { $0.reason == "paused-by-pw-policy" }
            #expect(keys?.text.contains("Play does nothing while a call") == true, "\(String(describing: keys))")
            let stoppedAt = try #require(mpv.position())

            try press(scene)
            let refused = waitForKeys(scene) { $0.lastKey != nil }
            #expect(refused?.lastKey?.contains("PlayPause does nothing to the music: a call") == true,
                    "the key reached the agent, which said why: \(String(describing: refused)); log:\n\(scene.log.suffix(3000))")
            scene.client.pump(1.0)
            #expect(playbackStatus(scene) == "Paused", "nothing happened to the music")
            #expect(try #require(mpv.position()) - stoppedAt < 0.1, "its position stands still")
            let status = try scene.cli(["status"])
            #expect(status.stdout.contains("Media keys:"), "\(status.stdout)")
            #expect(status.stdout.contains("holds the music"), "\(status.stdout)")
            #expect(scene.log.contains("media key PlayPause to org.mpris.MediaPlayer2.mpv: nothing"))

            // Positive control: the call's end plays it again (its own
            // interruption), and a key then reaches it.
            call.stop()
            #expect(waitFor(scene, "Playing"), "after the call; log:\n\(scene.log.suffix(3000))")
            // playerctl hears mpv play before the agent may: a PlayPause the
            // agent takes for the user's resume is sent as Play (MediaKeys.press).
            #expect(waitForKeys(scene) { $0.reason == "audible" } != nil, "the agent hears it play")
            try press(scene)
            #expect(waitFor(scene, "Paused"), "the same key pauses it once the call is over")
        }

        @Test func offInTheConfigThereIsNoProxy() throws {
            let scene = try AgentScene(settings: "players.media-keys = false")
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            defer { mpv.stop() }
            _ = try #require(scene.mpvStream())
            let keys = waitForKeys(scene) { $0.reason == "off" }
            #expect(keys?.text == "off (players.media-keys = false)")
            let players = try scene.sandbox.run(["playerctl", "-l"]).stdout
            #expect(players.contains("mpv") && !players.contains("pw_policy"), "playerctl lists: \(players)")
        }

        @Test func aNameAnotherProcessOwnsIsLoggedOnceAndTheAgentCarriesOn() throws {
            let scene = try AgentScene()
            scene.stopAgent()
            // Someone else (here: a proxy of the test's own) owns the name first.
            let bus = try SessionBus.connect(address: scene.sandbox.environment["DBUS_SESSION_BUS_ADDRESS"], on: scene.client.loop).get()
            var answer: String??
            let other = try MediaKeysProxy(bus: bus, mirroring: nil, onKey: { _ in }, owned: { answer = .some($0) })
            #expect(scene.client.loop.run(timeout: 5) { answer != nil })
            #expect(answer == .some(nil), "the test's proxy owns the name: \(String(describing: answer))")
            try scene.startAgent()
            let keys = waitForKeys(scene) { $0.reason == "off" }
            #expect(keys?.text.hasPrefix("not on the session bus: org.mpris.MediaPlayer2.pw_policy is owned by another process") == true,
                    "\(String(describing: keys)); log:\n\(scene.log.suffix(3000))")
            #expect(scene.log.components(separatedBy: "is owned by another process").count - 1 == 1, "said once")
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitForStatus("music") { $0.category == "playback" }, "the agent still works")
            _ = other
        }
    }
}
