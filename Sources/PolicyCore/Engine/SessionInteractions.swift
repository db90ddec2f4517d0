/// Applies the interaction matrix to the active sessions, in two phases.
///
/// Holds first: the sessions are taken in activation order, each one meeting
/// the earlier sessions still playing ("effective"). A hold-incoming from any
/// of them makes it wait (and then it affects nobody); otherwise it interrupts
/// those whose rule says so, which leave the effective set, and joins it.
/// Effects second, among the sessions left playing: for every pair, earlier A
/// and later B, the rule (A active, B incoming) may duck A, duck B or silence B.
/// So a ducker that was itself interrupted ducks no one.
///
/// Rules depend only on a session's class, so sessions are grouped by class
/// and each (class, class) pair is looked up once per session, not per pair of
/// sessions: the cost grows with sessions × classes present.
extension DecisionRun {
    mutating func silenceForSilentMode() {
        guard input.silentMode else { return }
        for index in sessions.indices where sessions[index].takesPart {
            sessions[index].silencedBySilentMode = sessions[index].silencedCategory
        }
    }

    mutating func resolveHolds() {
        let classCount = ClassCode.count
        // Per class: positions (in activationOrder) of effective sessions, ascending.
        var effective = [[Int]](repeating: [], count: classCount)
        var classSeen = [Bool](repeating: false, count: classCount)
        var presentClasses: [Int] = []

        for (position, session) in activationOrder.enumerated() {
            let incoming = sessions[session].classCode
            let app = sessions[session].app
            var waitFor: (position: Int, rule: Int)?
            for active in presentClasses where !effective[active].isEmpty {
                let rule = matrix.ruleIndex(active: active, incoming: incoming)
                guard rule >= 0, case .holdIncoming = matrix.actions[rule],
                      let earliest = effective[active].first(where: { sessions[activationOrder[$0]].app != app })
                else { continue }
                if waitFor.map({ earliest < $0.position }) ?? true { waitFor = (earliest, rule) }
            }
            if let waitFor {
                sessions[session].hold = SessionHold(by: activationOrder[waitFor.position], rule: waitFor.rule,
                                                     resumable: true, waiting: true)
                continue
            }
            for active in presentClasses where !effective[active].isEmpty {
                let rule = matrix.ruleIndex(active: active, incoming: incoming)
                guard rule >= 0, case .interrupt(let resumable) = matrix.actions[rule] else { continue }
                // The app's own sessions stay: an app is never interrupted by itself.
                effective[active].removeAll { interrupted in
                    guard sessions[activationOrder[interrupted]].app != app else { return false }
                    sessions[activationOrder[interrupted]].hold = SessionHold(by: session, rule: rule,
                                                                              resumable: resumable, waiting: false)
                    return true
                }
            }
            if !classSeen[incoming] {
                classSeen[incoming] = true
                presentClasses.append(incoming)
            }
            effective[incoming].append(position)
        }
    }

    mutating func resolveEffects() {
        let classCount = ClassCode.count
        let defaultLevel = config.settings.duckLevel
        // The sessions left playing, in activation order; `rank` is a session's place there.
        var playing: [Int] = []
        playing.reserveCapacity(activationOrder.count)
        var rank = [Int](repeating: -1, count: sessions.count)
        var byClass = [[Int]](repeating: [], count: classCount)
        var presentClasses: [Int] = []
        for session in activationOrder where sessions[session].hold == nil {
            rank[session] = playing.count
            let sessionClass = sessions[session].classCode
            if byClass[sessionClass].isEmpty { presentClasses.append(sessionClass) }
            byClass[sessionClass].append(playing.count)
            playing.append(session)
        }

        for (position, session) in playing.enumerated() {
            let own = sessions[session].classCode
            let app = sessions[session].app
            var duckers: [Effect] = []
            var silencer: Effect?
            for other in presentClasses {
                let members = byClass[other]
                // This session earlier, `other` sessions later and incoming.
                let asActive = matrix.ruleIndex(active: own, incoming: other)
                if asActive >= 0, case .duck(let level) = matrix.actions[asActive] {
                    let later = firstIndex(in: members, notBelow: position + 1)
                    for member in members[later...] where sessions[playing[member]].app != app {
                        duckers.append(Effect(by: playing[member], rule: asActive, level: clampLevel(level, defaultLevel)))
                    }
                }
                // `other` sessions earlier and active, this one incoming.
                let asIncoming = matrix.ruleIndex(active: other, incoming: own)
                guard asIncoming >= 0 else { continue }
                switch matrix.actions[asIncoming] {
                case .duckIncoming(let level):
                    let earlier = firstIndex(in: members, notBelow: position)
                    for member in members[..<earlier] where sessions[playing[member]].app != app {
                        duckers.append(Effect(by: playing[member], rule: asIncoming, level: clampLevel(level, defaultLevel)))
                    }
                case .silenceIncoming:
                    let earlier = firstIndex(in: members, notBelow: position)
                    if let first = members[..<earlier].first(where: { sessions[playing[$0]].app != app }),
                       silencer.map({ first < rank[$0.by] }) ?? true {
                        silencer = Effect(by: playing[first], rule: asIncoming, level: 0)
                    }
                default:
                    break
                }
            }
            if duckers.count > 1 { duckers.sort { rank[$0.by] < rank[$1.by] } }
            sessions[session].duckers = duckers
            sessions[session].silencer = silencer
        }
    }

