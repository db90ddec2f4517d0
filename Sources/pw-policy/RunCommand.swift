import ArgumentParser
import PolicyCore
import PolicyAgent
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
    @Option(help: LogLevelName.help, completion: LogLevelName.completion)
    var logLevel = "info"
    /// Its log has no colour; taken like every command's that prints.
    @OptionGroup var color: ColorOptions

    func validate() throws { try LogLevelName.validate(logLevel) }

    func run() throws {
        let launch = AgentLaunch(remote: remote.remote, dryRun: dryRun, logLevel: Log.Level(name: logLevel) ?? .info)
        // The long-running agent is the lean executable beside this one
        // (docs/PERFORMANCE.md, "Memory"); this returns when there is none.
        launch.replaceProcess()
        let status = launch.run(version: VersionCommand.number)
        if status != .ok { throw ExitCode(status) }
    }
}
