/// An in-memory stand-in for PipeWire, WirePlumber and the journal's file
/// (as SwiftNIO's `EmbeddedChannel` stands in for a socket): it runs
/// `AgentCore` on its graph and applies the effects the way the PipeWire
/// adapter and the daemon would. The one interpreter of `AgentEffect`s
/// besides the agent's own executor: the unit tests drive it, the engine
/// bench times the core through it, and `pw-policy simulate` runs the core
/// on a pw-dump with it (docs/ARCHITECTURE.md, "The control loop").
public struct InMemoryDaemon: Sendable {
    public var core: AgentCore
    public var graph: Graph
    public var now = 100.0
    /// Every journal the core asked to save, in order, with its sync flag.
    public var saved: [(journal: AgentJournal, sync: Bool)] = []
    public var logs: [(level: LogLevel, text: String)] = []
    /// The media players on the session bus (nil: no session bus), and
    /// every call the core made to them.
    public var players: PlayerSet?
    public var playerCommands: [PlayerCommand] = []
    /// The last `.mediaKeysTarget` (outer nil: none was emitted).
    public var mediaKeysTarget: MediaPlayer??
    /// The last wake-up asked for.
    public var wakeUp: Double??
    /// The streams the core asked to meter. Their meters read a running
    /// stream as audible, as they would a stream that plays sound, unless
    /// `measured` says what they measure.
    public var metered: [UInt32: UInt64] = [:]
    /// What the adapter would refuse (`AgentEffect.gate`).
    public var gate = StartGate.open
    public var measured: [UInt32: Audibility] = [:]
    public var meters: AgentCore.Meters {
        AgentCore.Meters(readings: Dictionary(uniqueKeysWithValues: metered.keys.map { id in
            (id, measured[id] ?? (graph.nodes[id]?.state == .running ? .audible : .notYetAudible))
        }))
    }
    private var nextLinkID: UInt32
    /// The stack the core is told it runs beside.
    public var stack: PipeWireStack
    /// WirePlumber's saved `volume` by stream-state key, as its
    /// restore-stream (0.4) or state-stream (0.5) keeps it: saved whenever a
    /// stream's Props change, given to each new stream of the key, replaced
    /// by `route-settings` entries it reads (0.4: every key; 0.5: the event
    /// sounds' key only) and by a stand-in stream (`resetStoredVolumes`).
    public var wirePlumberSaved: [String: Float] = [:]
    /// What the desktop's Do Not Disturb mechanisms say.
    public var doNotDisturb = DoNotDisturb.unknown
    public var screenLock = ScreenLock.unknown
    /// What the audio sessions were told, in order.
    public var told: [AudioSessionNews.Message] = []
    /// The process tree the audio sessions' claims walk.
    public var ancestry: [Int32: Int32] = [:]
    /// Why the media-key proxy and the audio-session service are not on
    /// the session bus (nil: they are, or are turned off).
    public var mediaKeysUnavailable: String?
    public var audioSessionsUnavailable: String?

    /// `nextLinkID`: the id of the first link the daemon creates; above
    /// every id of `graph`.
    public init(core: AgentCore, graph: Graph, stack: PipeWireStack, nextLinkID: UInt32) {
        self.core = core; self.graph = graph; self.stack = stack; self.nextLinkID = nextLinkID
    }

    public var observation: AgentCore.Observation {
        var observation = AgentCore.Observation(graph: graph, now: now, stack: stack,
                              players: players.map { .watched($0, ancestry: [:]) } ?? .unwatched("no session bus"),
                              meters: meters, doNotDisturb: doNotDisturb, mediaKeysUnavailable: mediaKeysUnavailable)
        observation.screenLock = screenLock
        observation.audioSessionsUnavailable = audioSessionsUnavailable
        observation.audioSessionAncestry = ancestry
        return observation
    }

    public func wirePlumberKey(_ id: UInt32) -> String? {
        graph.nodes[id].flatMap { WirePlumberStreamState.key(of: $0.props, wirePlumber: stack.wirePlumberVersion) }
    }

    @discardableResult
    public mutating func connect() -> [AgentEffect] { apply(core.connected(observation)) }

    /// A reconcile; when it started meters that read something at once,
    /// the reconcile their first readings bring (the adapter's `onChange`).
    @discardableResult
    public mutating func reconcile() -> [AgentEffect] {
        let before = meters
        let effects = apply(core.reconcile(observation))
        return meters == before ? effects : effects + apply(core.reconcile(observation))
    }

    /// Reconciles at each wake-up until none is asked for (a fade's end)
    /// up to `horizon`; false when one was still asked for.
    @discardableResult
    public mutating func settle(maxSteps: Int = 200, until horizon: Double = .infinity) -> Bool {
        reconcile()
        for _ in 0..<maxSteps {
            guard case .some(.some(let time)) = wakeUp else { return true }
            guard time <= horizon else { return false }
            now = max(time, now + 0.001)
            reconcile()
        }
        return wakeUp == .some(nil)
    }

    @discardableResult
    public mutating func restoreAll() -> [AgentEffect] { apply(core.restoreAll(observation)) }

