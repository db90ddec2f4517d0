/// The decision engine: a pure function from the observed state and the
/// engine's own memory to the desired state of every stream (docs/POLICY.md).
/// The same input and memory always give the same decision; feeding each
/// decision's memory into the next call is all the state there is.
public struct PolicyEngine: Sendable {
    public let config: PolicyConfig
    let matrix: InteractionMatrix

    public init(config: PolicyConfig) {
        self.config = config
        matrix = InteractionMatrix(config: config)
    }

    public func decide(_ input: PolicyInput, memory: EngineMemory) -> PolicyDecision {
        var run = DecisionRun(config: config, matrix: matrix, input: input, memory: memory)
        run.gatherSessions()
        run.trackOutputs()
        run.trackStreamRoutes()
        run.computeActivity()
        run.yieldToPlayingAudio()
        run.silenceForSilentMode()
        run.silenceWhilePresenting()
        run.silenceWhileLocked()
        run.orderActiveSessions()
        run.resolveHolds()
        run.resolveEffects()
        run.resolveStandby()
        var namer = SessionNamer()
        let decisions = run.streamDecisions(namer: &namer)
        let next = run.nextMemory()
        let events = run.events(from: memory, to: next, decisions: decisions)
        run.name(events, namer: &namer)
        return PolicyDecision(streams: decisions, memory: next, events: events, nextWakeup: run.nextWakeup(),
                              names: namer.names, newcomersMayStartQuiet: run.newcomersMayStartQuiet())
    }

    /// The first interaction rule for a pair of sessions, as the engine would
    /// apply it (`index` counts from 0 in `config.interactions`); nil when no
    /// rule matches, which means they mix.
    public func interaction(active: SessionClass, incoming: SessionClass) -> (index: Int, rule: InteractionRule)? {
        matrix.firstMatch(active: active, incoming: incoming).map { ($0, matrix.rules[$0]) }
    }

    /// The class the engine gives a session of streams classified like this.
    public func sessionClass(of classification: Classification) -> SessionClass {
        SessionClass(category: classification.category, options: classification.options,
                     mode: classification.mode, config: config)
    }
}

extension DecisionRun {
    /// `namer` names the sessions that hold, duck or silence others.
    func streamDecisions(namer: inout SessionNamer) -> [UInt32: StreamDecision] {
        var decisions: [UInt32: StreamDecision] = [:]
        decisions.reserveCapacity(streams.count)
        // Shared by the streams of a session: built once.
        var linesBySession = [[String]?](repeating: nil, count: sessions.count)
        var duckersBySession = [[SessionKey]?](repeating: nil, count: sessions.count)
        var matchers: [TargetPreference: PropertyMatcher?] = [:]
        var explanationCache = ExplanationCache()

        for index in streams.indices {
            let id = streams[index].id
            guard let sessionIndex = streamSession[index] else {
                decisions[id] = StreamDecision(explanation: Self.exemptLines)
                continue
            }
            var decision = StreamDecision()
            if let preference = streams[index].classification.preferredTarget {
                decision.preferredTarget = preferredTarget(preference, matchers: &matchers)
            }
            if let back = returnedTo[index] { decision.preferredTarget = back }
            guard sessions[sessionIndex].takesPart else {
                decision.explanation = Self.audioProcessingLines
                decisions[id] = decision
                continue
            }
            let plays = streams[index].direction == .playback
            if let output = routeLost[index] {
                decision.hold = .routeLost(output: output)
                decision.gain = 0
            } else if let hold = sessions[sessionIndex].hold {
                // Named for the status too: which of an app's sessions it is.
                let (other, app) = (sessions[hold.by].key, namer.name(hold.by, among: sessions).app)
                decision.hold = hold.waiting
                    ? .waiting(for: other, app: app)
                    : .interrupted(by: other, app: app, resumable: hold.resumable)
                // Capture is only ever unlinked, never scaled.
                decision.gain = plays ? 0 : 1
            } else if plays, sessions[sessionIndex].isSilenced {
                decision.silenced = true
                decision.gain = 0
            } else if plays, let standby = sessions[sessionIndex].standby {
                decision.gain = standby.gain
            } else if plays, let level = sessions[sessionIndex].duckLevel {
                decision.gain = level
                if let duckers = duckersBySession[sessionIndex] {
                    decision.duckedBy = duckers
                } else {
                    decision.duckedBy = sessions[sessionIndex].duckers.map { sessions[$0.by].key }
                    duckersBySession[sessionIndex] = decision.duckedBy
                    for ducker in sessions[sessionIndex].duckers { namer.include(ducker.by, among: sessions) }
                }
            }
            let lines: [String]
            if let cached = linesBySession[sessionIndex] {
                lines = cached
            } else {
                lines = sessionLines(sessionIndex, cache: &explanationCache, namer: &namer)
                linesBySession[sessionIndex] = lines
            }
            decision.explanation = streamLines(index, sessionLines: lines, preferredTarget: decision.preferredTarget)
            decisions[id] = decision
        }
        return decisions
    }

    /// What the next decision starts from; it holds the same holds as `streamDecisions`.
    func nextMemory() -> EngineMemory {
        var next = EngineMemory(time: now)
        next.sessions.reserveCapacity(sessions.count)
        next.streams.reserveCapacity(streams.count)
        var silencedApps: [SessionKey: String] = [:]
        for index in sessions.indices where sessions[index].takesPart {
            let key = sessions[index].key
            // Holds and ducks only happen to active sessions, so they live in the session's memory.
            if sessions[index].active {
                next.sessions[key] = EngineMemory.SessionMemory(
                    activeSince: sessions[index].activeSince, lastActive: sessions[index].lastActive,
                    category: sessions[index].category, options: sessions[index].options,
                    mode: sessions[index].mode, appName: sessions[index].appName,
                    interruption: interruptionMemory(index), ducked: sessions[index].rememberedDuck)
            }
            if sessions[index].isSilenced {
                next.silenced.insert(key)
                // An active one's name is in its memory.
                if !sessions[index].active { silencedApps[key] = sessions[index].appName }
            }
        }
        next.silencedApps = silencedApps.isEmpty ? nil : silencedApps
        for index in streams.indices {
            let id = streams[index].id
            if routeLost[index] != nil {
                next.held[id] = .routeLost
            } else if let session = streamSession[index], sessions[session].takesPart, let hold = sessions[session].hold {
                next.held[id] = hold.waiting ? .waiting : .interrupted
            }
            if let remembered = streamMemory(index) { next.streams[id] = remembered }
        }
        for id in usableOutputs { next.outputs[id] = outputs[id]?.name ?? "" }
        next.privateOutputs = privateOutputs
        let ports = usableOutputs.compactMap { id in outputs[id]?.port.map { (id, $0) } }
        next.outputPorts = ports.isEmpty ? nil : Dictionary(ports) { first, _ in first }
        next.defaultOutput = input.defaultOutput
        return next
    }
}

extension DecisionRun {
    func interruptionMemory(_ index: Int) -> EngineMemory.InterruptionMemory? {
        sessions[index].hold.map {
            EngineMemory.InterruptionMemory(by: sessions[$0.by].key, resumable: $0.resumable, waiting: $0.waiting)
        }
    }
}
