extension Graph {
    /// Which output port of `output` goes to which input port of `input`,
    /// the way WirePlumber pairs them: by `audio.channel`; a mono side fans
    /// out or in; otherwise by position. A sink offers its monitor ports as
    /// outputs (capturing what it plays). The one rule for the agent's links
    /// and the in-memory daemon's.
    public func portPairs(output: UInt32, input: UInt32) -> [(output: UInt32, input: UInt32)] {
        let fromSink = nodes[output]?.isAudioSink == true
        let outputs = ports(of: output, direction: .output).filter { $0.isMonitor == fromSink }
        let inputs = ports(of: input, direction: .input)
        guard !outputs.isEmpty, !inputs.isEmpty else { return [] }
        if outputs.count == 1 { return inputs.map { (outputs[0].id, $0.id) } }
        if inputs.count == 1 { return outputs.map { ($0.id, inputs[0].id) } }
        var result: [(output: UInt32, input: UInt32)] = []
        for (index, port) in outputs.enumerated() {
            if let channel = port.channel, let match = inputs.first(where: { $0.channel == channel }) {
                result.append((port.id, match.id))
            } else if index < inputs.count {
                result.append((port.id, inputs[index].id))
            }
        }
        return result
    }
}
