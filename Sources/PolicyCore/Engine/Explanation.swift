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

    /// The lines shared by every stream of a session.
    func sessionLines(_ index: Int) -> [String] {
        let session = sessions[index]
        if let hold = session.hold {
            let other = appName(hold.by)
            let reference = ruleReference(hold.rule)
            if hold.waiting { return ["held: waiting until \(other) ends (\(reference))"] }
            if hold.resumable { return ["held: interrupted by \(other), resumes when it ends (\(reference))"] }
            return ["held: interrupted by \(other); released without resuming when it ends (\(reference))"]
        }
        var lines: [String] = []
        if session.silencedBySilentMode {
            lines.append("silenced: silent mode (\(session.category.rawValue) is silenced in silent mode)")
        }
        if let silencer = session.silencer {
            lines.append("silenced while \(appName(silencer.by)) is active (\(ruleReference(silencer.rule)))")
        }
        for ducker in session.duckers.prefix(Self.listedDuckers) {
            lines.append("ducked to \(InteractionNotation.formatLevel(ducker.level)) by \(appName(ducker.by)) (\(ruleReference(ducker.rule)))")
        }
        if session.duckers.count > Self.listedDuckers {
            lines.append("ducked by \(session.duckers.count - Self.listedDuckers) more sessions")
        }
        return lines.isEmpty ? Self.fullGainLines : lines
    }

    /// The lines for one stream, from its session's lines.
    func streamLines(_ index: Int, sessionLines: [String], preferredTarget: UInt32?) -> [String] {
        var lines = sessionLines
        if let output = routeLost[index] {
            let line = "held: its private output \"\(output)\" went away (old-device-unavailable); "
                + "held until resumed (pw-policy resume)"
            lines = lines == Self.fullGainLines ? [line] : [line] + lines
        }
        if streams[index].direction == .capture, let session = streamSession[index],
           sessions[session].isSilenced || !sessions[session].duckers.isEmpty {
            lines.append(Self.captureNote)
        }
        if let target = preferredTarget {
            lines.append("prefers output \"\(outputs[target]?.name ?? "\(target)")\" (prefer-target of its rule)")
        }
        return lines
    }

    private func appName(_ session: Int) -> String {
        let name = sessions[session].appName
        return "\"" + (name.isEmpty ? sessions[session].key.rawValue : name) + "\""
    }

    private func ruleReference(_ rule: Int) -> String {
        InteractionNotation.rule(matrix.rules[rule], index: rule)
    }
}
