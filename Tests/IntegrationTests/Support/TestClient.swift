import PolicyCore
import PolicyPipeWire

/// Our native client on a sandbox, driven synchronously by the test.
final class TestClient {
    let loop = EventLoop()
    let connection: Connection
    let mirror: GraphMirror
    let actions: GraphActions

    /// `properties` go to the client's (e.g. `pipewire.client.access`).
    init(sandbox: Sandbox, properties: [String: String] = [:]) throws {
        connection = try Connection(loop: loop, remote: sandbox.remote, applicationName: "pw-policy-test",
                                    properties: properties)
        mirror = GraphMirror(connection: connection)
        actions = GraphActions(mirror: mirror)
        guard mirror.waitForInitialSync() else { throw TestClientError.noInitialSync }
        // The agent's entries come from the agent, after the daemon's round trips.
        wait(timeout: 2) { graph in graph.metadata(named: AgentProtocol.metadataName).map(AgentProtocol.hasArrived) ?? true }
    }

    var graph: Graph { mirror.graph }

    /// Reads the graph through a new client. A client that stays bound to
    /// an exported metadata (the agent's, WirePlumber's `default` and
    /// `sm-settings`) misses its changes while another client binds it, so
    /// a read that must see the latest values binds anew. The new client
    /// stays until the daemon has finished its metadata binds: PipeWire
    /// 0.3.65 never forgets the bind of an exported metadata whose client
    /// left before the exporter answered, and then sends that metadata's
    /// changes to no settled client again (the CLI's Farewell does the same).
    /// Throws when no client can connect: a read that failed must not look
    /// like an empty graph.
    static func freshRead<T>(_ sandbox: Sandbox, _ read: (Graph) throws -> T) throws -> T {
        let reader = try TestClient(sandbox: sandbox)
        defer { reader.mirror.finishMetadataBinds(roundTripTimeout: 2) }
        return try read(reader.graph)
    }

    /// Iterates the loop until `condition` holds on the mirrored graph.
    @discardableResult
    func wait(timeout: Double = 5, until condition: (Graph) -> Bool) -> Bool {
        loop.run(timeout: timeout) { condition(mirror.graph) }
    }

    /// Lets the loop process events for `seconds`.
    func pump(_ seconds: Double) {
        _ = loop.run(timeout: seconds) { false }
    }

    /// Runs a command in the sandbox while this client's loop keeps turning:
    /// needed whenever the command talks to an object we export.
    @discardableResult
    func run(_ arguments: [String], in sandbox: Sandbox, timeout: Double = 10) throws -> Command.Result {
        try sandbox.run(arguments, timeout: timeout) { self.loop.iterate(timeout: 0.005) }
    }

    func node(named name: String) -> Graph.Node? {
        graph.nodes.values.first { $0.name == name }
    }

    /// The stream `Sandbox.play(tone:as:)` started as `name`.
    func stream(withMediaName name: String) -> Graph.Node? {
        graph.streams.first { $0.props["media.name"]?.hasSuffix("/\(name).wav") == true }
    }
}

enum TestClientError: Error { case noInitialSync }

extension Graph {
    /// Names of the nodes a node's output ports are linked to, but for the
    /// agent's own (its peak meters: docs/POLICY.md, "Ducking while audible").
    func linkedSinkNames(of node: UInt32) -> Set<String> {
        Set(links(from: node).compactMap { nodes[$0.inputNode] }.filter { !$0.isAgentsOwn }.compactMap(\.name))
    }
}
