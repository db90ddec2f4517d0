import Foundation
import PolicyCore
import PolicyPipeWire
import Testing

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

    private func writeConfig(_ directory: String, duckLevel: String) throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
            .replacingOccurrences(of: "duck.level = 0.2", with: "duck.level = \(duckLevel)")
        #expect(text.contains("duck.level = \(duckLevel)"))
        try text.write(toFile: directory + "/pw-policy.conf", atomically: true, encoding: .utf8)
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

        // A file change is picked up by itself (inotify).
        try writeConfig(directory, duckLevel: "0.5")
        scene.client.pump(0.6)
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
        #expect(scene.client.wait { _ in scene.log.contains("dry-run: would set gain") }, "\(scene.log)")
        scene.client.pump(0.5)
        #expect(scene.volume("music") == 1, "a dry run changed the gain: \(scene.describe(["music"]))")
        #expect(try scene.status("music").gain == 0.2, "the decision is still published")
    }
}
