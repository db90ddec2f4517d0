import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire
import Testing

extension TimingSensitiveSuites {
    /// Issue 3 in the running agent: the config drives it, a reload takes effect,
    /// a bad reload keeps the last good config, a bad config refuses to start.
    /// And `--dry-run` changes nothing.
    @Suite(.serialized)
    struct AgentConfigTests {
        static let shipped = Sandbox.repositoryRoot + "/conf/pw-policy.conf"

        /// A private config directory holding a copy of the shipped config.
        private func configDirectory(duckLevel: String = "0.2") throws -> String {
            let directory = NSTemporaryDirectory() + "pw-policy-conf-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try writeConfig(directory, duckLevel: duckLevel)
            return directory
        }

        private func writeConfig(_ directory: String, duckLevel: String, name: String = "pw-policy.conf") throws {
            let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
                .replacingOccurrences(of: "duck.level = 0.2", with: "duck.level = \(duckLevel)")
            #expect(text.contains("duck.level = \(duckLevel)"))
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }

        /// The agent's latest published event, read through a fresh binding.
        private func lastEvent(_ scene: AgentScene) -> EventRecord? {
            (try? scene.freshRead { $0.metadata(named: AgentProtocol.metadataName)?.value(subject: 0, key: AgentProtocol.eventKey) })?
                .flatMap { try? JSONDecoder().decode(EventRecord.self, from: Data($0.utf8)) }
        }

        private func duckLevelSeen(_ scene: AgentScene, prompt: String) throws -> Float? {
            let player = try scene.play(prompt, role: nil, properties: "{ policy.category=playback policy.options=[ duck-others ] }",
                                        target: "headphones")
            defer { player.stop() }
            scene.client.pump(0.8)
            let level = scene.volume("music")
            player.stop()
            #expect(scene.waitForVolume("music", 1))
            return level
        }

        @Test func reloadOnSIGHUPAndOnFileChangeKeepingTheLastGoodConfig() throws {
            let directory = try configDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let scene = try AgentScene(agentEnvironment: ["PW_POLICY_CONFIG_DIR": directory])
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitForSinks("music", ["speakers"]))
            #expect(abs((try duckLevelSeen(scene, prompt: "prompt1") ?? 0) - 0.2) < 0.01)

            // A file change is picked up by itself (inotify), and said so.
            try writeConfig(directory, duckLevel: "0.5")
            #expect(scene.client.wait { _ in scene.log.contains("config reloaded (file changed): ") }, "\(scene.log)")
            #expect(scene.client.wait { _ in self.lastEvent(scene).map { $0.type == .configReloaded && $0.reason == "file-changed" } == true },
                    "\(String(describing: lastEvent(scene)))")
            #expect(!scene.log.contains("(SIGHUP)"), "\(scene.log)")
            #expect(abs((try duckLevelSeen(scene, prompt: "prompt2") ?? 0) - 0.5) < 0.01, "\(scene.log)")

            // A broken config is reported and the last good one stays in force.
            try "settings = { duck.level = 7 ".write(toFile: directory + "/pw-policy.conf", atomically: true, encoding: .utf8)
            kill(scene.agent!.pid, SIGHUP)
            scene.client.pump(0.6)
            #expect(scene.agent?.isRunning == true)
            #expect(scene.log.contains("config reload rejected"), "\(scene.log)")
            let status = try scene.cli(["status", "--json"])
            #expect(status.stdout.contains("pw-policy.conf:"), "the config error should show in status: \(status.stdout)")
            #expect(abs((try duckLevelSeen(scene, prompt: "prompt3") ?? 0) - 0.5) < 0.01)
        }

        /// SIGHUP alone reloads (`systemctl --user reload`, docs/CLI.md), told
        /// apart from a file-change reload in the log and the event. The config
        /// file is a link to a file in a directory the agent does not watch, so
        /// changing that file makes no file event (docs/CONFIG.md): the agent
        /// must not pick it up until the signal.
        @Test func aReloadBySIGHUPAloneTakesEffectAndSaysSo() throws {
            let directory = try configDirectory()
            let elsewhere = NSTemporaryDirectory() + "pw-policy-conf-target-\(UUID().uuidString)"
            defer { [directory, elsewhere].forEach { try? FileManager.default.removeItem(atPath: $0) } }
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            try writeConfig(elsewhere, duckLevel: "0.2", name: "linked.conf")
            try FileManager.default.removeItem(atPath: directory + "/pw-policy.conf")
            try FileManager.default.createSymbolicLink(atPath: directory + "/pw-policy.conf", withDestinationPath: elsewhere + "/linked.conf")
            let scene = try AgentScene(agentEnvironment: ["PW_POLICY_CONFIG_DIR": directory])
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitForSinks("music", ["speakers"]))
            #expect(abs((try duckLevelSeen(scene, prompt: "prompt1") ?? 0) - 0.2) < 0.01)

            // Changed where no watcher looks: still the old level well past the
            // watcher's debounce (0.2 s), so the reload below is the signal's.
            try writeConfig(elsewhere, duckLevel: "0.5", name: "linked.conf")
            scene.client.pump(0.8)
            #expect(!scene.log.contains("config reloaded"), "\(scene.log)")
            #expect(abs((try duckLevelSeen(scene, prompt: "prompt2") ?? 0) - 0.2) < 0.01, "a file event reloaded it:\n\(scene.log)")

            kill(try #require(scene.agent?.pid), SIGHUP)
            #expect(scene.client.wait { _ in scene.log.contains("config reloaded (SIGHUP): \(directory)/pw-policy.conf") }, "\(scene.log)")
            #expect(scene.client.wait { _ in self.lastEvent(scene).map { $0.type == .configReloaded && $0.reason == "SIGHUP" } == true },
                    "\(String(describing: lastEvent(scene)))")
            #expect(!scene.log.contains("(file changed)"), "\(scene.log)")
            #expect(abs((try duckLevelSeen(scene, prompt: "prompt3") ?? 0) - 0.5) < 0.01, "\(scene.log)")
            #expect(scene.agentStatus().map { $0.configError == nil } == true && scene.agent?.isRunning == true)
        }

        @Test func aBadConfigRefusesToStartWithExitCode78() throws {
            let sandbox = try Sandbox()
            let directory = sandbox.path("bad-conf")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "settings = { duck.lvl = 0.2 }\n".write(toFile: directory + "/pw-policy.conf", atomically: true, encoding: .utf8)
            let result = try Command.run([CLI.binary, "run", "-r", sandbox.remote],
                                         environment: sandbox.environment.merging(["PW_POLICY_CONFIG_DIR": directory]) { $1 },
                                         timeout: 10)
            #expect(result.status == 78)
            #expect(result.stderr.contains("pw-policy.conf:1:") && result.stderr.contains("duck.lvl"), "\(result.stderr)")
        }

        @Test func dryRunDecidesAndLogsButChangesNothing() throws {
            let scene = try AgentScene(agentArguments: ["--dry-run"])
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitForSinks("music", ["speakers"]))
            let prompt = try scene.play("prompt", role: nil, properties: "{ policy.category=playback policy.options=[ duck-others ] }")
            defer { prompt.stop() }
            #expect(scene.client.wait { _ in scene.log.contains("dry-run: would set gain") || scene.log.contains("dry-run: would ramp gain") }, "\(scene.log)")
            scene.client.pump(0.5)
            #expect(scene.volume("music") == 1, "a dry run changed the gain: \(scene.describe(["music"]))")
            #expect(try scene.status("music").gain == 0.2, "the decision is still published")
        }
    }
}
