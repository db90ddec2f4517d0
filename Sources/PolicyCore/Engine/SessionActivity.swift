/// Sessions, and which of them are active, since when, and in what order.
///
/// A session is active while one of its streams runs, while it was held for
/// another session (we unlinked it, so it is idle, yet it still wants to
/// play), while it was active and someone else unlinked its streams (a
/// restarting WirePlumber takes its links along: the apps still play), when
/// the user asked to resume it, and for `debounce` seconds after
/// the last of these (so a prompt's short pauses do not end a duck). Its
/// place in the activation order is when it became active; a resume request
/// makes it the newest.
extension DecisionRun {
    /// Groups the input streams into sessions, adding sessions that have no
    /// stream any more but are still inside a debounce gap.
    mutating func gatherSessions() {
        streams = Self.sortedUnique(input.streams)
        streamSession = Array(repeating: nil, count: streams.count)

        var found: [WorkingSession] = []
        found.reserveCapacity(streams.count)
        var foundIndex: [SessionKey: Int] = [:]
        foundIndex.reserveCapacity(streams.count)
        var foundInMemory = 0
        for index in streams.indices where !streams[index].classification.exempt {
            let key = streams[index].session
            if let existing = foundIndex[key] {
                found[existing].options.formUnion(streams[index].classification.options)
                if streams[index].classification.mode == .spokenAudio { found[existing].mode = .spokenAudio }
                found[existing].streams.append(index)
            } else {
                // The classifier puts the category into the key; should two
                // streams still disagree, the lowest id decides. So does its
                // name, the first time: a session keeps the name it was
                // given while it is remembered, whichever of its streams
                // come and go (a call's "Chromium input" and "Chromium").
                let remembered = memory.sessions[key]
                let appName = remembered.map(\.appName).flatMap { $0.isEmpty ? nil : $0 } ?? streams[index].appName
                var session = WorkingSession(key: key, appName: appName,
                                             category: streams[index].classification.category,
                                             options: streams[index].classification.options,
                                             mode: streams[index].classification.mode)
                session.streams = [index]
                session.remembered = remembered
                if remembered != nil { foundInMemory += 1 }
                foundIndex[key] = found.count
                found.append(session)
            }
        }
        if foundInMemory < memory.sessions.count {
            for (key, remembered) in memory.sessions where foundIndex[key] == nil {
                // An app that said it is done (and asked that the others be
                // told) has no debounce gap (docs/API.md, "Deactivate").
                guard isInsideDebounce(remembered), input.endedSessions.isEmpty || !input.endedSessions.contains(key) else {
                    vanished.append((key, remembered))
                    continue
                }
                var session = WorkingSession(key: key, appName: remembered.appName, category: remembered.category,
                                             options: remembered.options, mode: remembered.mode)
                session.remembered = remembered
                foundIndex[key] = found.count
                found.append(session)
            }
        }
        sessionIndexByKey = foundIndex

        // In the order of their lowest stream id, then sessions known only to
        // the memory: nothing depends on this order but the activation order,
        // which breaks ties by key.
        sessions = found
        found = []
        let mixingOptions = PolicyOption.mixWithOthers.bit | PolicyOption.duckOthers.bit
        var apps: [Substring: Int] = [:]
        for index in sessions.indices {
            let app = sessions[index].key.app
            if let known = apps[app] {
                sessions[index].app = known
            } else {
                sessions[index].app = apps.count
                apps[app] = apps.count
            }
            let category = ClassCode.categoryIndex(sessions[index].category)
            let options = ClassCode.optionMask(sessions[index].options)
            sessions[index].classCode = ClassCode.index(category: category, options: options,
                                                        mode: ClassCode.modeIndex(sessions[index].mode))
            sessions[index].mixable = matrix.categoryMixes[category] || options & mixingOptions != 0
            sessions[index].silencedCategory = matrix.categorySilenced[category]
            sessions[index].takesPart = sessions[index].category != .audioProcessing
            for stream in sessions[index].streams { streamSession[stream] = index }
        }
    }

    /// Streams by ascending id, the first of duplicate ids kept. Callers
    /// usually pass them sorted already: then nothing is copied.
    static func sortedUnique(_ streams: [StreamInput]) -> [StreamInput] {
        var ascending = true
        for index in streams.indices.dropFirst() where streams[index - 1].id >= streams[index].id {
            ascending = false
            break
        }
        if ascending { return streams }
        var seen = Set<UInt32>(minimumCapacity: streams.count)
        let order = streams.indices.sorted { streams[$0].id != streams[$1].id ? streams[$0].id < streams[$1].id : $0 < $1 }
        return order.compactMap { seen.insert(streams[$0].id).inserted ? streams[$0] : nil }
    }

