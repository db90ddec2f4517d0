/// Renders what the agent decided into the AgentProtocol shapes it publishes.
public enum StatusPublisher {
    /// `linkedSinks` is `EngineInputBuilder.linkedSinks(in: graph)`, found
    /// once for all the streams published; `names` are the decision's. A
    /// stream linked into one of WirePlumber's role loopbacks plays to the
    /// loopback's sink, via the loopback.
    public static func streamStatus(node: Graph.Node, classified: ClassifiedStream, decision: StreamDecision?,
                                    graph: Graph, linkedSinks: [UInt32: UInt32], roles: RoleLoopbacks = .none,
                                    names: DecisionNames, extraWarnings: [String],
                                    player: StreamStatus.Player? = nil) -> StreamStatus {
        let classification = classified.classification
        let decision = decision ?? .untouched
        let linked = linkedSinks[node.id]
        let loopback = roles.isActive ? linked.flatMap { roles.loopback(input: $0) } : nil
        let sink = (loopback.map(\.playsTo) ?? linked).flatMap { graph.nodes[$0]?.name }
        return StreamStatus(
            id: node.id, app: classified.appName, appKey: classified.appKey, session: classified.session.rawValue,
            direction: classified.facts.direction.rawValue, state: node.state.rawValue,
            category: classification.category.rawValue, options: classification.options.sorted().map(\.rawValue),
            mode: classification.mode.rawValue, exempt: classification.exempt,
            source: classification.source.rawValue, reason: classification.reason,
            warnings: classification.warnings + extraWarnings, gain: decision.gain,
            hold: decision.hold.map { reason in
                var hold = hold(of: reason, names: names)
                hold.app = node.state == .running ? "running" : "stopped"
                return hold
            }, silenced: decision.silenced,
            duckedBy: decision.duckedBy.map { key in
                let name = names.session(key)
                return StreamStatus.Ducker(session: key.rawValue, app: name.app, which: name.which)
            },
            output: sink, via: loopback?.description, explanation: decision.explanation, player: player)
    }

    static func hold(of reason: HoldReason, names: DecisionNames) -> StreamStatus.Hold {
        switch reason {
        case .interrupted(let by, let app, let resumable):
            StreamStatus.Hold(kind: "interrupted", by: by.rawValue, byApp: app, byWhich: names.sessions[by]?.which,
                              resumable: resumable)
        case .waiting(let by, let app):
            StreamStatus.Hold(kind: "waiting", by: by.rawValue, byApp: app, byWhich: names.sessions[by]?.which, resumable: true)
        case .routeLost(let output):
            StreamStatus.Hold(kind: "route-lost", resumable: false, output: output)
        }
    }

    /// A matched player as a stream's status shows it.
    static func player(_ match: PlayerMatch, in players: PlayerSet, paused: PausedPlayer?) -> StreamStatus.Player? {
        guard let player = players[match.busName] else { return nil }
        let matchedBy: String
        switch match.reason {
        case .sameProcess(let pid): matchedBy = "same process (\(pid))"
        case .descendant(let stream, let playerPID, let generations):
            matchedBy = "process \(stream) descends from the player's \(playerPID) (\(generations) \(generations == 1 ? "generation" : "generations"))"
        case .flatpakApp(let appID, let instance):
            matchedBy = "Flatpak app \(appID)" + (instance.map { " instance \($0)" } ?? "")
        }
        var pausedByAgent: String?
        if let paused, paused.owner == player.uniqueName {
            switch (paused.state, paused.cause) {
            case (.pausing, _): pausedByAgent = "pause sent; the hold keeps it silent until the player pauses"
            case (.takenOver, _): pausedByAgent = "paused by pw-policy, then changed by the user: pw-policy leaves it alone"
            case (.paused, .interruption(_, true)): pausedByAgent = "paused by pw-policy; plays again when the interruption ends"
            case (.paused, .interruption(_, false)): pausedByAgent = "paused by pw-policy; stays paused (the interruption does not resume it)"
            case (.paused, .routeLost): pausedByAgent = "paused by pw-policy; stays paused until 'pw-policy resume'"
            }
        }
        return StreamStatus.Player(busName: player.busName, identity: player.identity, status: player.status.raw,
                                   matchedBy: matchedBy, pausedByAgent: pausedByAgent)
    }

    public static func outputs(graph: Graph) -> [OutputStatus] {
        let defaultOutput = OutputDetection.defaultOutput(in: graph)
        return OutputDetection.outputs(in: graph).map { output in
            let route = graph.nodes[output.id].flatMap { OutputDetection.activeOutputRoute(of: $0, in: graph) }
            return OutputStatus(id: output.id, name: output.name,
                                description: graph.nodes[output.id]?.props["node.description"] ?? output.name,
                                isPrivate: output.isPrivate, isAvailable: output.isAvailable,
                                isDefault: output.id == defaultOutput,
                                port: route.map { $0.description.isEmpty ? $0.name : $0.description })
        }
    }

    /// An event as published and logged, numbered by the caller; `names`
    /// are those of the decision it came from.
    public static func record(_ event: PolicyEvent, seq: UInt64, names: DecisionNames) -> EventRecord {
        func name(_ session: SessionKey) -> String { names.session(session).description }
        switch event {
        case .interruptionBegan(let session, let by, let resumable):
            return EventRecord(seq: seq, type: .interruptionBegan,
                               text: "\(name(session)) interrupted by \(name(by))\(resumable ? ", resumes when it ends" : "")",
                               session: session.rawValue, by: by.rawValue, shouldResume: resumable)
        case .interruptionEnded(let session, let shouldResume):
            return EventRecord(seq: seq, type: .interruptionEnded,
                               text: "\(name(session)) interruption ended (should resume: \(shouldResume))",
                               session: session.rawValue, shouldResume: shouldResume)
        case .duckBegan(let session, let by, let level):
            return EventRecord(seq: seq, type: .duckBegan,
                               text: "\(name(session)) ducked to \(InteractionNotation.formatLevel(level)) by \(name(by))",
                               session: session.rawValue, by: by.rawValue, level: level)
        case .duckEnded(let session):
            return EventRecord(seq: seq, type: .duckEnded, text: "\(name(session)) no longer ducked", session: session.rawValue)
        case .silenced(let session):
            return EventRecord(seq: seq, type: .silenced, text: "\(name(session)) silenced", session: session.rawValue)
        case .unsilenced(let session):
            return EventRecord(seq: seq, type: .unsilenced, text: "\(name(session)) no longer silenced", session: session.rawValue)
        case .routeChanged(let reason, let output):
            return EventRecord(seq: seq, type: .routeChanged, text: "route change: \(reason.rawValue) (\(output))",
                               reason: reason.rawValue)
        case .heldForRoute(let stream, let output):
            return EventRecord(seq: seq, type: .heldForRoute,
                               text: "\(names.stream(stream)) held: its output \"\(output)\" went away", stream: stream,
                               reason: RouteChangeReason.oldDeviceUnavailable.rawValue)
        case .resumed(let stream):
            return EventRecord(seq: seq, type: .resumed, text: "\(names.stream(stream)) resumed by the user", stream: stream)
        }
    }

    /// Compact, stable JSON for metadata values.
    public static func json<T: Encodable>(_ value: T) -> String {
        (try? JSONValueEncoder.text(value, escapingSlashes: false)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
