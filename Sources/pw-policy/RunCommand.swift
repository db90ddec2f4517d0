import ArgumentParser
import Foundation
import PolicyCore
import PolicyPipeWire

/// `pw-policy run`: the agent.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the policy agent (what the systemd user unit starts).",
        discussion: """
        Connects to PipeWire, classifies every audio stream, applies the policy and \
        keeps applying it as streams and devices come and go. Logs to stderr with \
        journald priority prefixes. On SIGTERM/SIGINT every gain and hold is restored \
        before it exits; SIGHUP (or editing a config file) reloads the config.
        """)

    @OptionGroup var remote: RemoteOptions
    @Flag(help: "Decide and log what would be done, change nothing.")
    var dryRun = false
    @Option(help: "Log level: error, warning, notice, info or debug.")
    var logLevel = "info"

    func validate() throws {
        guard Log.Level(name: logLevel) != nil else {
            throw ValidationError("unknown log level '\(logLevel)'; expected error, warning, notice, info or debug")
        }
    }

    func run() throws {
        let log = Log(level: Log.Level(name: logLevel) ?? .info)
        let loader = ConfigLocations.loader()
        let config: LoadedConfig
        do {
            config = try loader.load()
        } catch {
            log.error("refusing to start with a bad configuration:\n\(error)")
            throw ExitCode(ExitStatus.config)
        }
        let agent: Agent
        do {
            agent = try Agent(options: AgentOptions(remote: remote.remote, dryRun: dryRun, version: VersionCommand.number,
                                                    environment: ProcessInfo.processInfo.environment),
                              config: config, loader: loader, log: log)
        } catch {
            log.error("refusing to start: \(error)")
            throw ExitCode(ExitStatus.config)
        }
        let status = agent.run()
        if status != .ok { throw ExitCode(status) }
    }
}