    /// The agent's work settled (the adapter's `IdleWork`).
    @discardableResult
    public mutating func settled() -> [AgentEffect] { apply(core.settled()) }

    /// What the daemon, WirePlumber and the journal file make of the effects;
    /// returns them with what `.publish` published in its place.
    @discardableResult
    public mutating func apply(_ effects: [AgentEffect]) -> [AgentEffect] {
        var executed: [AgentEffect] = []
        for effect in effects {
            switch effect {
            case .saveJournal(let journal, let sync): saved.append((journal, sync))
            case .graph(let action): perform(action)
            case .setMetadata(let write): setMetadata(write)
            case .log(let level, let text): logs.append((level, text))
            case .wakeUp(let time): wakeUp = .some(time)
            case .flush: break
            case .player(let command): playerCommands.append(command)
            case .mediaKeysTarget(let player): mediaKeysTarget = .some(player)
            case .tellAudioSessions(let messages): told += messages
            case .meter(let streams): metered = streams
            case .gate(let next): gate = next
            case .resetStoredVolumes(let keys):
                for key in keys.keys { wirePlumberSaved[key] = 1 }
                executed.append(effect)
                executed += apply(core.storedVolumesReset(Set(keys.keys)))
                continue
            case .publish:
                executed += apply(core.publish())
                continue
            }
            executed.append(effect)
        }
        return executed
    }

    private mutating func perform(_ action: AgentAction) {
        if case .setTarget(let stream, let serial) = action {
            setMetadata(.targetObject(of: stream, serial: serial))
        }
        graph.apply(action, nextLinkID: &nextLinkID)
        switch action {
        case .setGain(let node, _), .rampGain(let node, _, _):
            if let key = wirePlumberKey(node), let volume = graph.nodes[node]?.volume { wirePlumberSaved[key] = volume }
        default: break
        }
    }

    private mutating func setMetadata(_ write: MetadataWrite) {
        guard let id = graph.metadata(named: write.metadata)?.id else { return }
        if write.metadata == WirePlumberStreamState.routeSettings, write.key.hasPrefix("restore.stream."),
           let value = write.value, case .object(let values)? = try? JSONParser.parse(Array(value.utf8)),
           case .number(let volume)? = values["volume"], let saved = Float(volume) {
            var key = String(write.key.dropFirst("restore.stream.".count))
            if let dot = key.firstIndex(of: ".") { key.replaceSubrange(dot...dot, with: ":") }
            // WirePlumber's rule, as the agent knows it (StackCapabilities).
            if WirePlumberStreamState.readsRouteSettings(for: key, wirePlumber: stack.wirePlumberVersion,
                                                         pipewire: stack.pipewireVersion) {
                wirePlumberSaved[key] = saved
            }
        }
        if let value = write.value {
            graph.metadata[id]!.entries[write.subject, default: [:]][write.key] =
                Graph.MetadataEntry(subject: write.subject, key: write.key, type: write.type, value: value)
        } else {
            graph.metadata[id]!.entries[write.subject]?[write.key] = nil
            if graph.metadata[id]!.entries[write.subject]?.isEmpty == true { graph.metadata[id]!.entries[write.subject] = nil }
        }
    }

    // MARK: reading the state

    public func gain(_ id: UInt32) -> Double? { graph.nodes[id]?.volume.map(Double.init) }
    public func isLinked(_ id: UInt32) -> Bool { graph.links.values.contains { $0.outputNode == id || $0.inputNode == id } }
    public func status(_ id: UInt32) -> StreamStatus? {
        agentMetadata?.value(subject: id, key: AgentProtocol.streamKey)
            .flatMap { try? JSONValueDecoder.decode(StreamStatus.self, from: Array($0.utf8)) }
    }
    public func agentEntry(_ key: String) -> String? { agentMetadata?.value(subject: 0, key: key) }
    private var agentMetadata: Graph.Metadata? { graph.metadata(named: AgentProtocol.metadataName) }
}

extension Graph {
    /// What the daemon (and WirePlumber) would do with a graph action;
    /// `target.object` requests are the caller's (they need the metadata).
    public mutating func apply(_ action: AgentAction, nextLinkID: inout UInt32) {
        switch action {
        case .setGain(let node, let gain), .rampGain(let node, let gain, _), .prime(let node, let gain):
            nodes[node]?.volume = Float(gain)
        case .destroyLink(let id): links[id] = nil
        case .link(let output, let input):
            addLinks(from: output, to: input, nextID: &nextLinkID)
        case .suspend(let node): nodes[node]?.state = .suspended
        case .setTarget: break
        }
    }

    /// Links paired as WirePlumber pairs ports (`Graph.portPairs`, the
    /// agent's own rule), numbered from `nextID`; nodes without ports (a
    /// graph built by hand) get one link, on no port.
    public mutating func addLinks(from output: UInt32, to input: UInt32, nextID: inout UInt32) {
        var pairs = portPairs(output: output, input: input)
        if pairs.isEmpty { pairs = [(output: 0, input: 0)] }
        for pair in pairs {
            links[nextID] = Graph.Link(id: nextID, outputNode: output, outputPort: pair.output, inputNode: input,
                                       inputPort: pair.input, state: .active)
            nextID += 1
        }
    }
}
