import Foundation
import PolicyCore
import PolicyPipeWire
import Testing

/// Issue 6: the `pw-policy` command line, run as the built binary against a
/// sandbox: exit codes and one-line errors, `--json` parsed, help snapshots,
/// and every command against an agent.
enum CLI {
    /// The `pw-policy` built next to this test binary, else the default build.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["PW_POLICY_BINARY"] { return path }
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("pw-policy").path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        return Sandbox.repositoryRoot + "/.build/debug/pw-policy"
    }

    /// Deterministic output: no colours, help wrapped at 80 columns.
    static let quietEnvironment = ["NO_COLOR": "1", "COLUMNS": "80"]

    static func run(_ arguments: [String], in sandbox: Sandbox, timeout: Double = 15,
                    whileWaiting: (() -> Void)? = nil) throws -> Command.Result {
        try Command.run([binary] + arguments + ["-r", sandbox.remote],
                        environment: sandbox.environment.merging(quietEnvironment) { $1 },
                        timeout: timeout, whileWaiting: whileWaiting)
    }

    /// Without a sandbox (help, check-config).
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Command.Result {
        var base = ProcessInfo.processInfo.environment.merging(quietEnvironment) { $1 }
        base.merge(environment) { $1 }
        return try Command.run([binary] + arguments, environment: base, timeout: 15)
    }

    static func jsonArray(_ text: String) throws -> [[String: Any]] {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(parsed as? [[String: Any]], "not a JSON array: \(text)")
    }

    static let notRunning = "pw-policy: the agent is not running (no 'pw-policy' metadata on PipeWire at "
}

// MARK: - help text

@Suite struct CLIHelpTests {
    static let snapshotDirectory = Sandbox.repositoryRoot + "/Tests/Snapshots/cli-help"
    static let commands = ["", "status", "explain", "set", "unset", "silent", "resume", "monitor", "check-config"]

    /// `PW_POLICY_UPDATE_SNAPSHOTS=1 swift test --filter CLIHelpTests` rewrites them.
    @Test(arguments: commands)
    func helpMatchesSnapshot(command: String) throws {
        let result = try CLI.run((command.isEmpty ? [] : [command]) + ["--help"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let path = Self.snapshotDirectory + "/\(command.isEmpty ? "pw-policy" : command).txt"
        if ProcessInfo.processInfo.environment["PW_POLICY_UPDATE_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.snapshotDirectory, withIntermediateDirectories: true)
            try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let snapshot = try String(contentsOfFile: path, encoding: .utf8)
        #expect(result.stdout == snapshot, "help of '\(command)' changed; if intended, rerun with PW_POLICY_UPDATE_SNAPSHOTS=1")
    }

    @Test func everyCommandIsListedInTheMainHelp() throws {
        let help = try CLI.run(["--help"]).stdout
        for command in Self.commands.dropFirst() + ["run", "version"] {
            #expect(help.contains("  \(command) "), "'\(command)' missing from pw-policy --help")
        }
    }

    @Test func completionScriptsAreGenerated() throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try CLI.run(["--generate-completion-script", shell])
            #expect(result.status == 0)
            #expect(result.stdout.contains("check-config"), "\(shell) completion lacks check-config")
        }
    }
}

// MARK: - without the agent

@Suite(.serialized)
struct CLIWithoutAgentTests {
    let sandbox: Sandbox
    let tone: String

    init() throws {
        sandbox = try Sandbox()
        tone = sandbox.path("tone.wav")
        try Audio.writeTone(to: tone, seconds: 30)
    }