    /// Decides which sessions are active. Needs `routeLost` and `resumeRequested`.
    mutating func computeActivity() {
        for index in sessions.indices {
            // Metered streams play while they carry sound, and for the quiet
            // hold after; a session that runs only so has no debounce beyond it.
            var plainlyRunning = false, metered = false
            var audibleUntil: Double?
            for stream in sessions[index].streams where routeLost[stream] == nil {
                if streams[stream].isRunning {
                    switch streams[stream].audibility {
                    case nil, .audible?: plainlyRunning = true
                    case .unmeasured?:
                        if sessions[index].remembered != nil { plainlyRunning = true } else { metered = true }
                    case .notYetAudible?: metered = true
                    case .quiet(let since)?:
                        metered = true
                        if now < since + quietHold { audibleUntil = max(audibleUntil ?? since + quietHold, since + quietHold) }
                    }
                }
                if !memory.held.isEmpty, let kind = memory.held[streams[stream].id], kind != .routeLost {
                    sessions[index].wantsToPlay = true
                }
                if streams[stream].isUnlinked, sessions[index].remembered != nil {
                    sessions[index].wantsToPlay = true
                    sessions[index].unlinkedWhileActive = true
                }
                if resumeRequested[stream] { sessions[index].resumeRequested = true }
            }
            sessions[index].running = plainlyRunning || audibleUntil != nil
            if !plainlyRunning { sessions[index].audibleUntil = audibleUntil }
            let ended = !input.endedSessions.isEmpty && input.endedSessions.contains(sessions[index].key)
            let gap = (metered && !plainlyRunning) || ended ? 0 : debounce
            // Two fields, not a copy of the remembered session.
            let rememberedSince = sessions[index].remembered?.activeSince
            let rememberedLast = sessions[index].remembered?.lastActive
            let continues = rememberedLast.map { $0 == memory.time || now < $0 + gap } ?? false
            let activeNow = sessions[index].running || sessions[index].wantsToPlay || sessions[index].resumeRequested
            sessions[index].activeNow = activeNow
            if activeNow {
                sessions[index].active = true
                sessions[index].lastActive = now
                if continues, !sessions[index].resumeRequested, let rememberedSince {
                    sessions[index].activeSince = rememberedSince
                } else {
                    sessions[index].activeSince = now
                }
            } else if let rememberedLast, let rememberedSince, now < rememberedLast + gap {
                sessions[index].active = true
                sessions[index].lastActive = rememberedLast
                sessions[index].activeSince = rememberedSince
            }
        }
    }

    /// The seeds ask a game to choose ambient when other audio is already
    /// playing and solo-ambient otherwise: a solo-ambient session that
    /// became active after an active playback session of another app mixes
    /// as ambient, for as long as that one stays active
    /// (`solo-ambient.mix-with-playing`; docs/POLICY.md, "Games and the music").
    mutating func yieldToPlayingAudio() {
        guard config.settings.soloAmbientMixesWithPlaying else { return }
        var earliestPlayback: [Int] = []
        for index in sessions.indices where sessions[index].active && sessions[index].takesPart
            && sessions[index].category == .playback {
            earliestPlayback.append(index)
        }
        guard !earliestPlayback.isEmpty else { return }
        // Earlier as the activation order has it: by time, ties by key (a
        // game and a player that start in the same moment).
        func earlier(_ a: Int, _ b: Int) -> Bool {
            let (x, y) = (sessions[a].activeSince, sessions[b].activeSince)
            return x != y ? x < y : sessions[a].key < sessions[b].key
        }
        earliestPlayback.sort(by: earlier)
        for index in sessions.indices where sessions[index].active && sessions[index].category == .soloAmbient {
            guard let playing = earliestPlayback.first(where: {
                sessions[$0].app != sessions[index].app && earlier($0, index)
            }) else { continue }
            sessions[index].category = .ambient
            sessions[index].mixesBecause = playing
            let category = ClassCode.categoryIndex(.ambient)
            let options = ClassCode.optionMask(sessions[index].options)
            sessions[index].classCode = ClassCode.index(category: category, options: options,
                                                        mode: ClassCode.modeIndex(sessions[index].mode))
            sessions[index].mixable = sessions[index].mixable || matrix.categoryMixes[category]
            sessions[index].silencedCategory = matrix.categorySilenced[category]
        }
    }

    /// Active sessions that take part in interactions, oldest first; ties by key.
    /// Sessions silent mode (or presenting) silences take no part either: they
    /// are not heard, so they must not interrupt or duck anyone (a muted game
    /// stopping the music).
    mutating func orderActiveSessions() {
        activationOrder = sessions.indices.filter {
            sessions[$0].active && sessions[$0].takesPart && !sessions[$0].silencedOutright
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
        now < remembered.lastActive + debounce
    }

    /// When a session active only through a debounce gap (or released from a hold,
    /// and not playing) stops counting as active, if nothing else happens.
    func nextWakeup() -> Double? {
        var wakeup: Double?
        for index in sessions.indices {
            guard let until = sessions[index].audibleUntil else { continue }
            if wakeup.map({ until < $0 }) ?? true { wakeup = until }
        }
        for index in sessions.indices where sessions[index].active && !sessions[index].running {
            if sessions[index].activeNow && (sessions[index].hold != nil || sessions[index].unlinkedWhileActive) { continue }
            let expiry = sessions[index].lastActive + debounce
            if wakeup.map({ expiry < $0 }) ?? true { wakeup = expiry }
        }
        return wakeup
    }
}
