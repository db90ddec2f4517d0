import ArgumentParser
import PolicyCLI

/// `pw-policy status`: what the agent is doing to every stream, as a tree.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the outputs, the sessions by category and what the policy does to each.",
        discussion: """
        Outputs are listed with the default one marked '*' and private ones (headphones, \
        headsets) marked. Sessions are grouped by category; each stream shows its node id, \
        app, direction, state, options, output and the policy's effect, e.g. \
        [gain 0.20 DUCKED by "Maps"], [HELD: interrupted by "Zoom", resumes] or [SILENCED]. \
        The agent section shows whether it runs, the PipeWire and WirePlumber versions \
        and whether the daemon offers native volume ramps, its config files and any \
        config error, and silent mode.

        When the agent is not running, the outputs and streams are still listed (without \
        policy), a one-line error goes to stderr and the exit status is 69.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var display: DisplayOptions

    func run() throws {
        try reportingFailures {
            let session = try PipeWireSession.open(remote: remote.remote)
            let view = StatusView(remote: session.remote, graph: session.graph, graphOutputs: session.graphOutputs,
                                  graphStack: session.graphStack)
            print(PolicyReport.status(view, json: display.json, style: display.style), terminator: "")
            if !view.snapshot.isRunning { throw CLIFailure.agentNotRunning(remote: session.remote) }
        }
    }
}
