/// While the session is locked, what the silent switch silences is
/// silenced (the seeds: ambient, solo-ambient and system sounds obey the
/// switch and locking; docs/POLICY.md, "Screen lock"): the same gain 0 on
/// their playback streams, linked as they are, playing or not, and the
/// same restore when it is unlocked. Like silent mode, a session silenced
/// so takes no part in holds and effects: it is not heard.
extension DecisionRun {
    mutating func silenceWhileLocked() {
        guard input.screenLocked != nil else { return }
        for index in sessions.indices where sessions[index].takesPart {
            sessions[index].silencedWhileLocked = sessions[index].silencedCategory
        }
    }
}
