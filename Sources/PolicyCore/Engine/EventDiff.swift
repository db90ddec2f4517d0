/// Events are the difference between the previous memory and the new one, so
/// they follow from the state alone (level-triggered) and come in pairs: every
/// began/silenced has its ended/unsilenced, also when the session vanishes.
///
/// Order: route changes by output id, holds for lost routes by stream id, then
/// per session by key: interruption, duck, silence; then resumed streams by id.
extension DecisionRun {
    func events(from previous: EngineMemory, to next: EngineMemory, decisions: [UInt32: StreamDecision]) -> [PolicyEvent] {
        var events = routeEvents
        var keys = Set(previous.interruptions.keys).union(next.interruptions.keys)
        keys.formUnion(previous.ducked.keys)
        keys.formUnion(next.ducked.keys)
        keys.formUnion(previous.silenced)
        keys.formUnion(next.silenced)

        for key in keys.sorted() {
            let interruptedBefore = previous.interruptions[key]
            if let now = next.interruptions[key] {
                // A waiting session is reported as interrupted, resumable: it
                // should play when the session it waits for ends.
                if interruptedBefore?.by != now.by || interruptedBefore?.resumable != now.resumable {
                    events.append(.interruptionBegan(session: key, by: now.by, resumable: now.resumable))
                }
            } else if let before = interruptedBefore {
                events.append(.interruptionEnded(session: key, shouldResume: before.resumable && canResume(key)))
            }

            let duckedBefore = previous.ducked[key]
            if let level = next.ducked[key] {
                if duckedBefore != level {
                    events.append(.duckBegan(session: key, by: strongestDucker(of: key) ?? key, level: level))
                }
            } else if duckedBefore != nil {
                events.append(.duckEnded(session: key))
            }

            switch (previous.silenced.contains(key), next.silenced.contains(key)) {
            case (false, true): events.append(.silenced(session: key))
            case (true, false): events.append(.unsilenced(session: key))
            default: break
            }
        }

        for index in streams.indices where resumeRequested[index] && decisions[streams[index].id]?.hold == nil {
            events.append(.resumed(stream: streams[index].id))
        }
        return events
    }

    /// Whether a session released from a hold has anything to resume: it still
    /// has streams and not all of them lost their output meanwhile.
    private func canResume(_ key: SessionKey) -> Bool {
        guard let index = sessionIndex[key] else { return false }
        return sessions[index].streams.contains { routeLost[$0] == nil }
    }

    /// The session whose duck sets the level (the earliest among equals).
    private func strongestDucker(of key: SessionKey) -> SessionKey? {
        guard let index = sessionIndex[key] else { return nil }
        var strongest: Effect?
        for ducker in sessions[index].duckers where strongest.map({ ducker.level < $0.level }) ?? true {
            strongest = ducker
        }
        return strongest.map { sessions[$0.by].key }
    }
}
