#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyPipeWire
import PolicyFiles

/// What `pw-policy run` starts: the agent with its options. The command line
/// parses them, then hands over to the lean `pw-policy-agent` executable
/// (beside it in a build directory, in `<prefix>/libexec/pw-policy/` when
/// installed), which links no Foundation and keeps the long-running process
/// small (docs/PERFORMANCE.md, "Memory"); without that executable it runs
/// the agent itself, the same way.
public struct AgentLaunch: Sendable, Equatable {
    public var remote: String?
    public var dryRun: Bool
    public var logLevel: LogLevel
    /// `pw-policy restore`: undo what an agent that did not stop cleanly
    /// left (its journal), then exit, applying no policy.
    public var restoreOnly: Bool

    /// The name of the lean executable.
    public static let executableName = "pw-policy-agent"
    /// Where an install puts it, relative to the prefix (`/usr/bin/pw-policy`
    /// → `/usr/libexec/pw-policy/pw-policy-agent`): it is no command of its
    /// own, so it stays out of the PATH (docs/PACKAGING.md).
    public static let installedDirectory = "libexec/pw-policy"

    public init(remote: String?, dryRun: Bool, logLevel: LogLevel, restoreOnly: Bool = false) {
        self.remote = remote; self.dryRun = dryRun; self.logLevel = logLevel; self.restoreOnly = restoreOnly
    }

    /// The options as `pw-policy-agent run` takes them: in this one form only,
    /// since only `pw-policy run` starts it, after checking them.
    public var arguments: [String] {
        ["--log-level", String(logLevel.rawValue)] + (dryRun ? ["--dry-run"] : []) + (restoreOnly ? ["--restore-only"] : [])
            + (remote.map { ["--remote", $0] } ?? [])
    }

    /// Reads what `arguments` wrote; nil for anything else.
    public init?(arguments: [String]) {
        var remote: String?, dryRun = false, restoreOnly = false, logLevel: LogLevel?
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--dry-run": dryRun = true
            case "--restore-only": restoreOnly = true
            case "--remote": guard let value = rest.popFirst() else { return nil }; remote = value
            case "--log-level": guard let value = rest.popFirst(), let level = LogLevel(name: value) else { return nil }; logLevel = level
            default: return nil
            }
        }
        guard let logLevel else { return nil }
        self.init(remote: remote, dryRun: dryRun, logLevel: logLevel, restoreOnly: restoreOnly)
    }

    /// Replaces this process with `pw-policy-agent run …` (the first of
    /// `candidates` there is), keeping its pid and `argv[0]` (so the config
    /// is searched from the same place). Returns only when there is no such
    /// executable or it cannot be started.
    public func replaceProcess() {
        guard let directory = Self.thisExecutablesDirectory(),
              let executable = Self.candidates(besideDirectory: directory).first(where: { access($0, X_OK) == 0 })
        else { return }
        let argv = [CommandLine.arguments.first ?? "pw-policy", "run"] + arguments
        fflush(nil)
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(executable, cArguments)
        for argument in cArguments { free(argument) }
    }

    /// Where `pw-policy-agent` may be, in order, for a `pw-policy` in
    /// `directory`: beside it (a build directory), then under the install
    /// prefix (`<directory>/../libexec/pw-policy/`).
    public static func candidates(besideDirectory directory: String) -> [String] {
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let prefix = trimmed.lastIndex(of: "/").map { String(trimmed[..<$0]) } ?? ""
        return [trimmed + "/" + executableName, prefix + "/" + installedDirectory + "/" + executableName]
    }

    /// The directory of the running executable, symbolic links resolved.
    static func thisExecutablesDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// Runs the agent until SIGTERM/SIGINT or a fatal error.
    public func run(version: String) -> ExitStatus {
        let log = Log(level: logLevel)
        let loader = ConfigLocations.loader()
        let config: LoadedConfig
        do {
            config = try loader.load()
        } catch {
            log.error("refusing to start with a bad configuration:\n\(error)")
            return .config
        }
        let agent: Agent
        do {
            agent = try Agent(options: AgentOptions(remote: remote, dryRun: dryRun, version: version,
                                                    environment: currentEnvironment(), restoreOnly: restoreOnly),
                              config: config, loader: loader, log: log)
        } catch {
            log.error("refusing to start: \(error)")
            return .config
        }
        return restoreOnly ? agent.restoreLeftovers() : agent.run()
    }
}
