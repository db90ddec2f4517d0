import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// Locking silences what the silent switch silences (ambient,
    /// solo-ambient, system sounds) and nothing else; unlocking restores
    /// them (docs/POLICY.md, "Screen lock"). Each desktop's mechanism is a
    /// stand-in on the sandbox's private buses (`Tests/StandIns/screen-saver`:
    /// Debian has no headless Plasma, GNOME Shell or logind session):
    /// `org.freedesktop.ScreenSaver` as KDE serves it, GNOME's
    /// `org.gnome.ScreenSaver`, and logind's `LockedHint` on a private bus
    /// standing in for the system bus. Checked by the streams' gains and
    /// links in the graph, the agent's status, `explain` and its event.
    /// How long each change took is printed as "screen lock: …" lines.
    @Suite(.serialized) struct ScreenLockTests {
        private static func report(_ line: String) { print("screen lock: \(line)") }

        private func describe(_ scene: AgentScene, _ names: [String]) -> String {
            names.map { "\($0) \(scene.volume($0).map { String($0) } ?? "gone") → \(scene.sinks(of: $0).sorted())" }
                .joined(separator: ", ")
        }

        /// Locks with `lock`, expects `silenced` at gain 0 (still linked)
        /// and `spared` at 1 and linked; unlocks with `unlock`, all at 1.
        private func expectLockSilences(_ scene: AgentScene, source: String, silenced: [String], spared: [String],
                                        lock: () -> Void, unlock: () -> Void,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
            let started = Date()
            lock()
            let wereSilenced = scene.client.wait(timeout: 5) { _ in silenced.allSatisfy { scene.volume($0) == 0 } }
            Self.report("\(source) locked → \(silenced.joined(separator: ", ")) at gain 0 after "
                + (wereSilenced ? String(format: "%.3f s", Date().timeIntervalSince(started)) : "never"))
            #expect(wereSilenced, "\(describe(scene, silenced))", sourceLocation: sourceLocation)
            scene.client.pump(0.5)
            for name in silenced {
                #expect(scene.volume(name) == 0 && !scene.sinks(of: name).isEmpty,
                        "silenced, not held: \(describe(scene, [name]))", sourceLocation: sourceLocation)
            }
            for name in spared {
                #expect(scene.volume(name) == 1 && !scene.sinks(of: name).isEmpty,
                        "never silenced by the lock: \(describe(scene, [name]))", sourceLocation: sourceLocation)
            }
            let status = scene.agentStatus()?.screenLock
            #expect(status == ScreenLockStatus(locked: true, text: "locked (\(source))", silences: true),
                    "\(String(describing: status))", sourceLocation: sourceLocation)
            if let first = silenced.first {
                let explanation = try scene.status(first, sourceLocation: sourceLocation).explanation
                #expect(explanation.contains { $0.hasPrefix("silenced: the screen is locked (\(source); silent.while-locked)") },
                        "\(explanation)", sourceLocation: sourceLocation)
                Self.report("explain \(first): \(explanation.joined(separator: " / "))")
            }
            #expect(scene.log.contains("screen locked (\(source)): what silent mode silences is silenced (silent.while-locked)"),
                    "the screen-lock event", sourceLocation: sourceLocation)

            let ended = Date()
            unlock()
            let restored = scene.client.wait(timeout: 5) { _ in (silenced + spared).allSatisfy { scene.volume($0) == 1 } }
            Self.report("\(source) unlocked → back at gain 1 after "
                + (restored ? String(format: "%.3f s", Date().timeIntervalSince(ended)) : "never"))
            #expect(restored, "\(describe(scene, silenced + spared))", sourceLocation: sourceLocation)
            #expect(scene.agentStatus()?.screenLock?.locked == false, sourceLocation: sourceLocation)
            #expect(scene.log.contains("screen unlocked (\(source)): what the lock silenced sounds again"),
                    sourceLocation: sourceLocation)
        }

        @Test func kdeScreenSaverSilencesGamesAmbientAndAlertsNotTheMusic() throws {
            let scene = try AgentScene()
            let players = [try scene.play("music", role: "Music"), try scene.play("game", role: "Game"),
                           try scene.play("ambient", role: nil, properties: "{ policy.category=ambient }"),
                           try scene.play("alert", role: "Notification")]
            defer { players.forEach { $0.stop() } }
            for name in ["music", "game", "ambient", "alert"] {
                #expect(scene.waitForStatus(name) { $0.gain == 1 }, "\(name): \(String(describing: scene.polledStatus(name)))")
            }
            #expect(scene.agentStatus()?.screenLock?.text == "no lock mechanism answers")
            // The screen saver comes after the agent: followed from when it owns its name.
            let saver = try StandIn("screen-saver", ["freedesktop"], sandbox: scene.sandbox)
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.text == "unlocked (screen saver)" },
                    "\(String(describing: scene.agentStatus()?.screenLock))")
            try expectLockSilences(scene, source: "screen saver", silenced: ["game", "ambient", "alert"], spared: ["music"],
                                   lock: { saver.send("lock") }, unlock: { saver.send("unlock") })
            let text = try scene.cli(["status"]).stdout
            #expect(text.contains("Screen lock:") && text.contains("unlocked (screen saver)"), "\(text)")

            // Locked again, then the service goes away: nothing says locked any more.
            saver.send("lock")
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 0 })
            saver.stop()
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 1 && scene.volume("game") == 1 },
                    "\(describe(scene, ["alert", "game"]))")
            #expect(scene.agentStatus()?.screenLock?.text == "no lock mechanism answers")
        }

        @Test func gnomeScreenSaverLeavesTheCallAndTheRecordingAlone() throws {
            let scene = try AgentScene()
            // Something to record: WirePlumber 0.5 links a capture stream to
            // no sink's monitor when there is no source.
            try VirtualMicrophone.create(in: scene.sandbox, client: scene.client)
            let call = try scene.play("call", role: "Communication")
            defer { call.stop() }
            #expect(scene.waitForStatus("call") { $0.category == "play-and-record" && $0.gain == 1 },
                    "\(String(describing: scene.polledStatus("call")))")
            // Named after its file as pw-play's streams are (a media.name
            // given with -P is the stream's name from PipeWire 1.4 on).
            let recorder = try scene.sandbox.spawn(["pw-record", "-P", "{ node.name=recording }",
                                                    scene.sandbox.path("recording.wav")])
            defer { recorder.stop() }
            #expect(scene.waitForStatus("recording") { $0.category == "record" },
                    "\(String(describing: scene.polledStatus("recording")))")
            let saver = try StandIn("screen-saver", ["gnome"], sandbox: scene.sandbox)
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.text == "unlocked (GNOME)" })
            saver.send("lock")
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.locked == true })
            scene.client.pump(0.5)
            #expect(scene.volume("call") == 1 && !scene.sinks(of: "call").isEmpty, "\(describe(scene, ["call"]))")
            let recording = try scene.status("recording")
            #expect(recording.hold == nil && !recording.silenced && recording.gain == 1, "\(recording)")
            #expect(try scene.status("call").explanation.allSatisfy { !$0.contains("locked") })
            // A misbehaving service (a string where a boolean belongs) says nothing, logged once.
            saver.send("unlock")
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.locked == false })
            saver.send("wrong-type")
            saver.send("lock")
            scene.client.pump(0.5)
            #expect(scene.agentStatus()?.screenLock?.text == "no lock mechanism answers",
                    "\(String(describing: scene.agentStatus()?.screenLock))")
            let complaints = scene.log.components(separatedBy: "the screen lock of GNOME").count - 1
            #expect(complaints == 1, "logged once: \(complaints)")
        }

        @Test func logindLockedHintSilencesAmbientAndTheSettingTurnsItOff() throws {
            var systemBus: ChildProcess?
            var logind: StandIn?
            let scene = try AgentScene { sandbox in
                systemBus = try sandbox.startSystemBus()
                logind = try StandIn("screen-saver", ["logind"], sandbox: sandbox)
            }
            defer { logind?.stop(); systemBus?.stop() }
            let players = [try scene.play("music", role: "Music"),
                           try scene.play("ambient", role: nil, properties: "{ policy.category=ambient }")]
            defer { players.forEach { $0.stop() } }
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.text == "unlocked (logind)" },
                    "\(String(describing: scene.agentStatus()?.screenLock)); log:\n\(scene.log.suffix(2000))")
            try expectLockSilences(scene, source: "logind", silenced: ["ambient"], spared: ["music"],
                                   lock: { logind?.send("lock") }, unlock: { logind?.send("unlock") })

            // silent.while-locked = false: locked, and nothing silenced.
            let directory = scene.sandbox.environment["XDG_CONFIG_HOME"]! + "/pw-policy/pw-policy.conf.d"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "settings = { silent.while-locked = false }\n".write(toFile: directory + "/60-lock.conf", atomically: true,
                                                                      encoding: .utf8)
            kill(try #require(scene.agent).pid, SIGHUP)
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.silences == false })
            logind?.send("lock")
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.screenLock?.locked == true })
            scene.client.pump(0.5)
            #expect(scene.volume("ambient") == 1, "\(describe(scene, ["ambient"]))")
            #expect(scene.log.contains("screen locked (logind): nothing silenced (silent.while-locked = false)"))
        }
    }
}
