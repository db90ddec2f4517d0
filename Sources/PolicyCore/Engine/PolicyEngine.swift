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
        run.silenceForSilentMode()
        run.orderActiveSessions()
        run.resolveHolds()
        run.resolveEffects()
        let decisions = run.streamDecisions()
        let next = run.nextMemory(decisions: decisions)
        return PolicyDecision(streams: decisions, memory: next,
                              events: run.events(from: memory, to: next, decisions: decisions),
                              nextWakeup: run.nextWakeup())
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
    func streamDecisions() -> [UInt32: StreamDecision] {
        var decisions: [UInt32: StreamDecision] = [:]
        decisions.reserveCapacity(streams.count)
        var linesBySession = [[String]?](repeating: nil, count: sessions.count)
        var matchers: [TargetPreference: PropertyMatcher?] = [:]

        for index in streams.indices {
            let stream = streams[index]
            guard let sessionIndex = streamSession[index] else {
                decisions[stream.id] = StreamDecision(explanation: Self.exemptLines)
                continue
            }
            let session = sessions[sessionIndex]
            var decision = StreamDecision()
            decision.preferredTarget = preferredTarget(stream, matchers: &matchers)
            guard session.takesPart else {
                decision.explanation = Self.audioProcessingLines
                decisions[stream.id] = decision
                continue
            }
            let plays = stream.direction == .playback
            if let output = routeLost[index] {
                decision.hold = .routeLost(output: output)
                decision.gain = 0
            } else if let hold = session.hold {
                let other = sessions[hold.by]
                decision.hold = hold.waiting
                    ? .waiting(for: other.key, app: other.appName)
                    : .interrupted(by: other.key, app: other.appName, resumable: hold.resumable)
                // Capture is only ever unlinked, never scaled.
                decision.gain = plays ? 0 : 1
            } else if plays, session.isSilenced {
                decision.silenced = true
                decision.gain = 0
            } else if plays, let level = session.duckLevel {
                decision.gain = level
                decision.duckedBy = session.duckers.map { sessions[$0.by].key }
            }
            let lines: [String]
            if let cached = linesBySession[sessionIndex] {
                lines = cached
            } else {
                lines = sessionLines(sessionIndex)
                linesBySession[sessionIndex] = lines
            }
            decision.explanation = streamLines(index, sessionLines: lines, preferredTarget: decision.preferredTarget)
            decisions[stream.id] = decision
        }
        return decisions
    }

    func nextMemory(decisions: [UInt32: StreamDecision]) -> EngineMemory {
        var next = EngineMemory(time: input.now)
        for session in sessions where session.takesPart {
            if session.active {
                next.sessions[session.key] = EngineMemory.SessionMemory(
                    activeSince: session.activeSince, lastActive: session.lastActive, category: session.category,
                    options: session.options, mode: session.mode, appName: session.appName)
            }
            if let hold = session.hold {
                next.interruptions[session.key] = EngineMemory.InterruptionMemory(
                    by: sessions[hold.by].key, resumable: hold.resumable, waiting: hold.waiting)
            } else if let level = session.duckLevel {
                next.ducked[session.key] = level
            }
            if session.isSilenced { next.silenced.insert(session.key) }
        }
        for index in streams.indices {
            let id = streams[index].id
            if let kind = decisions[id]?.hold?.kind { next.held[id] = kind }
            if let remembered = streamMemory(index) { next.streams[id] = remembered }
        }
        for id in usableOutputs { next.outputs[id] = outputs[id]?.name ?? "" }
        next.privateOutputs = privateOutputs
        next.defaultOutput = input.defaultOutput
        return next
    }
}
