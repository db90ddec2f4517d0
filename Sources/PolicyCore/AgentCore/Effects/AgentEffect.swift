/// What the agent's control loop asks its adapters to do, as data: the
/// output of `AgentCore`, run in order by the agent's executor
/// (`EffectExecutor`, through the PipeWire and session-bus adapters). The
/// order is part of the contract (docs/ARCHITECTURE.md, "The control loop"):
/// the journal is saved before the graph actions it records, a stream's
/// status is published before its resume request is acknowledged.
public enum AgentEffect: Sendable, Equatable {
    /// Replace the journal on disk; `sync` also flushes it to the disk (the
    /// user's settings, which must outlive the machine, not only the agent).
    case saveJournal(AgentJournal, sync: Bool)
    /// Change the graph: a gain, a link, a `target.object` request.
    case graph(AgentAction)
    /// Pause or play a media player over MPRIS.
    case player(PlayerCommand)
    /// The player the media keys go to now (nil: none): the proxy mirrors
    /// its properties (docs/PLAYERS.md, "Media keys"). Emitted when it, or
    /// anything about it, changed.
    case mediaKeysTarget(MediaPlayer?)
    /// Tell the audio sessions what happened to them: signals and
    /// PropertiesChanged, each to its session's owner (docs/API.md).
    case tellAudioSessions([AudioSessionNews.Message])
    /// Meter exactly these streams (node id → serial), each with a peak
    /// meter of the agent's; what they measure comes back in
    /// `AgentCore.Observation.meters` (Metering).
    case meter([UInt32: UInt64])
    /// Refuse from now on the new links the gate refuses (StartGate), and
    /// tell each refusal back in `AgentCore.Observation.refusedLinks`.
    /// Emitted when it changed.
    case gate(StartGate)
    /// Set (or, with a nil value, remove) a key of a metadata object.
    case setMetadata(MetadataWrite)
    case log(LogLevel, String)
    /// Run the control loop again at this monotonic time (a fade step, a
    /// debounce, a confirmation check); nil: nothing is due.
    case wakeUp(at: Double?)
    /// Wait until the daemon has processed everything sent so far.
    case flush
    /// Set WirePlumber's saved `volume` of these stream-state keys back to
    /// 1, keeping the user's values saved there, by stand-in streams; then
    /// run `AgentCore.storedVolumesReset` with the keys done and execute
    /// what it returns (WirePlumberStreamState; at exit only).
    case resetStoredVolumes([String: WirePlumberStreamState.UserVolumes])
    /// Run `AgentCore.publish()` and execute what it returns: the statuses
    /// and events of the decisions whose graph actions came before. The
    /// executor runs it on the loop's next turn, after a reconcile due then
    /// (`supersededInBacklog`).
    case publish
}

extension AgentEffect {
    /// Which effects still held back from an earlier turn (see
    /// `AgentEffect.publish`) the effects of a later one make redundant: its
    /// publish, because the core keeps every decision's events until it
    /// publishes and publishes the latest statuses; its wake-up, because
    /// each reconcile works out the next one afresh.
    public static func supersededInBacklog(by later: [AgentEffect]) -> (AgentEffect) -> Bool {
        let publishes = later.contains(.publish)
        let wakesUp = later.contains { if case .wakeUp = $0 { true } else { false } }
        return { held in
            switch held {
            case .publish: publishes
            case .wakeUp: wakesUp
            default: false
            }
        }
    }
}
