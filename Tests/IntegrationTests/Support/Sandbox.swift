import Foundation
import PolicyTestSupport

/// A private PipeWire + WirePlumber started by `scripts/pw-sandbox` for one
/// test (or suite), stopped on `stop()`/deinit. Children get its environment
/// explicitly, so nothing here can reach a PipeWire the user runs.
final class Sandbox: @unchecked Sendable {
    let directory: String
    let environment: [String: String]

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The socket path: what `Connection(remote:)` and `-r` take.
    var remote: String { environment["PIPEWIRE_RUNTIME_DIR"]! + "/pipewire-0" }

    /// `roleLoopbacks`: WirePlumber's role-based policy on, from its own
    /// example config (`pw-sandbox start --role-loopbacks`); throws
    /// `SandboxError.notApplicable` where WirePlumber has none (0.4).
    init(pulse: Bool = false, roleLoopbacks: Bool = false) throws {
        let script = Sandbox.repositoryRoot + "/scripts/pw-sandbox"
        var base = ProcessInfo.processInfo.environment
        for key in ["PIPEWIRE_REMOTE", "PIPEWIRE_RUNTIME_DIR", "PULSE_SERVER", "DBUS_SESSION_BUS_ADDRESS"] {
            base[key] = nil
        }
        let options = (pulse ? ["--pulse"] : []) + (roleLoopbacks ? ["--role-loopbacks"] : [])
        let result = try Command.run([script, "start"] + options, environment: base, timeout: 30)
        if result.status == Self.notApplicableStatus {
            throw SandboxError.notApplicable(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard result.status == 0 else {
            throw SandboxError.startFailed(result.stderr)
        }
        var environment = base
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            let key = String(assignment[..<equals])
            environment[key] = Sandbox.unquote(String(assignment[assignment.index(after: equals)...]))
        }
        guard let directory = environment["PW_SANDBOX_DIR"] else { throw SandboxError.startFailed(result.stdout) }
        self.directory = directory
        self.environment = environment
    }

    /// `pw-sandbox start`'s exit status when the stack lacks what was asked for.
    static let notApplicableStatus: Int32 = 3

    /// `printf %q` output for the paths we generate: backslash escapes only.
    private static func unquote(_ value: String) -> String {
        var result = ""
        var escaped = false
        for character in value {
            if escaped { result.append(character); escaped = false } else if character == "\\" { escaped = true } else { result.append(character) }
        }
        return result
    }

    private var stopped = false
    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? Command.run([Sandbox.repositoryRoot + "/scripts/pw-sandbox", "stop", directory],
                             environment: environment, timeout: 10)
    }

    deinit { stop() }

    /// Runs a command inside the sandbox and waits for it.
    @discardableResult
    func run(_ arguments: [String], timeout: Double = 10, whileWaiting: (() -> Void)? = nil) throws -> Command.Result {
        try Command.run(arguments, environment: environment, timeout: timeout, whileWaiting: whileWaiting)
    }

    /// Starts a command inside the sandbox in the background.
    func spawn(_ arguments: [String], extraEnvironment: [String: String] = [:],
               stderr: String = "/dev/null") throws -> ChildProcess {
        try ChildProcess(arguments, environment: environment.merging(extraEnvironment) { $1 }, stderr: stderr)
    }

    /// Plays `tone` with pw-play under the media.name "<sandbox>/<name>.wav"
    /// (pw-play names a stream after its file), so tests can find it by name.
    /// Its stderr goes to `playerErrors(name)`.
    func play(tone: String, as name: String, role: String? = nil, properties: String? = nil,
              target: String? = nil) throws -> ChildProcess {
        let file = path("\(name).wav")
        if !FileManager.default.fileExists(atPath: file) { symlink(tone, file) }
        var arguments = ["pw-play"]
        if let role { arguments += ["--media-role", role] }
        if let properties { arguments += ["-P", properties] }
        if let target { arguments += ["--target", target] }
        return try spawn(arguments + [file], stderr: path("\(name).stderr"))
    }

    /// What the pw-play started by `play(…as: name)` printed on stderr.
    func playerErrors(_ name: String) -> String {
        (try? String(contentsOfFile: path("\(name).stderr"), encoding: .utf8)) ?? ""
    }

    /// Restarts PipeWire and WirePlumber at the same socket (after a test
    /// killed them); true when they are back with their sinks.
    func restartDaemons() throws -> Bool {
        try Command.run([Sandbox.repositoryRoot + "/scripts/pw-sandbox", "restart", directory],
                        environment: environment, timeout: 30).status == 0
    }

    /// The pid of one of the sandbox's daemons ("pipewire", "wireplumber").
    /// Kills WirePlumber and starts a new one on the same graph.
    func restartWirePlumber() throws -> Bool {
        try Command.run([Sandbox.repositoryRoot + "/scripts/pw-sandbox", "restart-wireplumber", directory],
                        environment: environment, timeout: 30).status == 0
    }

    func pid(of name: String) -> Int32? {
        guard let text = try? String(contentsOfFile: directory + "/pids", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == name { return Int32(parts[1]) }
        }
        return nil
    }

    /// A path for a temporary file inside the sandbox directory.
    func path(_ name: String) -> String { directory + "/" + name }

    /// `pw-dump` parsed.
    func dump() throws -> [[String: Any]] {
        let result = try run(["pw-dump"])
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return json as? [[String: Any]] ?? []
    }

    /// Waits (polling pw-dump/commands, test-side only) until `condition` holds.
    func wait(timeout: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }
}

enum SandboxError: Error {
    case startFailed(String)
    /// The stack cannot run what the test needs (why, in words): the test
    /// does not apply here.
    case notApplicable(String)
}