    private func expectAgentNotRunning(_ result: Command.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 69, "exit \(result.status), stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix(CLI.notRunning), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("start it with 'pw-policy run'"), sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "not one line: \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func statusStillListsOutputsAndStreams() throws {
        let player = try sandbox.play(tone: tone, as: "music", role: "Music")
        defer { player.stop() }
        let client = try TestClient(sandbox: sandbox)
        #expect(client.wait { _ in client.stream(withMediaName: "music") != nil })
        let stream = try #require(client.stream(withMediaName: "music"))
        let result = try CLI.run(["status"], in: sandbox)
        expectAgentNotRunning(result)
        #expect(result.stdout.contains("not running"))
        let speakers = result.stdout.split(separator: "\n").first { $0.contains(". Speakers") }
        #expect(speakers?.hasPrefix("  * ") == true, "stdout: \(result.stdout)")
        #expect(result.stdout.contains("\(stream.id). pw-play"), "stdout: \(result.stdout)")
    }

    @Test func statusJSONSaysTheAgentIsNotRunning() throws {
        let result = try CLI.run(["status", "--json"], in: sandbox)
        expectAgentNotRunning(result)
        let objects = try CLI.jsonArray(result.stdout)
        let agent = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        #expect(agent["running"] as? Bool == false)
        let outputs = objects.filter { $0["type"] as? String == "PwPolicy:Output" }
        let names = outputs.compactMap { ($0["info"] as? [String: Any])?["name"] as? String }
        #expect(Set(names) == ["speakers", "headphones"])
        let defaults = outputs.filter { ($0["info"] as? [String: Any])?["isDefault"] as? Bool == true }
        #expect(defaults.count == 1)
    }

    @Test func explainShowsPropertiesAndSaysTheAgentIsNotRunning() throws {
        let player = try sandbox.play(tone: tone, as: "music", role: "Music")
        defer { player.stop() }
        let client = try TestClient(sandbox: sandbox)
        #expect(client.wait { _ in client.stream(withMediaName: "music") != nil })
        let stream = try #require(client.stream(withMediaName: "music"))
        let result = try CLI.run(["explain", String(stream.id)], in: sandbox)
        expectAgentNotRunning(result)
        #expect(result.stdout.contains("media.role = \"Music\""), "stdout: \(result.stdout)")
    }

    @Test(arguments: [["set", "1", "--category", "playback"], ["unset", "--app", "x"], ["silent", "on"],
                      ["silent"], ["resume", "1"], ["monitor"]])
    func commandsThatNeedTheAgentSayItIsNotRunning(arguments: [String]) throws {
        expectAgentNotRunning(try CLI.run(arguments, in: sandbox))
    }

    @Test func anUnknownNameExitsOneWithASuggestion() throws {
        let player = try sandbox.play(tone: tone, as: "music", role: "Music", properties: "{ application.name = Spotify }")
        defer { player.stop() }
        let client = try TestClient(sandbox: sandbox)
        #expect(client.wait { _ in client.stream(withMediaName: "music") != nil })
        let stream = try #require(client.stream(withMediaName: "music"))
        let result = try CLI.run(["explain", "spotifi"], in: sandbox)
        #expect(result.status == 1)
        #expect(result.stderr == "pw-policy: no stream matches 'spotifi'; did you mean 'Spotify' (id \(stream.id))?\n")
    }

    @Test func aBadCategoryIsAUsageError() throws {
        let result = try CLI.run(["set", "1", "--category", "playbak"], in: sandbox)
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown category 'playbak'; did you mean 'playback'?"), "stderr: \(result.stderr)")
        let both = try CLI.run(["set", "1", "--app", "x", "--category", "playback"], in: sandbox)
        #expect(both.status == 64)
        let unknownOption = try CLI.run(["status", "--bogus"], in: sandbox)
        #expect(unknownOption.status == 64)
    }

    @Test func noPipeWireIsUnavailable() throws {
        let result = try Command.run([CLI.binary, "status", "-r", sandbox.path("no-such-socket")],
                                     environment: sandbox.environment, timeout: 15)
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("pw-policy: cannot connect to PipeWire at"), "stderr: \(result.stderr)")
    }
}

// MARK: - check-config

@Suite struct CheckConfigTests {
    let directory = NSTemporaryDirectory() + "pw-policy-check-config-\(UUID().uuidString)"
    var shipped: String { Sandbox.repositoryRoot + "/conf/pw-policy.conf" }

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @Test func theShippedConfigIsValidAndItsJSONParses() throws {
        let result = try CLI.run(["check-config", shipped, "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == true)
        #expect(object["files"] as? [String] == [shipped])
        #expect((object["config"] as? [String: Any])?["settings"] is [String: Any])
    }

    @Test func theSearchPathIsUsedWithoutAFile() throws {
        try FileManager.default.createDirectory(atPath: directory + "/pw-policy.conf.d", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: shipped, toPath: directory + "/pw-policy.conf")
        try "settings = { duck.level = 0.35 }\n".write(toFile: directory + "/pw-policy.conf.d/50-mine.conf", atomically: true, encoding: .utf8)
        let result = try CLI.run(["check-config"], environment: ["PW_POLICY_CONFIG_DIR": directory])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("#   \(directory)/pw-policy.conf.d/50-mine.conf"))
        #expect(result.stdout.contains("duck.level = 0.35"))
    }

    @Test func aBadFileExitsSeventyEightWithItsPlace() throws {
        // The shipped file with one out-of-range level.
        var lines = try String(contentsOfFile: shipped, encoding: .utf8).components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("duck.level") })
        lines[index] = "    duck.level = 7"
        let bad = directory + "/bad.conf"
        try lines.joined(separator: "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try CLI.run(["check-config", bad])
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("\(bad):\(index + 1):"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let json = try CLI.run(["check-config", bad, "--json"])
        #expect(json.status == 78)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        let first = try #require((object["errors"] as? [[String: Any]])?.first)
        #expect(first["file"] as? String == bad && first["line"] as? Int == index + 1)
        #expect((first["column"] as? Int ?? 0) > 0)
    }

    @Test func aMissingFileIsAConfigError() throws {
        let result = try CLI.run(["check-config", directory + "/nope.conf"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("nope.conf"))
    }
}

// MARK: - against a stand-in agent

/// Publishes in its own `pw-policy` metadata what the agent would, and answers
/// requests the way AgentProtocol says the agent does: the CLI's side of the
/// protocol, tested without depending on the agent's decisions.
final class FakeAgent {
    let client: TestClient
    let metadataID: UInt32
    var status = AgentStatus(pid: 4242, version: "0.1.0", startedAt: "1.0", configFiles: ["/etc/pw-policy/pw-policy.conf"],
                             configError: nil, dryRun: false, silentMode: false)
    var streams: [UInt32: StreamStatus] = [:]
    private var seq: UInt64 = 0

    init(sandbox: Sandbox) throws {
        client = try TestClient(sandbox: sandbox)
        try client.actions.exportMetadata(named: AgentProtocol.metadataName)
        guard client.wait(until: { $0.metadata(named: AgentProtocol.metadataName) != nil }),
              let id = client.graph.metadata(named: AgentProtocol.metadataName)?.id else { throw FakeAgentError.noMetadata }
        metadataID = id
        publishStatus()
        publish(0, AgentProtocol.outputsKey, [
            OutputStatus(id: 1000, name: "speakers", description: "Speakers", isPrivate: false, isAvailable: true, isDefault: true),
        ])
    }

    func entry(_ subject: UInt32, _ key: String) -> String? {
        client.graph.metadata(named: AgentProtocol.metadataName)?.value(subject: subject, key: key)
    }

    func set(_ subject: UInt32, _ key: String, _ value: String?) {
        try? client.actions.setMetadata(metadataID, subject: subject, key: key, type: value == nil ? nil : AgentProtocol.jsonType, value: value)
    }

    func publish<T: Encodable>(_ subject: UInt32, _ key: String, _ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        set(subject, key, String(decoding: try! encoder.encode(value), as: UTF8.self))
    }

    func publishStatus() { publish(0, AgentProtocol.agentKey, status) }

    func publish(stream: StreamStatus) {
        streams[stream.id] = stream
        publish(stream.id, AgentProtocol.streamKey, stream)
    }

    func emit(_ type: String, _ text: String) {
        seq += 1
        publish(0, AgentProtocol.eventKey, EventRecord(seq: seq, type: type, text: text))
    }

    /// What the agent does with requests: echo silent mode, take overrides, handle resumes.
    func answerRequests() {
        if let raw = entry(0, AgentProtocol.silentModeKey), (raw == "true") != status.silentMode {
            status.silentMode = raw == "true"
            publishStatus()
        }
        for (id, var stream) in streams {
            let category = entry(id, AgentProtocol.categoryKey)
            let overridden = stream.source == "override"
            if let category, stream.category != category || !overridden {
                stream.category = category
                stream.source = "override"
                publish(stream: stream)
            } else if category == nil, overridden {
                stream.category = "playback"
                stream.source = "inference"
                publish(stream: stream)
            }
            if entry(id, AgentProtocol.resumeKey) != nil {
                stream.hold = nil
                stream.gain = 1
                publish(stream: stream)
                set(id, AgentProtocol.resumeKey, nil)
            }
        }
    }

    /// Runs the CLI while this stand-in keeps its loop turning and answers.
    func cli(_ arguments: [String], in sandbox: Sandbox) throws -> Command.Result {
        try CLI.run(arguments, in: sandbox) {
            self.client.loop.iterate(timeout: 0.005)
            self.answerRequests()
        }
    }

    static func stream(_ id: UInt32, app: String, gain: Double = 1, hold: StreamStatus.Hold? = nil,
                       duckedBy: [StreamStatus.Ducker] = []) -> StreamStatus {
        StreamStatus(id: id, app: app, appKey: app.lowercased(), session: "pid:\(id)/playback", direction: "playback",
                     state: "running", category: "playback", options: [], mode: "default", exempt: false,
                     source: "inference", reason: "media.role = \"Music\" → playback", warnings: [], gain: gain,
                     hold: hold, silenced: false, duckedBy: duckedBy, output: "speakers",
                     explanation: duckedBy.isEmpty ? ["full gain: nothing holds, ducks or silences it"] : ["ducked to 0.20 by \"Maps\" (rule 15)"])
    }
}

enum FakeAgentError: Error { case noMetadata }

@Suite(.serialized)
struct CLIWithFakeAgentTests {
    let sandbox: Sandbox
    let tone: String

    init() throws {
        sandbox = try Sandbox()
        tone = sandbox.path("tone.wav")
        try Audio.writeTone(to: tone, seconds: 30)
    }

    /// A real stream for the stand-in to describe, so names resolve against the graph.
    private func playing(_ name: String, app: String, agent: FakeAgent) throws -> (Command.Background, UInt32) {
        let player = try sandbox.play(tone: tone, as: name, role: "Music", properties: "{ application.name = \(app) }")
        #expect(agent.client.wait { _ in agent.client.stream(withMediaName: name) != nil })
        let id = try #require(agent.client.stream(withMediaName: name)?.id)
        return (player, id)
    }

    @Test func statusShowsTheAgentAndEachEffect() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        let (player, id) = try playing("music", app: "Spotify", agent: agent)
        defer { player.stop() }
        agent.publish(stream: FakeAgent.stream(id, app: "Spotify", gain: 0.2, duckedBy: [.init(session: "s", app: "Maps")]))
        let result = try agent.cli(["status"], in: sandbox)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("running (pid 4242, version 0.1.0)"), "stdout: \(result.stdout)")
        #expect(result.stdout.contains("/etc/pw-policy/pw-policy.conf"))
        let line = result.stdout.split(separator: "\n").first { $0.contains("\(id). Spotify") }
        #expect(line?.hasSuffix("[gain 0.20 DUCKED by \"Maps\"]") == true, "stdout: \(result.stdout)")

        let json = try agent.cli(["status", "--json"], in: sandbox)
        #expect(json.status == 0)
        let objects = try CLI.jsonArray(json.stdout)
        let stream = try #require(objects.first { $0["id"] as? Int == Int(id) && $0["type"] as? String == "PwPolicy:Stream" })
        let info = try #require(stream["info"] as? [String: Any])
        #expect(info["gain"] as? Double == 0.2)
        #expect(info["effect"] as? String == "gain 0.20 DUCKED by \"Maps\"")
    }

