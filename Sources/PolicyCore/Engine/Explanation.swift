/// The `explanation` lines of a decision: one per effect, naming the other
/// session and the matrix rule, e.g.
/// `ducked to 0.20 by "Maps" (rule 15: active * / incoming { options = [duck-others] } → duck: …)`.
extension DecisionRun {
    static let exemptLines = ["exempt: the policy leaves this stream alone"]
    static let audioProcessingLines = ["audio-processing: takes no part in interactions, silent mode or route changes"]
    static let fullGainLines = ["full gain: nothing holds, ducks or silences it"]
    static let captureNote = "capture: what the user records is never ducked or silenced"
    /// Beyond this many duckers, the rest are counted, not listed.
    static let listedDuckers = 4

    /// The lines shared by every stream of a session. Sessions affected the
    /// same way (many ducked by the same prompt, held by the same player)
    /// share their lines: the cache writes each line and each list once.
    func sessionLines(_ index: Int, cache: inout ExplanationCache, namer: inout SessionNamer) -> [String] {
        var effects: [EffectLine] = []
        if let playing = sessions[index].mixesBecause {
            effects.append(EffectLine(kind: .mixesAsAmbient, by: playing, rule: -1))
        }
        if let hold = sessions[index].hold {
            let kind: EffectLine.Kind = hold.waiting ? .waiting : hold.resumable ? .interruptedResumable : .interrupted
            effects.append(EffectLine(kind: kind, by: hold.by, rule: hold.rule))
        } else {
            if sessions[index].silencedBySilentMode {
                effects.append(EffectLine(kind: .silentMode, by: ClassCode.categoryIndex(sessions[index].category), rule: -1))
            }
            if sessions[index].silencedWhileLocked {
                effects.append(EffectLine(kind: .screenLocked, by: ClassCode.categoryIndex(sessions[index].category), rule: -1))
            }
            if sessions[index].silencedWhilePresenting, let cast = silencingScreenCast {
                effects.append(EffectLine(kind: .presenting, by: Int(cast.node), rule: -1))
            }
            if let silencer = sessions[index].silencer {
                effects.append(EffectLine(kind: .silenced, by: silencer.by, rule: silencer.rule))
            }
            for ducker in sessions[index].duckers.prefix(Self.listedDuckers) {
                effects.append(EffectLine(kind: .ducked, by: ducker.by, rule: ducker.rule, level: ducker.level))
            }
            if let standby = sessions[index].standby {
                let kind: EffectLine.Kind = switch standby.kind {
                case .wait: .standbyWait
                case .silence: .standbySilenced
                case .duck: .standbyDucked
                }
                effects.append(EffectLine(kind: kind, by: standby.effect.by, rule: standby.effect.rule, level: standby.gain))
            }
        }
        if effects.isEmpty { return Self.fullGainLines }
        let more = sessions[index].hold == nil ? max(0, sessions[index].duckers.count - Self.listedDuckers) : 0
        let signature = EffectSignature(effects: effects, more: more)
        if let lines = cache.lists[signature] { return lines }

        var lines: [String] = []
        lines.reserveCapacity(effects.count + 1)
        for effect in effects {
            if let line = cache.lines[effect] {
                lines.append(line)
            } else {
                let line = text(of: effect, namer: &namer)
                cache.lines[effect] = line
                lines.append(line)
            }
        }
        if more > 0 { lines.append("ducked by \(more) more sessions") }
        cache.lists[signature] = lines
        return lines
    }

