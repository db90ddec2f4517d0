/// The engine's answer.
public struct PolicyDecision: Sendable, Equatable {
    /// A decision for every input stream.
    public var streams: [UInt32: StreamDecision]
    public var memory: EngineMemory
    public var events: [PolicyEvent]
    /// When the decision may change with no new input (a debounce expiring):
    /// the caller re-runs the engine at that time. nil = not until input changes.
    public var nextWakeup: Double?
    /// How its events and statuses name the sessions and streams they speak of.
    public var names: DecisionNames
    /// Whether a stream that opens now might have to start below full gain
    /// (`DecisionRun.newcomersMayStartQuiet`): the agent's start gate is
    /// armed unless `.nobody`.
    public var newcomersMayStartQuiet: NewcomerQuieting

    public init(streams: [UInt32: StreamDecision], memory: EngineMemory, events: [PolicyEvent], nextWakeup: Double?,
                names: DecisionNames = DecisionNames(), newcomersMayStartQuiet: NewcomerQuieting = .nobody) {
        self.streams = streams; self.memory = memory; self.events = events; self.nextWakeup = nextWakeup
        self.names = names; self.newcomersMayStartQuiet = newcomersMayStartQuiet
    }
}

/// Which new streams might have to start below full gain now.
public enum NewcomerQuieting: Sendable, Equatable {
    /// None: nothing playing would wait, silence or duck a newcomer.
    case nobody
    /// Any stream (silent mode, presenting).
    case anyone
    /// Streams of any app but these (`SessionKey.app`): the sessions that
    /// would quiet a newcomer never act on their own app's.
    case streamsNotOf(Set<String>)
}