    @Test func explainByNameGivesTheReason() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        let (player, id) = try playing("music", app: "Spotify", agent: agent)
        defer { player.stop() }
        agent.publish(stream: FakeAgent.stream(id, app: "Spotify"))
        let result = try agent.cli(["explain", "spotify"], in: sandbox)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("media.role = \"Music\" → playback"))
        #expect(result.stdout.contains("built-in inference"))
        let json = try agent.cli(["explain", String(id), "--json"], in: sandbox)
        let info = try #require(try CLI.jsonArray(json.stdout).first?["info"] as? [String: Any])
        #expect(info["reason"] as? String == "media.role = \"Music\" → playback")
        #expect((info["props"] as? [String: String])?["application.name"] == "Spotify")
    }

    @Test func setAndUnsetAStreamOverride() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        let (player, id) = try playing("music", app: "Spotify", agent: agent)
        defer { player.stop() }
        agent.publish(stream: FakeAgent.stream(id, app: "Spotify"))
        let set = try agent.cli(["set", "Spotify", "--category", "ambient", "--options", "mix-with-others"], in: sandbox)
        #expect(set.status == 0, "stderr: \(set.stderr)")
        #expect(set.stdout == "stream \(id) \"Spotify\": ambient [mix-with-others] while the stream lasts\n")
        #expect(agent.entry(id, AgentProtocol.categoryKey) == "ambient")
        #expect(agent.entry(id, AgentProtocol.optionsKey) == "[\"mix-with-others\"]")
        #expect(agent.entry(id, AgentProtocol.modeKey) == nil)

        let unset = try agent.cli(["unset", String(id)], in: sandbox)
        #expect(unset.status == 0, "stderr: \(unset.stderr)")
        #expect(agent.entry(id, AgentProtocol.categoryKey) == nil)
        #expect(agent.entry(id, AgentProtocol.optionsKey) == nil)
        let again = try agent.cli(["unset", String(id)], in: sandbox)
        #expect(again.status == 1)
        #expect(again.stderr == "pw-policy: stream \(id) \"Spotify\" has no override\n")
    }

    @Test func setAndUnsetAnAppOverride() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        let set = try agent.cli(["set", "--app", "org.gnome.Maps", "--category", "playback", "--options", "duck-others",
                                 "--mode", "spoken-audio", "--persist"], in: sandbox)
        #expect(set.status == 0, "stderr: \(set.stderr)")
        let raw = try #require(agent.entry(0, AgentProtocol.appOverrideKey("org.gnome.Maps")))
        let request = try JSONDecoder().decode(AppOverrideRequest.self, from: Data(raw.utf8))
        #expect(request == AppOverrideRequest(category: "playback", options: ["duck-others"], mode: "spoken-audio", persist: true))
        #expect(set.stdout.hasPrefix("app 'org.gnome.Maps': playback [duck-others] mode spoken-audio, remembered across restarts"))

        let typo = try agent.cli(["unset", "--app", "org.gnome.Mapz"], in: sandbox)
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("did you mean 'org.gnome.Maps'?"), "stderr: \(typo.stderr)")
        let unset = try agent.cli(["unset", "--app", "org.gnome.Maps"], in: sandbox)
        #expect(unset.status == 0, "stderr: \(unset.stderr)")
        #expect(agent.entry(0, AgentProtocol.appOverrideKey("org.gnome.Maps")) == nil)
    }

    @Test func badValuesAreRejectedBeforeAnythingIsWritten() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        let result = try agent.cli(["set", "--app", "x", "--category", "playback", "--options", "duck-everyone"], in: sandbox)
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown option 'duck-everyone'"))
        #expect(agent.entry(0, AgentProtocol.appOverrideKey("x")) == nil)
    }

    @Test func silentModeOnOffToggleStatus() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        #expect(try agent.cli(["silent", "status"], in: sandbox).stdout == "silent mode: off\n")
        let on = try agent.cli(["silent", "on"], in: sandbox)
        #expect(on.status == 0 && on.stdout == "silent mode: on\n", "stdout: \(on.stdout) stderr: \(on.stderr)")
        #expect(agent.entry(0, AgentProtocol.silentModeKey) == "true")
        #expect(agent.status.silentMode)
        _ = try agent.cli(["silent", "toggle"], in: sandbox)
        #expect(agent.entry(0, AgentProtocol.silentModeKey) == "false")
        let json = try agent.cli(["silent", "--json"], in: sandbox)
        let info = try #require(try CLI.jsonArray(json.stdout).first?["info"] as? [String: Any])
        #expect(info["silentMode"] as? Bool == false)
    }

    @Test func resumeAsksTheAgentAndReportsTheOutcome() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        let (player, id) = try playing("music", app: "Spotify", agent: agent)
        defer { player.stop() }
        agent.publish(stream: FakeAgent.stream(id, app: "Spotify", gain: 0,
                                               hold: .init(kind: "route-lost", resumable: false, output: "headphones")))
        let status = try agent.cli(["status"], in: sandbox)
        #expect(status.stdout.contains("[HELD: output \"headphones\" went away; 'pw-policy resume \(id)' continues it]"))
        let result = try agent.cli(["resume", String(id)], in: sandbox)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "stream \(id) \"Spotify\" resumed\n")
        let notHeld = try agent.cli(["resume", String(id)], in: sandbox)
        #expect(notHeld.stdout.contains("is not held"))
    }

    @Test func monitorPrintsEachEventAsItHappens() throws {
        let agent = try FakeAgent(sandbox: sandbox)
        agent.emit("config-reloaded", "old news")
        let output = sandbox.path("monitor.out")
        let monitor = try Command.Background([CLI.binary, "monitor", "--json", "-r", sandbox.remote],
                                             environment: sandbox.environment.merging(CLI.quietEnvironment) { $1 },
                                             stdout: output, stderr: sandbox.path("monitor.err"))
        func lines() -> [String] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        // Probe until the monitor prints (it has connected and bound our
        // metadata by then), then send the events under test.
        var probes = 0
        let ready = agent.client.loop.run(timeout: 10) {
            if !lines().isEmpty { return true }
            if probes < 50 { probes += 1; agent.emit("config-reloaded", "probe \(probes)") }
            agent.client.pump(0.2)
            return !lines().isEmpty
        }
        #expect(ready, "monitor printed nothing; stderr: \((try? String(contentsOfFile: sandbox.path("monitor.err"), encoding: .utf8)) ?? "")")
        agent.client.pump(0.5)
        let before = lines().count
        agent.emit("duck-began", "\"Spotify\" ducked to 0.20 by \"Maps\"")
        #expect(agent.client.loop.run(timeout: 5) { lines().count >= before + 1 }, "monitor printed: \(lines())")
        agent.emit("duck-ended", "\"Spotify\" no longer ducked")
        #expect(agent.client.loop.run(timeout: 5) { lines().count >= before + 2 }, "monitor printed: \(lines())")
        kill(monitor.pid, SIGINT)
        let exited = monitor.waitForExit(timeout: 5) { agent.client.loop.iterate(timeout: 0.005) }
        #expect(exited && monitor.exitStatus == 0, "exit status \(String(describing: monitor.exitStatus))")
        let events = try lines().map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let types = events.compactMap { ($0["info"] as? [String: Any])?["type"] as? String }
        #expect(!types.contains { $0 != "config-reloaded" && $0 != "duck-began" && $0 != "duck-ended" })
        #expect(Array(types.suffix(2)) == ["duck-began", "duck-ended"])
        // Each event once, in order: the "old news" event before the monitor started is not among them.
        let ids = events.compactMap { $0["id"] as? Int }
        #expect(ids == Array(ids.sorted()) && Set(ids).count == ids.count && !ids.contains(1))
    }
}

