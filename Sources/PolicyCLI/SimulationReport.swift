import PolicyCore

/// `pw-policy simulate`: a pw-dump read, the agent run on it in memory
/// (`Simulation`), and what `status` or `explain` would then print.
public struct SimulationReport {
    public var output: String
    /// The dump's objects skipped or read in part.
    public var warnings: [String]

    /// `name`: the dump as the user gave it. `explain`: the stream to
    /// explain instead of the status.
    public init(dump bytes: [UInt8], name: String, config: LoadedConfig, identity: AgentCore.Identity,
                wirePlumberVersion: String? = nil, explain: String? = nil, json: Bool,
                style: TextStyle = .plain) throws(CLIFailure) {
        let dump: PipeWireDump
        do {
            dump = try PipeWireDump.parse(bytes)
        } catch {
            throw CLIFailure(.dataError, "\(name): \(error)")
        }
        let simulation: Simulation
        do {
            simulation = try Simulation(dump: dump, config: config, identity: identity, wirePlumberVersion: wirePlumberVersion)
        } catch {
            throw CLIFailure(.config, "\(error)")
        }
        let graph = simulation.daemon.graph
        var output = json ? "" : Self.header(name: name, assumptions: simulation.assumptions, style: style)
        if let explain {
            output += try PolicyReport.explain(explain, graph: graph, json: json, style: style)
        } else {
            let view = StatusView(remote: "simulated: \(name)", graph: graph, graphOutputs: StatusPublisher.outputs(graph: graph))
            output += PolicyReport.status(view, json: json, style: style)
        }
        self.output = output
        warnings = dump.warnings
    }

    static func header(name: String, assumptions: [String], style: TextStyle) -> String {
        style.bold("Simulated") + " on \(name), without PipeWire: the agent's first \(Int(Simulation.horizon)) s on this graph.\n"
            + "Assumed:\n" + assumptions.map { "    - \($0)\n" }.joined() + "\n"
    }
}
