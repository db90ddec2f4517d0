import ArgumentParser
import PolicyCLI

/// `pw-policy explain`: why a stream has its category and its gain or hold.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain why a stream has its category and its current gain or hold.",
        discussion: """
        Names the step that decided the category (override, the app's own properties, a \
        config rule, inference or the default) with the values it used, and for the current \
        effect the session that causes it and the interaction-matrix rule. Also lists the \
        stream properties rules can match on.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var display: DisplayOptions
    @OptionGroup var argument: StreamArgument

    func run() throws {
        try reportingFailures {
            let session = try PipeWireSession.open(remote: remote.remote)
            print(try PolicyReport.explain(argument.stream, graph: session.graph, json: display.json, style: display.style),
                  terminator: "")
            if !session.snapshot.isRunning { throw CLIFailure.agentNotRunning(remote: session.remote) }
        }
    }
}