// MARK: - against the real agent

@Suite(.serialized)
struct CLIWithAgentTests {
    let sandbox: Sandbox
    let tone: String
    let agent: Command.Background

    init() throws {
        sandbox = try Sandbox()
        tone = sandbox.path("tone.wav")
        try Audio.writeTone(to: tone, seconds: 30)
        agent = try sandbox.spawn([CLI.binary, "run", "-r", sandbox.remote])
        let sandbox = sandbox
        _ = sandbox.wait(timeout: 10) { (try? CLI.run(["status"], in: sandbox).status) == 0 }
    }

    private func status() throws -> [[String: Any]] {
        try CLI.jsonArray(try CLI.run(["status", "--json"], in: sandbox).stdout)
    }

    private func stream(_ id: UInt32) throws -> [String: Any]? {
        try status().first { $0["id"] as? Int == Int(id) && $0["type"] as? String == "PwPolicy:Stream" }?["info"] as? [String: Any]
    }

    @Test func statusReportsTheRunningAgentAndClassifiedStreams() throws {
        let player = try sandbox.play(tone: tone, as: "music", role: "Music")
        defer { player.stop() }
        let client = try TestClient(sandbox: sandbox)
        #expect(client.wait { _ in client.stream(withMediaName: "music") != nil })
        let id = try #require(client.stream(withMediaName: "music")?.id)
        #expect(sandbox.wait(timeout: 5) { (try? stream(id))??["category"] as? String == "playback" })
        let agentInfo = try #require(try status().first?["info"] as? [String: Any])
        #expect(agentInfo["running"] as? Bool == true)
        #expect(agentInfo["pid"] as? Int == Int(agent.pid))
        let text = try CLI.run(["status"], in: sandbox)
        #expect(text.status == 0 && text.stdout.contains("\(id). pw-play"))
    }

