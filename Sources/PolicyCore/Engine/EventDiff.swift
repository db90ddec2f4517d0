/// Events are the difference between the previous memory and the new state,
/// so they follow from the state alone (level-triggered) and come in pairs:
/// every began/silenced has its ended/unsilenced, also when the session vanishes.
///
/// Order: route changes by output id, holds for lost routes by stream id, then
/// per session by key: interruption, duck, silence; then resumed streams by id.
extension DecisionRun {
    func events(from previous: EngineMemory, to next: EngineMemory, decisions: [UInt32: StreamDecision]) -> [PolicyEvent] {
        var events = routeEvents
        var changes: [(key: SessionKey, events: [PolicyEvent])] = []
        let silenceFlips = previous.silenced.symmetricDifference(next.silenced)
        var flipsSeen = 0

        for index in sessions.indices {
            let interruption = sessions[index].takesPart ? interruptionMemory(index) : nil
            let duck = sessions[index].rememberedDuck
            let flipped = !silenceFlips.isEmpty && silenceFlips.contains(sessions[index].key)
            if flipped { flipsSeen += 1 }
            guard sessions[index].remembered?.interruption != interruption || sessions[index].remembered?.ducked != duck
                    || flipped else { continue }
            let key = sessions[index].key
            let before = sessions[index].remembered

            var sessionEvents: [PolicyEvent] = []
            if let now = interruption {
                // A waiting session is reported as interrupted, resumable: it
                // should play when the session it waits for ends.
                if before?.interruption?.by != now.by || before?.interruption?.resumable != now.resumable {
                    sessionEvents.append(.interruptionBegan(session: key, by: now.by, resumable: now.resumable))
                }
            } else if let ended = before?.interruption {
                let canResume = sessions[index].streams.contains { routeLost[$0] == nil }
                sessionEvents.append(.interruptionEnded(session: key, shouldResume: ended.resumable && canResume))
            }
            if let level = duck {
                if before?.ducked != level {
                    sessionEvents.append(.duckBegan(session: key, by: strongestDucker(of: index), level: level))
                }
            } else if before?.ducked != nil {
                sessionEvents.append(.duckEnded(session: key))
            }
            if flipped {
                sessionEvents.append(next.silenced.contains(key) ? .silenced(session: key) : .unsilenced(session: key))
            }
            if !sessionEvents.isEmpty { changes.append((key, sessionEvents)) }
        }

        // Sessions gone for good: whatever they were, it ended.
        for (key, remembered) in vanished {
            var sessionEvents: [PolicyEvent] = []
            if remembered.interruption != nil { sessionEvents.append(.interruptionEnded(session: key, shouldResume: false)) }
            if remembered.ducked != nil { sessionEvents.append(.duckEnded(session: key)) }
            if !sessionEvents.isEmpty { changes.append((key, sessionEvents)) }
        }
        if flipsSeen < silenceFlips.count {
            for key in silenceFlips where sessionIndex(of: key) == nil {
                if let at = changes.firstIndex(where: { $0.key == key }) {
                    changes[at].events.append(.unsilenced(session: key))
                } else {
                    changes.append((key, [.unsilenced(session: key)]))
                }
            }
        }
        for change in changes.sorted(by: { $0.key < $1.key }) { events.append(contentsOf: change.events) }

        for index in streams.indices where resumeRequested[index] && decisions[streams[index].id]?.hold == nil {
            events.append(.resumed(stream: streams[index].id))
        }
        return events
    }

    /// The session whose duck sets the level (the earliest among equals).
    private func strongestDucker(of index: Int) -> SessionKey {
        var strongest: Effect?
        for ducker in sessions[index].duckers where strongest.map({ ducker.level < $0.level }) ?? true {
            strongest = ducker
        }
        return strongest.map { sessions[$0.by].key } ?? sessions[index].key
    }
}
