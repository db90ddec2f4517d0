import Testing
@testable import PolicyCore
import PolicyTestSupport

/// The links the agent makes from metered streams to its meters
/// (docs/POLICY.md, "Ducking while audible").
@Suite struct MeterLinksTests {
    /// Meter node 70 (input port 700) and streams 10 and 11, stereo
    /// (output ports 101 and 103, 111 and 113).
    static func graph() -> Graph {
        var graph = Graph()
        graph.addStream(10, channels: ["FL", "FR"])
        graph.addStream(11, channels: ["FL", "FR"])
        graph.nodes[70] = Graph.Node(id: 70, props: [Graph.Node.agentsOwnKey: "meter"], state: .idle)
        graph.ports[700] = Graph.Port(id: 700, nodeID: 70, direction: .input, channel: "MONO")
        return graph
    }

    static func link(_ id: UInt32, _ output: UInt32, from node: UInt32 = 10, state: Graph.LinkState = .active) -> Graph.Link {
        Graph.Link(id: id, outputNode: node, outputPort: output, inputNode: 70, inputPort: 700, state: state)
    }

    typealias Ports = MeterLinks.Ports

    @Test func everyOutputOfTheStreamGoesToTheMetersInput() {
        var graph = Self.graph()
        let changes = MeterLinks.changes(graph: graph, meters: [70: 10], ours: [])
        #expect(changes == .init(make: [Ports(output: 101, input: 700), Ports(output: 103, input: 700)]))
        // On their way: not asked for twice.
        #expect(MeterLinks.changes(graph: graph, meters: [70: 10], ours: Set(changes.make)).isEmpty)
        // Made: nothing to do.
        graph.links[80] = Self.link(80, 101)
        graph.links[81] = Self.link(81, 103)
        #expect(MeterLinks.changes(graph: graph, meters: [70: 10], ours: Set(changes.make)).isEmpty)
    }

    /// A meter whose node or port has not appeared, or a stream whose
    /// ports have not (WirePlumber configures them), waits for them.
    @Test func nothingIsLinkedBeforeBothEndsHavePorts() {
        var graph = Self.graph()
        #expect(MeterLinks.changes(graph: graph, meters: [71: 10], ours: []).isEmpty, "meter 71 has no port yet")
        graph.ports = graph.ports.filter { $0.value.nodeID != 10 }
        #expect(MeterLinks.changes(graph: graph, meters: [70: 10], ours: []).isEmpty)
    }

    /// A meter given to another stream hears only that one: the links from
    /// the stream it had go, ours dropped, anyone else's destroyed.
    @Test func aMeterHearsOnlyItsStream() {
        var graph = Self.graph()
        graph.links[80] = Self.link(80, 101)
        graph.links[81] = Self.link(81, 103)
        let ours: Set<Ports> = [Ports(output: 101, input: 700)]
        let changes = MeterLinks.changes(graph: graph, meters: [70: 11], ours: ours)
        #expect(changes == .init(make: [Ports(output: 111, input: 700), Ports(output: 113, input: 700)],
                                 drop: [Ports(output: 101, input: 700)], destroy: [81]))
        let freed = MeterLinks.changes(graph: graph, meters: [70: nil], ours: ours)
        #expect(freed == .init(drop: [Ports(output: 101, input: 700)], destroy: [81]))
        // Ours for a meter no longer there: dropped too.
        #expect(MeterLinks.changes(graph: graph, meters: [:], ours: ours) == .init(drop: [Ports(output: 101, input: 700)]))
    }

    /// A stream whose ports PipeWire cannot link to a meter (no common
    /// format) is judged by its node state.
    @Test func aFailedLinkFailsTheStreamsMeter() {
        var graph = Self.graph()
        graph.links[80] = Self.link(80, 101, state: .error)
        graph.links[81] = Self.link(81, 103)
        #expect(MeterLinks.failed(graph: graph, meters: [70: 10]) == [10])
        #expect(MeterLinks.changes(graph: graph, meters: [70: 10], ours: []).isEmpty)
        // Another stream's failed link into the meter fails no stream of its.
        #expect(MeterLinks.failed(graph: graph, meters: [70: 11]).isEmpty)
    }
}
