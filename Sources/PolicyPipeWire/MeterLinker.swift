import CPipeWire
import PolicyCore

/// Links each metered stream's output ports to its meter (`MeterLinks`),
/// on the meters' own thread (`ThreadConnection`), the moment the thread's
/// registry announces a port. The meter must be linked before WirePlumber
/// links the stream, or it starts after the stream's first sound; the
/// agent's loop may be in a reconcile then, and a link made there came
/// after WirePlumber's in one duck of forty (docs/PERFORMANCE.md, "Issue
/// 41's goals against a full run"). The agent's loop says which stream each
/// meter is on (`assign`); the links are made and dropped here.
public final class MeterLinker {
    // Everything below is touched on the connection's thread (the
    // registry's events) or under its lock (`assign`, deinit).

    private let connection: ThreadConnection
    /// Meter node → the stream it meters (nil: none).
    private var meters: [UInt32: UInt32?] = [:]
    /// The links we made, or asked for, by their ports.
    private var links: [MeterLinks.Ports: CreatedLink] = [:]

    public init(connection: ThreadConnection) {
        self.connection = connection
        connection.withLock {
            connection.registry.observe(by: self) { [unowned self] event in self.observed(event) }
        }
    }

    deinit {
        connection.withLock {
            connection.registry.stopObserving(self)
            links = [:]
        }
    }

    /// From now on each meter node in `meters` hears exactly its stream's
    /// output ports; what is missing is linked now, what is left is
    /// linked as its ports appear. The agent's loop says it on every
    /// reconcile (fades make one every 25 ms): the same again changes
    /// nothing, the registry's events having done the rest.
    func assign(_ meters: [UInt32: UInt32?]) {
        connection.withLock {
            guard meters != self.meters else { return }
            self.meters = meters
            apply()
        }
    }

    private func observed(_ event: ThreadRegistry.Event) {
        let concerned: Bool
        switch event {
        case .port(let port), .portRemoved(let port): concerned = concerns(port.nodeID)
        case .link(let link, _), .linkRemoved(let link): concerned = meters.keys.contains(link.inputNode)
        case .nodeRemoved: concerned = false
        }
        if concerned { apply() }
    }

    private func concerns(_ node: UInt32) -> Bool {
        meters.keys.contains(node) || meters.values.contains(node)
    }

    private func apply() {
        let graph = connection.registry.graph
        let changes = MeterLinks.changes(graph: graph, meters: meters, ours: Set(links.keys))
        for ports in changes.drop { links[ports] = nil }
        for id in changes.destroy { connection.registry.destroy(id) }
        for ports in changes.make {
            guard let output = graph.ports[ports.output], let input = graph.ports[ports.input],
                  let link = CreatedLink.make(on: connection.core, output: output, input: input,
                                              properties: ["link.passive": "true"])
            else { continue }
            link.onGone = { [unowned self] gone in
                if self.links[ports] === gone { self.links[ports] = nil }
            }
            links[ports] = link
        }
    }
}
