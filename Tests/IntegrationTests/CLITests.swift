import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire
import Testing

/// The `pw-policy` command line, run as the built binary against a
/// sandbox: exit codes and one-line errors without the agent, help snapshots,
/// `check-config`. Every command against the real agent: CLIWithAgentTests.
enum CLI {
    /// The `pw-policy` built next to this test binary (never another
    /// scratch path's: it may be built against the other PipeWire stack).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["PW_POLICY_BINARY"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("pw-policy").path
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
    static let commands = ["", "status", "explain", "set", "unset", "silent", "resume", "monitor", "check-config", "launch", "simulate"]

    /// `PW_POLICY_UPDATE_SNAPSHOTS=1 scripts/test --filter CLIHelpTests` rewrites them.
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
        for command in Self.commands.dropFirst() + ["run", "restore", "version"] {
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

    /// A level the log cannot take is the caller's mistake (exit 64, as every
    /// other bad argument, docs/CLI.md), reported before the agent connects:
    /// a reachable PipeWire is there, so an agent that started anyway would
    /// be left running (exit 137 on the timeout) or exit otherwise.
    @Test(arguments: ["loud", "", "8", "debugg"])
    func anUnknownLogLevelIsAUsageError(level: String) throws {
        let result = try CLI.run(["run", "--log-level", level], in: sandbox, timeout: 5)
        #expect(result.status == 64, "exit \(result.status), stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: unknown log level '\(level)'; expected error, warning, notice, info or debug\n"),
                "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Usage: pw-policy run "), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")
        let client = try TestClient(sandbox: sandbox)
        #expect(client.graph.metadata(named: AgentProtocol.metadataName) == nil, "an agent started")
    }

    @Test func noPipeWireIsUnavailable() throws {
        let socket = sandbox.path("no-such-socket")
        let result = try Command.run([CLI.binary, "status", "-r", socket], environment: sandbox.environment, timeout: 15)
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("pw-policy: no PipeWire is running for this user (tried the socket \(socket));"),
                "stderr: \(result.stderr)")
    }
}

// MARK: - without PipeWire

/// With no PipeWire running for the user, a command says so, names
/// the socket it tried and how to start PipeWire, and exits 69 — not
/// libpipewire's errno ("Host is down"). And `-N` is taken by every command
/// that prints.
@Suite struct CLIWithoutPipeWireTests {
    let runtime = NSTemporaryDirectory() + "pw-policy-no-pipewire-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    }

    /// An empty runtime directory and nothing that points elsewhere.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(CLI.quietEnvironment) { $1 }
        for key in ["PIPEWIRE_REMOTE", "PIPEWIRE_RUNTIME_DIR"] { environment[key] = nil }
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["XDG_STATE_HOME"] = runtime + "/state"
        environment["PW_POLICY_CONFIG_DIR"] = Sandbox.repositoryRoot + "/conf"
        return environment
    }

    var message: String {
        "no PipeWire is running for this user (tried the socket \(runtime)/pipewire-0); "
            + "start it with 'systemctl --user start pipewire pipewire-pulse wireplumber'"
    }

    static let connecting = [["status"], ["explain", "1"], ["set", "1", "--category", "playback"], ["unset", "--app", "x"],
                             ["silent"], ["resume", "1"], ["monitor"], ["dump"], ["run"]]

    @Test(arguments: connecting)
    func everyCommandSaysThatNoPipeWireRuns(arguments: [String]) throws {
        let result = try Command.run([CLI.binary] + arguments, environment: environment, timeout: 15)
        #expect(result.status == 69, "exit \(result.status), stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")
        if arguments == ["run"] {
            // The agent logs with a journald priority and no program name.
            #expect(result.stderr == "<3>\(message)\n")
        } else {
            #expect(result.stderr == "pw-policy: \(message)\n")
        }
    }

    /// Parsed, then on to PipeWire (or done, for those that need none).
    @Test(arguments: connecting.map { $0 + ["-N"] } + [["status", "--no-color"], ["version", "-N"],
                                                          ["check-config", "-N", Sandbox.repositoryRoot + "/conf/pw-policy.conf"]])
    func everyCommandThatPrintsTakesNoColor(arguments: [String]) throws {
        let result = try Command.run([CLI.binary] + arguments, environment: environment, timeout: 15)
        #expect(!result.stderr.contains("Error:"), "stderr: \(result.stderr)")
        #expect(result.status == (["version", "check-config"].contains(arguments[0]) ? 0 : 69),
                "exit \(result.status), stderr: \(result.stderr)")
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
