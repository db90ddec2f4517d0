import Testing
import PolicyCore

/// `Graph.portPairs`: the one rule for which ports a link joins.
struct PortPairingTests {
    private func graph(output: [String], input: [String], outputIsSink: Bool = false) -> Graph {
        var graph = Graph()
        graph.nodes[1] = Graph.Node(id: 1, props: ["media.class": outputIsSink ? "Audio/Sink" : "Stream/Output/Audio"])
        graph.nodes[2] = Graph.Node(id: 2, props: ["media.class": "Audio/Sink"])
        for (index, channel) in output.enumerated() {
            graph.ports[10 + UInt32(index)] = Graph.Port(id: 10 + UInt32(index), nodeID: 1, direction: .output,
                                                         channel: channel, isMonitor: outputIsSink)
        }
        for (index, channel) in input.enumerated() {
            graph.ports[20 + UInt32(index)] = Graph.Port(id: 20 + UInt32(index), nodeID: 2, direction: .input, channel: channel)
        }
        return graph
    }

    private func pairs(_ graph: Graph) -> [[UInt32]] { graph.portPairs(output: 1, input: 2).map { [$0.output, $0.input] } }

    @Test func channelsPairByName() {
        #expect(pairs(graph(output: ["FR", "FL"], input: ["FL", "FR"])) == [[10, 21], [11, 20]])
    }

    @Test func monoFansOutAndIn() {
        #expect(pairs(graph(output: ["MONO"], input: ["FL", "FR"])) == [[10, 20], [10, 21]])
        #expect(pairs(graph(output: ["FL", "FR"], input: ["MONO"])) == [[10, 20], [11, 20]])
    }

    @Test func unknownChannelsPairByPosition() {
        #expect(pairs(graph(output: ["AUX0", "AUX1", "AUX2"], input: ["FL", "FR"])) == [[10, 20], [11, 21]])
    }

    @Test func aSinkIsCapturedThroughItsMonitorPorts() {
        #expect(pairs(graph(output: ["FL", "FR"], input: ["FL", "FR"], outputIsSink: true)) == [[10, 20], [11, 21]])
        #expect(pairs(graph(output: [], input: ["FL"])).isEmpty)
    }
}
