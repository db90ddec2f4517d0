import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// Silent mode follows the desktop's Do Not Disturb, each desktop's own
    /// mechanism driven by its real tool on the sandbox's private session
    /// bus: dunst (`dunstctl set-paused`), GNOME (`gsettings set … show-banners`
    /// through dconf-service), and KDE Plasma's `Inhibited` from a stand-in
    /// (`Tests/StandIns/plasma-notifications`; Debian has no headless
    /// Plasma). Checked by the streams' gains in the graph and the agent's
    /// published status (docs/POLICY.md, "Do Not Disturb"). How long each
    /// change took to reach the streams is printed as "do not disturb: …"
    /// lines, not asserted.
    @Suite(.serialized) struct DoNotDisturbTests {
        private static func report(_ line: String) { print("do not disturb: \(line)") }

        /// Music, a game mixing beside it and an alert, all at gain 1 with
        /// Do Not Disturb off.
        private func playMusicGameAndAlert(_ scene: AgentScene) throws -> [ChildProcess] {
            let players = [try scene.play("music", role: "Music"), try scene.play("game", role: "Game"),
                           try scene.play("alert", role: "Notification")]
            for name in ["music", "game", "alert"] {
                #expect(scene.waitForStatus(name) { $0.gain == 1 }, "\(name): \(String(describing: scene.polledStatus(name)))")
            }
            return players
        }

        private func volumes(_ scene: AgentScene, _ names: [String]) -> String {
            names.map { "\($0) \(scene.volume($0).map { String($0) } ?? "gone")" }.joined(separator: ", ")
        }

        /// Turns Do Not Disturb on with `on` and expects `silenced` at gain
        /// 0, `spared` at 1, the status following; then off with `off`,
        /// everything at 1 again.
        private func expectFollowing(_ scene: AgentScene, source: String, silenced: [String] = ["game", "alert"],
                                     spared: [String], on: () throws -> Void, off: () throws -> Void,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
            let started = Date()
            try on()
            let wereSilenced = scene.client.wait(timeout: 5) { _ in silenced.allSatisfy { scene.volume($0) == 0 } }
            let took = Date().timeIntervalSince(started)
            #expect(wereSilenced, "\(volumes(scene, silenced))", sourceLocation: sourceLocation)
            Self.report("\(source) on → \(silenced.joined(separator: " and ")) at gain 0 after \(wereSilenced ? String(format: "%.3f s", took) : "never")")
            for name in spared { #expect(scene.volume(name) == 1, "\(name) is never silenced", sourceLocation: sourceLocation) }
            let status = scene.agentStatus()
            #expect(status?.silentMode == true && status?.silentChoice == .follow, sourceLocation: sourceLocation)
            #expect(status?.silentModeReason == "following Do Not Disturb (on in \(source))",
                    "\(String(describing: status?.silentModeReason))", sourceLocation: sourceLocation)
            #expect(try scene.status("alert").explanation.contains { $0.contains("following Do Not Disturb (on in \(source))") },
                    sourceLocation: sourceLocation)

            let ended = Date()
            try off()
            let restored = scene.client.wait(timeout: 5) { _ in silenced.allSatisfy { scene.volume($0) == 1 } }
            #expect(restored, "\(volumes(scene, silenced))", sourceLocation: sourceLocation)
            for name in spared { #expect(scene.volume(name) == 1, "\(name) is never silenced", sourceLocation: sourceLocation) }
            Self.report("\(source) off → \(silenced.joined(separator: " and ")) back at gain 1 after \(restored ? String(format: "%.3f s", Date().timeIntervalSince(ended)) : "never")")
            #expect(scene.agentStatus()?.silentMode == false, sourceLocation: sourceLocation)
        }

        @Test func dunstPausedSilencesAndTheUsersChoiceWinsUntilItChanges() throws {
            let scene = try AgentScene()
            let players = try playMusicGameAndAlert(scene)
            defer { players.forEach { $0.stop() } }
            // dunst comes after the agent: it is followed from when it owns its name.
            let display = try XvfbDisplay(sandbox: scene.sandbox)
            try RealClient.require("dunst", package: "dunst")
            let dunst = try ChildProcess(["dunst"], environment: scene.sandbox.environment.merging(["DISPLAY": display.name]) { $1 },
                                               stderr: scene.sandbox.path("dunst.err"))
            defer { dunst.stop() }
            func dunstctl(_ arguments: [String]) throws -> Command.Result {
                try Command.run(["dunstctl"] + arguments, environment: scene.sandbox.environment, timeout: 10)
            }
            try #require(scene.sandbox.wait(timeout: 10) { (try? dunstctl(["is-paused"]).stdout.hasPrefix("false")) == true },
                         "dunst did not start: \((try? String(contentsOfFile: scene.sandbox.path("dunst.err"), encoding: .utf8)) ?? "")")
            // GNOME's key is there too (its schema is installed): off.
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.doNotDisturb == "off (GNOME, dunst)" },
                    "\(String(describing: scene.agentStatus()?.doNotDisturb))")

            try expectFollowing(scene, source: "dunst", spared: ["music"],
                                on: { _ = try dunstctl(["set-paused", "true"]) },
                                off: { _ = try dunstctl(["set-paused", "false"]) })

            // With Do Not Disturb on, the user's own switch wins until it changes again.
            _ = try dunstctl(["set-paused", "true"])
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 0 })
            let off = try scene.cli(["silent", "off"])
            #expect(off.status == 0 && off.stdout.contains("silent mode: off (set by the user)"), "\(off.stdout)\(off.stderr)")
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 1 }, "the user's off wins over Do Not Disturb")
            let follow = try scene.cli(["silent", "follow"])
            #expect(follow.stdout.contains("silent mode: on (following Do Not Disturb (on in dunst))"), "\(follow.stdout)\(follow.stderr)")
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 0 }, "following again")
            _ = try scene.cli(["silent", "off"])
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 1 })
            // Do Not Disturb changes: the user's choice ends.
            _ = try dunstctl(["set-paused", "false"])
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.silentChoice == .follow })
            _ = try dunstctl(["set-paused", "true"])
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 0 }, "following after Do Not Disturb changed")
            #expect(scene.volume("music") == 1)

            // dunst goes away: nothing says "do not disturb" any more.
            dunst.stop()
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 1 })
            #expect(scene.agentStatus()?.doNotDisturb == "off (GNOME)")
        }

        @Test func gnomeShowBannersOffSilencesAndLeavesTheCallAlone() throws {
            let scene = try AgentScene()
            try RealClient.require("gsettings", package: "libglib2.0-bin")
            try RealClient.require("/usr/libexec/dconf-service", package: "dconf-service")
            let alert = try scene.play("alert", role: "Notification")
            defer { alert.stop() }
            #expect(scene.waitForStatus("alert") { $0.gain == 1 })
            let call = try scene.play("call", role: "Communication")
            defer { call.stop() }
            #expect(scene.waitForStatus("call") { $0.category == "play-and-record" && $0.gain == 1 },
                    "\(String(describing: scene.polledStatus("call")))")
            func gsettings(_ value: String) throws {
                let result = try Command.run(["gsettings", "set", "org.gnome.desktop.notifications", "show-banners", value],
                                             environment: scene.sandbox.environment, timeout: 10)
                try #require(result.status == 0, "gsettings: \(result.stderr)")
            }
            try expectFollowing(scene, source: "GNOME", silenced: ["alert"], spared: ["call"], on: { try gsettings("false") }, off: { try gsettings("true") })
            // dconf's file holds what GSettings wrote: the agent read the real thing.
            let stored = try Command.run(["dconf", "read", "/org/gnome/desktop/notifications/show-banners"],
                                         environment: scene.sandbox.environment, timeout: 10)
            #expect(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "true")
        }

        @Test func plasmaInhibitedSilencesAndAMisbehavingServiceIsLoggedOnce() throws {
            let scene = try AgentScene()
            let players = try playMusicGameAndAlert(scene)
            defer { players.forEach { $0.stop() } }
            let output = scene.sandbox.path("plasma.out")
            let plasma = try ChildProcess([Sandbox.repositoryRoot + "/Tests/StandIns/plasma-notifications"],
                                                environment: scene.sandbox.environment, input: true,
                                                stdout: output, stderr: scene.sandbox.path("plasma.err"))
            defer { plasma.stop() }
            try #require(scene.sandbox.wait(timeout: 10) {
                ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("ready")
            }, "the stand-in did not start: \((try? String(contentsOfFile: scene.sandbox.path("plasma.err"), encoding: .utf8)) ?? "")")

            try expectFollowing(scene, source: "KDE Plasma", spared: ["music"],
                                on: { plasma.send(["on"]) }, off: { plasma.send(["off"]) })

            // Flapping (12 changes in a moment, ending on): not followed
            // while it flaps, logged once, silent mode as the user set it (off).
            plasma.send(Array(repeating: ["off", "on"], count: 6).flatMap { $0 })
            func misbehaviourLines() -> Int { scene.log.components(separatedBy: "Do Not Disturb of KDE Plasma").count - 1 }
            #expect(scene.client.wait(timeout: 5) { _ in misbehaviourLines() == 1 }, "the agent logged nothing about the flapping")
            #expect(scene.log.contains("flapping"))
            #expect(scene.client.wait(timeout: 5) { _ in scene.volume("alert") == 1 && scene.agentStatus()?.silentMode == false },
                    "alert \(String(describing: scene.volume("alert")))")
            scene.client.pump(0.5)
            #expect(misbehaviourLines() == 1, "logged once")
            plasma.stop()

            // A Plasma whose Inhibited is a double: unusable, logged once
            // (a new service gets a fresh start), not followed.
            let wrong = try ChildProcess([Sandbox.repositoryRoot + "/Tests/StandIns/plasma-notifications"],
                                               environment: scene.sandbox.environment, input: true,
                                               stdout: output + ".2", stderr: scene.sandbox.path("plasma.err"))
            defer { wrong.stop() }
            wrong.send(["wrong-type", "on", "off", "on"])
            #expect(scene.client.wait(timeout: 5) { _ in misbehaviourLines() == 2 }, "the agent logged nothing about the wrong type")
            #expect(scene.log.contains("a value that is not a boolean"))
            scene.client.pump(0.5)
            #expect(misbehaviourLines() == 2, "logged once")
            #expect(scene.volume("alert") == 1 && scene.agentStatus()?.silentMode == false)
        }
    }
}
