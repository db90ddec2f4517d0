/// Sessions, and which of them are active, since when, and in what order.
///
/// A session is active while one of its streams runs, while it was held for
/// another session (we unlinked it, so it is idle, yet it still wants to
/// play), when the user asked to resume it, and for `debounce` seconds after
/// the last of these (so a prompt's short pauses do not end a duck). Its
/// place in the activation order is when it became active; a resume request
/// makes it the newest.
extension DecisionRun {
    /// Groups the input streams into sessions, adding sessions that have no
    /// stream any more but are still inside a debounce gap.
    mutating func gatherSessions() {
        var seen = Set<UInt32>(minimumCapacity: input.streams.count)
        streams = input.streams.sorted { $0.id < $1.id }.filter { seen.insert($0.id).inserted }
        streamSession = Array(repeating: nil, count: streams.count)

        var byKey: [SessionKey: WorkingSession] = [:]
        for (index, stream) in streams.enumerated() where !stream.classification.exempt {
            let classification = stream.classification
            if var session = byKey[stream.session] {
                session.options.formUnion(classification.options)
                if classification.mode == .spokenAudio { session.mode = .spokenAudio }
                session.streams.append(index)
                byKey[stream.session] = session
            } else {
                // The classifier puts the category into the key; should two
                // streams still disagree, the lowest id decides.
                var session = WorkingSession(key: stream.session, appName: stream.appName,
                                             category: classification.category,
                                             options: classification.options, mode: classification.mode)
                session.streams = [index]
                byKey[stream.session] = session
            }
        }
        for (key, remembered) in memory.sessions where byKey[key] == nil && isInsideDebounce(remembered) {
            byKey[key] = WorkingSession(key: key, appName: remembered.appName, category: remembered.category,
                                        options: remembered.options, mode: remembered.mode)
        }

        sessions = byKey.values.sorted { $0.key < $1.key }
        sessionIndex.reserveCapacity(sessions.count)
        for index in sessions.indices {
            sessions[index].classCode = ClassCode.index(sessions[index].category, sessions[index].options, sessions[index].mode)
            sessions[index].mixable = config.traits(of: sessions[index].category).mixable
                || sessions[index].options.contains(.mixWithOthers) || sessions[index].options.contains(.duckOthers)
            sessions[index].takesPart = sessions[index].category != .audioProcessing
            sessionIndex[sessions[index].key] = index
            for stream in sessions[index].streams { streamSession[stream] = index }
        }
    }

    /// Decides which sessions are active. Needs `routeLost` and `resumeRequested`.
    mutating func computeActivity() {
        let now = input.now
        for index in sessions.indices {
            var session = sessions[index]
            for stream in session.streams where routeLost[stream] == nil {
                if streams[stream].isRunning { session.running = true }
                if let kind = memory.held[streams[stream].id], kind != .routeLost { session.wantsToPlay = true }
                if resumeRequested[stream] { session.resumeRequested = true }
            }
            let remembered = memory.sessions[session.key]
            session.activeNow = session.running || session.wantsToPlay || session.resumeRequested
            if session.activeNow {
                session.active = true
                session.lastActive = now
                if let remembered, !session.resumeRequested,
                   remembered.lastActive == memory.time || isInsideDebounce(remembered) {
                    session.activeSince = remembered.activeSince
                } else {
                    session.activeSince = now
                }
            } else if let remembered, isInsideDebounce(remembered) {
                session.active = true
                session.lastActive = remembered.lastActive
                session.activeSince = remembered.activeSince
            }
            sessions[index] = session
        }
    }

    /// Active sessions that take part in interactions, oldest first; ties by key.
    /// Sessions silent mode silences take no part either: they are not heard,
    /// so they must not interrupt or duck anyone (a muted game stopping the music).
    mutating func orderActiveSessions() {
        activationOrder = sessions.indices.filter {
            sessions[$0].active && sessions[$0].takesPart && !sessions[$0].silencedBySilentMode
        }
        activationOrder.sort {
            let (a, b) = (sessions[$0].activeSince, sessions[$1].activeSince)
            return a != b ? a < b : sessions[$0].key < sessions[$1].key
        }
    }

    /// A session that was active at the last decision and whose debounce gap
    /// has not run out. The comparison is the same sum as the wakeup time, so
    /// waking at that time always ends the gap.
    func isInsideDebounce(_ remembered: EngineMemory.SessionMemory) -> Bool {
        input.now < remembered.lastActive + debounce
    }

    /// When a session active only through a debounce gap (or released from a hold,
    /// and not playing) stops counting as active, if nothing else happens.
    func nextWakeup() -> Double? {
        var wakeup: Double?
        for session in sessions where session.active && !session.running {
            if session.activeNow && session.hold != nil { continue }
            let expiry = session.lastActive + debounce
            if wakeup.map({ expiry < $0 }) ?? true { wakeup = expiry }
        }
        return wakeup
    }
}
