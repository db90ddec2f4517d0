/// The screen lock in the control loop (docs/POLICY.md, "Screen lock"):
/// while the session is locked, and `silent.while-locked` is on, the engine
/// silences what silent mode silences; each change is an event.
extension AgentCore {
    /// What the engine is told (what says it is locked, or nil: nothing is
    /// silenced for the lock); a change of the lock is a `screen-lock` event.
    mutating func followScreenLock(_ lock: ScreenLock, graph: Graph, effects: inout [AgentEffect]) -> String? {
        let silences = config.config.settings.silenceWhileLocked
        if lock.isLocked != screenLock.isLocked {
            effects += emit(Self.screenLockEvent(lock, silences: silences), graph: graph)
        }
        screenLock = lock
        return lock.isLocked && silences ? lock.lockedIn.joined(separator: ", ") : nil
    }

    /// `screen locked (GNOME): ambient, solo-ambient and system sounds silenced (silent.while-locked)`,
    /// or `screen unlocked (GNOME): …`.
    static func screenLockEvent(_ lock: ScreenLock, silences: Bool) -> EventRecord {
        let text: String
        if lock.isLocked {
            text = "screen \(lock.summary): "
                + (silences ? "what silent mode silences is silenced (silent.while-locked)"
                            : "nothing silenced (silent.while-locked = false)")
        } else {
            text = "screen \(lock.summary)" + (silences ? ": what the lock silenced sounds again" : "")
        }
        return EventRecord(seq: 0, type: .screenLock, text: text, reason: lock.isLocked ? "locked" : "unlocked")
    }
}