    @Test func setChangesTheCategoryAndUnsetRestoresIt() throws {
        let player = try sandbox.play(tone: tone, as: "music", role: "Music")
        defer { player.stop() }
        let client = try TestClient(sandbox: sandbox)
        #expect(client.wait { _ in client.stream(withMediaName: "music") != nil })
        let id = try #require(client.stream(withMediaName: "music")?.id)
        let set = try CLI.run(["set", String(id), "--category", "ambient"], in: sandbox)
        #expect(set.status == 0 && !set.stdout.contains("not confirmed"), "stdout: \(set.stdout) stderr: \(set.stderr)")
        #expect(try stream(id)?["source"] as? String == "override")
        #expect(try stream(id)?["category"] as? String == "ambient")
        let explain = try CLI.run(["explain", String(id)], in: sandbox)
        #expect(explain.stdout.contains("runtime override"))
        let unset = try CLI.run(["unset", String(id)], in: sandbox)
        #expect(unset.status == 0)
        #expect(try stream(id)?["source"] as? String != "override")
    }

    @Test func silentModeIsAppliedAndReported() throws {
        let on = try CLI.run(["silent", "on"], in: sandbox)
        #expect(on.stdout == "silent mode: on\n", "stdout: \(on.stdout) stderr: \(on.stderr)")
        let agentInfo = try #require(try status().first?["info"] as? [String: Any])
        #expect(agentInfo["silentMode"] as? Bool == true)
        #expect(try CLI.run(["silent", "off"], in: sandbox).stdout == "silent mode: off\n")
    }

    @Test func monitorSeesAStreamBeingClassified() throws {
        let output = sandbox.path("monitor.out")
        let monitor = try Command.Background([CLI.binary, "monitor", "-r", sandbox.remote],
                                             environment: sandbox.environment.merging(CLI.quietEnvironment) { $1 },
                                             stdout: output)
        defer { monitor.stop(signal: SIGINT) }
        _ = sandbox.wait(timeout: 1) { false }
        let player = try sandbox.play(tone: tone, as: "music", role: "Music")
        defer { player.stop() }
        let seen = sandbox.wait(timeout: 5) {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("stream-classified")
        }
        #expect(seen)
    }
}
