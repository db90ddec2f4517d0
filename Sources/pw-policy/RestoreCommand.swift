import ArgumentParser
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// `pw-policy restore`: undo what an agent that did not stop cleanly left.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Undo what a stopped agent left behind (the user unit's ExecStopPost).",
        discussion: """
        An agent that stops on SIGTERM or SIGINT restores everything itself. One \
        killed (SIGKILL, a crash, the OOM killer) leaves its gains, held streams and \
        the volumes WirePlumber saved under its gains until it starts again; this \
        undoes them from its journal ($XDG_RUNTIME_DIR/pw-policy/journal.json, or \
        $XDG_STATE_HOME/pw-policy/state.json without a runtime directory) and \
        exits. With an agent running it does nothing: that agent restores what it \
        changed when it stops.
        """)

    @OptionGroup var remote: RemoteOptions
    @Option(help: LogLevelName.help, completion: LogLevelName.completion)
    var logLevel = "notice"

    func validate() throws { try LogLevelName.validate(logLevel) }

    func run() throws {
        let launch = AgentLaunch(remote: remote.remote, dryRun: false, logLevel: Log.Level(name: logLevel) ?? .notice,
                                 restoreOnly: true)
        let status = launch.run(version: VersionCommand.number)
        if status != .ok { throw ExitCode(status) }
    }
}