    /// Inactive sessions meet the sessions playing as if they started now:
    /// the first rule that would make them wait, silence or duck them sets
    /// the gain their streams wait at. Without this a stream that opens
    /// during a recording is at full gain until it runs, then fades down:
    /// its first samples are heard (docs/POLICY.md, "Inactive sessions").
    /// Like an incoming session, it meets no session of its own app.
    mutating func resolveStandby() {
        // The sessions playing by class, in activation order, as the other stages group them.
        var byClass = [[Int]](repeating: [], count: ClassCode.count)
        var presentClasses: [Int] = []
        for session in activationOrder where sessions[session].hold == nil {
            let sessionClass = sessions[session].classCode
            if byClass[sessionClass].isEmpty { presentClasses.append(sessionClass) }
            byClass[sessionClass].append(session)
        }
        guard !presentClasses.isEmpty else { return }
        let defaultLevel = config.settings.duckLevel
        for index in sessions.indices where !sessions[index].active && sessions[index].takesPart
            && !sessions[index].silencedOutright {
            let (incoming, app) = (sessions[index].classCode, sessions[index].app)
            var standby: Standby?
            for active in presentClasses {
                let rule = matrix.ruleIndex(active: active, incoming: incoming)
                guard rule >= 0, let other = byClass[active].first(where: { sessions[$0].app != app }) else { continue }
                let found: Standby
                switch matrix.actions[rule] {
                case .holdIncoming: found = Standby(kind: .wait, effect: Effect(by: other, rule: rule, level: 0))
                case .silenceIncoming: found = Standby(kind: .silence, effect: Effect(by: other, rule: rule, level: 0))
                case .duckIncoming(let level):
                    found = Standby(kind: .duck, effect: Effect(by: other, rule: rule, level: clampLevel(level, defaultLevel)))
                default: continue
                }
                // The quietest wins; among equals the earliest session.
                if let known = standby, found.gain > known.gain
                    || (found.gain == known.gain && sessions[found.effect.by].activeSince >= sessions[known.effect.by].activeSince) {
                    continue
                }
                standby = found
            }
            sessions[index].standby = standby
        }
    }

    /// Whether a stream that opens now might have to start below full gain,
    /// and who could make it: silent mode, the screen lock or presenting silences some
    /// categories (anyone's stream), or sessions playing would make some
    /// newcomer wait, or silence or duck it — a newcomer of their own app
    /// excepted: sessions of one app never act on each other. While it
    /// might, the agent keeps new playback streams from their output until
    /// it has judged them (docs/POLICY.md, "The first sample").
    func newcomersMayStartQuiet() -> NewcomerQuieting {
        if (input.silentMode || input.screenLocked != nil) && matrix.categorySilenced.contains(true) { return .anyone }
        if silencingScreenCast != nil { return .anyone }
        let apps = Set(activationOrder.lazy
            .filter { sessions[$0].hold == nil && matrix.quietsSomeNewcomer[sessions[$0].classCode] }
            .map { String(sessions[$0].key.app) })
        return apps.isEmpty ? .nobody : .streamsNotOf(apps)
    }

    /// The first index of the ascending `members` whose value is at least `bound`.
    private func firstIndex(in members: [Int], notBelow bound: Int) -> Int {
        var low = 0, high = members.count
        while low < high {
            let middle = (low + high) / 2
            if members[middle] < bound { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// A rule's level, or the configured one; always a gain in 0…1.
    private func clampLevel(_ level: Double?, _ fallback: Double) -> Double {
        let chosen = level ?? fallback
        return chosen.isNaN ? 1 : min(max(chosen, 0), 1)
    }
}
