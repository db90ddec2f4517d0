/// One change the agent makes to the graph.
public enum AgentAction: Sendable, Equatable {
    /// Set the stream's Props `volume` (the policy gain) and nothing else.
    case setGain(node: UInt32, gain: Double)
    /// The same, as a native ramp the stream's audioconvert runs over
    /// `milliseconds` (Props `volumeRampTime`; FadePacing).
    case rampGain(node: UInt32, gain: Double, milliseconds: Int)
    case destroyLink(UInt32)
    /// Link a node's output ports to another's input ports: a playback
    /// stream to its sink, a source to a capture stream.
    case link(output: UInt32, input: UInt32)
    /// Ask WirePlumber to move a stream: `target.object` in the default metadata.
    case setTarget(stream: UInt32, targetSerial: UInt64)
    /// Send an unlinked held stream the node command `Suspend`: it stops
    /// its client's clock, `node.always-process` streams included
    /// (docs/HOLDS.md). Linking it again starts it.
    case suspend(node: UInt32)
    /// Start an unlinked playback stream once, then set its gain: a client
    /// that writes its own volume when it starts does so now, where nothing
    /// hears it, and the gain after it is ours. The daemon passes both to
    /// the client in this order, and any link made after them later still
    /// (StartGate; docs/POLICY.md, "The first sample").
    case prime(node: UInt32, gain: Double)
}
