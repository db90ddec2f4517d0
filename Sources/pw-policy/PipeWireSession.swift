import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import PolicyCLI
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// A short-lived connection for one CLI command: connect, mirror, sync; then
/// read the agent's `pw-policy` metadata and write requests into it.
struct PipeWireSession {
    let loop: EventLoop
    let connection: Connection
    let mirror: GraphMirror
    private let farewell: Farewell

    /// Connects and mirrors the graph; fails with exit 69 and a one-line reason.
    /// A command that handles signals passes the loop it installed them on:
    /// connecting starts PipeWire's data-loop thread, which inherits this
    /// thread's signal mask, so they must be blocked (installed) before.
    static func open(remote: String?, timeout: Double = 5, loop: EventLoop = EventLoop()) throws(CLIFailure) -> PipeWireSession {
        let connection: Connection
        do {
            connection = try Connection(loop: loop, remote: remote, applicationName: "pw-policy-cli")
        } catch {
            throw CLIFailure(.unavailable, "\(error)")
        }
        let mirror = GraphMirror(connection: connection)
        guard mirror.waitForInitialSync(timeout: timeout) else {
            throw CLIFailure(.unavailable, connection.isConnected
                ? "PipeWire at '\(connection.remote)' did not answer within \(Int(timeout)) s"
                : "lost the connection to PipeWire at '\(connection.remote)'")
        }
        // The agent's entries come from the agent, after the daemon's round trips.
        _ = loop.run(timeout: min(timeout, 2)) {
            mirror.graph.metadata(named: AgentProtocol.metadataName).map(AgentProtocol.hasArrived) ?? true
        }
        return PipeWireSession(loop: loop, connection: connection, mirror: mirror, farewell: Farewell(mirror: mirror))
    }

    var remote: String { connection.remote }
    var graph: Graph { mirror.graph }
    var agentMetadata: Graph.Metadata? { graph.metadata(named: AgentProtocol.metadataName) }
    var snapshot: AgentSnapshot { AgentSnapshot(metadata: agentMetadata) }
    var streams: [StreamCandidate] { StreamCandidate.all(in: graph, snapshot: snapshot) }

    /// The `pw-policy` metadata's id, or the one-line "not running" failure.
    func requireAgent() throws(CLIFailure) -> UInt32 {
        guard let metadata = agentMetadata else { throw CLIFailure.agentNotRunning(remote: remote) }
        return metadata.id
    }

    /// Writes requests into the agent's metadata and waits until the daemon
    /// has them, so they are not lost when the command exits.
    func write(_ writes: [MetadataWrite]) throws(CLIFailure) {
        _ = try requireAgent()
        let actions = GraphActions(mirror: mirror)
        // A restricted (sandboxed) client may read the metadata but not write
        // it: the daemon refuses the write (Connection.isRefusal).
        var refused = false
        connection.onError = { _, result, _ in if Connection.isRefusal(result) { refused = true } }
        defer { connection.onError = nil }
        for write in writes {
            do {
                try actions.setMetadata(write)
            } catch {
                throw CLIFailure(.unavailable, "cannot write \(write.key) to the '\(AgentProtocol.metadataName)' metadata: \(error)")
            }
        }
        guard connection.roundTrip() else {
            throw CLIFailure(.unavailable, "PipeWire at '\(remote)' did not confirm the request")
        }
        if refused { throw CLIFailure.writeRefused(remote: remote) }
    }

    /// Lets events arrive until `condition` holds on the agent's state
    /// (false after `timeout` seconds): how commands see the agent's answer.
    @discardableResult
    func waitForAgent(timeout: Double = 2, until condition: (AgentSnapshot) -> Bool) -> Bool {
        loop.run(timeout: timeout) { condition(snapshot) || !connection.isConnected }
    }

    /// The outputs the graph shows, for when the agent has published none.
    var graphOutputs: [OutputStatus] { StatusPublisher.outputs(graph: graph) }

    /// The stack the graph shows, for when the agent has published none.
    var graphStack: StackStatus {
        StackStatus(PipeWireStack.observed(in: graph, linkedLibraryVersion: WirePlumberVersionProbe().version(pid:)))
    }
}

/// Keeps the connection, when the command is done, until the daemon has
/// finished every metadata bind we sent (see `GraphMirror.finishMetadataBinds`):
/// otherwise no `monitor` might see the agent's events again and no command
/// its confirmations.
private final class Farewell {
    let mirror: GraphMirror

    init(mirror: GraphMirror) { self.mirror = mirror }

    deinit { mirror.finishMetadataBinds() }
}
