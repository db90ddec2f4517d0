/// What the agent's control loop asks its adapters to do, as data: the
/// output of `AgentCore`, executed in order by the PipeWire adapter. The
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

/// One write to a metadata object, named as the daemon knows it
/// (`pw-policy`, the agent's own, or WirePlumber's `default`): what the
/// agent publishes and what the CLI requests.
public struct MetadataWrite: Sendable, Equatable, CustomStringConvertible {
    public var metadata: String
    public var subject: UInt32
    public var key: String
    public var type: String?
    /// nil removes the key.
    public var value: String?

    public init(metadata: String = AgentProtocol.metadataName, subject: UInt32, key: String, type: String?, value: String?) {
        self.metadata = metadata; self.subject = subject; self.key = key; self.type = type; self.value = value
    }

    public var description: String {
        "\(subject) \(key) = \(value.map { "'\($0)'" } ?? "(removed)")"
    }

    /// WirePlumber's request to move a stream to the node of `serial`
    /// (nil removes it): `target.object` in the default metadata.
    public static func targetObject(of stream: UInt32, serial: UInt64?) -> MetadataWrite {
        MetadataWrite(metadata: "default", subject: stream, key: "target.object", type: serial == nil ? nil : "Spa:Id",
                      value: serial.map(String.init))
    }

    /// A key of the agent's own metadata (docs/PROTOCOL.md); a nil value removes it.
    public static func agent(subject: UInt32, _ key: String, _ value: String?) -> MetadataWrite {
        MetadataWrite(metadata: AgentProtocol.metadataName, subject: subject, key: key,
                      type: value == nil ? nil : AgentProtocol.jsonType, value: value)
    }
}

/// The sd-daemon priorities (`<6>` …) that journald turns into levels.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    /// The names `init(name:)` takes, most severe first.
    public static let names = ["error", "warning", "notice", "info", "debug"]

    public init?(name: String) {
        switch name.lowercased() {
        case "error", "3": self = .error
        case "warning", "warn", "4": self = .warning
        case "notice", "5": self = .notice
        case "info", "6": self = .info
        case "debug", "7": self = .debug
        default: return nil
        }
    }
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
