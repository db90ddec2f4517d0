/// The links from metered streams to the agent's meters (docs/POLICY.md,
/// "Ducking while audible"). The agent makes them itself, as soon as both
/// ends have their ports: a meter WirePlumber linked would be heard only
/// after WirePlumber's own latency for a new node, which is seconds beside
/// hundreds of streams, and every such node costs WirePlumber a rescan.
/// Every output port of the stream goes to the meter's one input port,
/// where PipeWire mixes them.
public enum MeterLinks {
    /// One link, by its two ports.
    public struct Ports: Sendable, Hashable, CustomStringConvertible {
        public var output: UInt32
        public var input: UInt32
        public init(output: UInt32, input: UInt32) { self.output = output; self.input = input }
        public var description: String { "\(output)→\(input)" }
    }

    public struct Changes: Sendable, Equatable {
        /// Links to make: they are missing and not on their way.
        public var make: [Ports] = []
        /// Links of ours to drop (by their ports): their stream is not the meter's any more.
        public var drop: [Ports] = []
        /// Links of others into a meter, by id: destroyed.
        public var destroy: [UInt32] = []
        public init(make: [Ports] = [], drop: [Ports] = [], destroy: [UInt32] = []) {
            self.make = make; self.drop = drop; self.destroy = destroy
        }
        public var isEmpty: Bool { make.isEmpty && drop.isEmpty && destroy.isEmpty }
    }

    /// What to change so that each meter node in `meters` (its node id →
    /// the stream it meters, nil: none) is linked from exactly its stream's
    /// output ports. `ours` are the links we asked for that we still hold,
    /// made or on their way.
    public static func changes(graph: Graph, meters: [UInt32: UInt32?], ours: Set<Ports>) -> Changes {
        var changes = Changes()
        var wanted = Set<Ports>()
        for (meter, stream) in meters.sorted(by: { $0.key < $1.key }) {
            guard let input = graph.ports(of: meter, direction: .input).first else { continue }
            let existing = graph.links(to: meter)
            if let stream {
                let outputs = graph.ports(of: stream, direction: .output).filter { !$0.isMonitor }
                for port in outputs {
                    let ports = Ports(output: port.id, input: input.id)
                    wanted.insert(ports)
                    if !ours.contains(ports), !existing.contains(where: { $0.outputPort == port.id && $0.inputPort == input.id }) {
                        changes.make.append(ports)
                    }
                }
            }
            for link in existing where !wanted.contains(Ports(output: link.outputPort, input: link.inputPort)) {
                if !ours.contains(Ports(output: link.outputPort, input: link.inputPort)) { changes.destroy.append(link.id) }
            }
        }
        changes.drop = ours.subtracting(wanted).sorted { ($0.output, $0.input) < ($1.output, $1.input) }
        return changes
    }

    /// The metered streams (of `meters`, as above) whose link to their
    /// meter failed: PipeWire could not agree on a format. They are judged
    /// by node state. Only the agent's graph knows a link's state.
    public static func failed(graph: Graph, meters: [UInt32: UInt32?]) -> Set<UInt32> {
        var failed = Set<UInt32>()
        for case let (meter, stream?) in meters
        where graph.links(to: meter).contains(where: { $0.state.failed && $0.outputNode == stream }) {
            failed.insert(stream)
        }
        return failed
    }
}