    private func text(of effect: EffectLine, namer: inout SessionNamer) -> String {
        func appName(_ session: Int) -> String { namer.name(session, among: sessions).description }
        return switch effect.kind {
        case .waiting:
            "held: waiting until \(appName(effect.by)) ends (\(ruleReference(effect.rule)))"
        case .interruptedResumable:
            "held: interrupted by \(appName(effect.by)), resumes when it ends (\(ruleReference(effect.rule)))"
        case .interrupted:
            "held: interrupted by \(appName(effect.by)); released without resuming when it ends (\(ruleReference(effect.rule)))"
        case .silentMode:
            "silenced: silent mode\(input.silentModeReason.isEmpty ? "" : ", \(input.silentModeReason)")"
                + " (\(ClassCode.categories[effect.by].rawValue) is silenced in silent mode)"
        case .screenLocked:
            "silenced: the screen is locked (\(input.screenLocked ?? "locked"); \(SettingKeys.whileLocked))"
                + " (\(ClassCode.categories[effect.by].rawValue) is silenced in silent mode)"
        case .presenting:
            "silenced: the screen is being shared (\(silencingScreenCast?.description ?? "node \(effect.by)"); \(SettingKeys.silenceAlerts))"
        case .silenced:
            "silenced while \(appName(effect.by)) is active (\(ruleReference(effect.rule)))"
        case .ducked:
            "ducked to \(InteractionNotation.formatLevel(effect.level)) by \(appName(effect.by)) (\(ruleReference(effect.rule)))"
        case .mixesAsAmbient:
            "solo-ambient, mixing as ambient: \(appName(effect.by)) was playing when it started (\(SettingKeys.mixWithPlaying))"
        case .standbyWait:
            "not playing; waits at gain 0: if it starts, it is held until \(appName(effect.by)) ends (\(ruleReference(effect.rule)))"
        case .standbySilenced:
            "not playing; waits at gain 0: if it starts, it is silenced while \(appName(effect.by)) is active (\(ruleReference(effect.rule)))"
        case .standbyDucked:
            "not playing; waits at gain \(InteractionNotation.formatLevel(effect.level)): if it starts, it is ducked by \(appName(effect.by)) (\(ruleReference(effect.rule)))"
        }
    }

    /// The lines for one stream, from its session's lines.
    func streamLines(_ index: Int, sessionLines: [String], preferredTarget: UInt32?) -> [String] {
        var lines = sessionLines
        if let output = routeLost[index] {
            let line = "held: its private output \"\(output)\" went away (old-device-unavailable); "
                + "held until resumed (pw-policy resume)"
            lines = lines == Self.fullGainLines ? [line] : [line] + lines
        } else if let output = portPickedOn[index] {
            lines.append("not held: the user switched \"\(output)\" from its private port to another (user-choice), "
                + "not an unplug; plays on")
        }
        if streams[index].direction == .capture, let session = streamSession[index],
           sessions[session].isSilenced || !sessions[session].duckers.isEmpty {
            lines.append(Self.captureNote)
        }
        if streams[index].isRunning, let note = Self.quietNote(streams[index].audibility) {
            lines.append(note)
        }
        if let target = preferredTarget {
            lines.append("prefers output \"\(outputs[target]?.name ?? "\(target)")\" (prefer-target of its rule)")
        }
        return lines
    }

    /// A metered stream that runs without sound ducks no one: say so.
    static func quietNote(_ audibility: Audibility?) -> String? {
        switch audibility {
        case .notYetAudible?: "running but not heard yet: ducks no one until it carries sound (\(SettingKeys.whileAudible))"
        case .quiet?: "running but quiet: ducks no one once quiet for \(SettingKeys.quietHold) (\(SettingKeys.whileAudible))"
        case .audible?, .unmeasured?, nil: nil
        }
    }

    private func ruleReference(_ rule: Int) -> String {
        matrix.references[rule]
    }
}

struct ExplanationCache {
    var lines: [EffectLine: String] = [:]
    var lists: [EffectSignature: [String]] = [:]
}

/// One line's worth of effect: what, by which session, through which rule.
struct EffectLine: Hashable {
    enum Kind: Hashable {
        case waiting, interruptedResumable, interrupted, silentMode, silenced, ducked
        /// A system sound while the screen is shared (`by`: the screen cast's node).
        case presenting
        /// A category silent mode silences, while the session is locked (`by`: the category's index).
        case screenLocked
        /// An inactive session: what it would meet if it started now.
        case standbyWait, standbySilenced, standbyDucked
        /// A solo-ambient session that started while another app played.
        case mixesAsAmbient
    }
    var kind: Kind
    /// The other session (for silent mode: the category index; presenting: the cast's node).
    var by: Int
    var rule: Int
    var level: Double = 0
}

struct EffectSignature: Hashable {
    var effects: [EffectLine]
    var more: Int
}

/// The settings explanations name, looked up once: explanations are written
/// for every stream at every decision.
private enum SettingKeys {
    static let whileLocked = SettingsSchema.key(\Settings.silenceWhileLocked)
    static let silenceAlerts = SettingsSchema.key(\Settings.presentingSilencesAlerts)
    static let mixWithPlaying = SettingsSchema.key(\Settings.soloAmbientMixesWithPlaying)
    static let whileAudible = SettingsSchema.key(\Settings.duckWhileAudible)
    static let quietHold = SettingsSchema.key(\Settings.duckQuietHoldMs)
}
