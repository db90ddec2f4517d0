/// What silences beside the policy's rules, in the control loop: the
/// user's silent switch and the desktop's Do Not Disturb (docs/POLICY.md,
/// "Do Not Disturb"), the screen lock ("Screen lock") and presenting
/// ("Presenting"). It says what changed — the events' texts, the value the
/// switch is to show — and `AgentCore` emits and writes them.
struct SilentSwitchRoom: Sendable {
    /// The value the agent last overwrote on the switch, and when: until the
    /// daemon echoes the agent's write (for a second at most), that older
    /// value still read there is not the user's new choice. A new
    /// connection starts without one (`connected`).
    private var overwritten: (choice: SilentChoice?, at: Double)?
    /// The screen casts shared at the last reconcile: a change is an event.
    /// Not journaled: a restarted agent tells of a cast it finds.
    private(set) var screenCasts: [ScreenCast] = []
    /// The screen lock at the last reconcile: a change is an event. Not journaled either.
    private(set) var screenLock = ScreenLock.unknown

    mutating func connected() { overwritten = nil }

    /// Silent mode this turn, and what to say of it.
    struct Step: Sendable {
        var mode: SilentMode
        /// A `silent-mode` event's text, when it changed or a choice was made or ended.
        var event: String?
        /// The choice in force, to write on the switch (after a bad value, or
        /// when Do Not Disturb ended the user's choice).
        var rewrite: SilentChoice?
    }

    /// The switch (`requested`: what it reads now) and Do Not Disturb into
    /// the journal's `choice` and `seen`: a value written to the switch is
    /// the user's choice; a change of Do Not Disturb ends it.
    mutating func follow(choice: inout SilentChoice, seen: inout Bool?, requested: SilentChoice?,
                         doNotDisturb: DoNotDisturb, following: Bool, switchIsThere: Bool, now: Double) -> Step {
        if let overwritten, requested != overwritten.choice || now - overwritten.at > 1 {
            self.overwritten = nil
        }
        let wasOn = SilentMode.resolve(choice: choice, doNotDisturb: doNotDisturb, following: following).isOn
        var why: String?
        if overwritten == nil, let requested, requested != choice {
            choice = requested
            why = requested == .follow ? "the user asked to follow Do Not Disturb" : "the user's choice"
        }
        let followed = SilentMode.choice(choice, lastSeen: seen, now: doNotDisturb, following: following)
        if followed.changed {
            why = "Do Not Disturb \(doNotDisturb.summary)"
                + (followed.choice != choice ? "; the user's choice (\(choice.rawValue)) ends" : "")
        }
        choice = followed.choice
        seen = followed.seen
        let mode = SilentMode.resolve(choice: choice, doNotDisturb: doNotDisturb, following: following)
        var step = Step(mode: mode)
        if why != nil || mode.isOn != wasOn {
            step.event = "silent mode \(mode.isOn ? "on" : "off") (\(mode.reason))" + (why.map { ": \($0)" } ?? "")
        }
        if overwritten == nil, requested != choice, switchIsThere {
            overwritten = (requested, now)
            step.rewrite = choice
        }
        return step
    }

    /// What the engine is told of the lock (what says it is locked, or nil:
    /// nothing is silenced for it), and a `screen-lock` event when it changed.
    mutating func follow(lock: ScreenLock, silences: Bool) -> (lockedBy: String?, event: EventRecord?) {
        let event = lock.isLocked != screenLock.isLocked ? Self.screenLockEvent(lock, silences: silences) : nil
        screenLock = lock
        return (lock.isLocked && silences ? lock.lockedIn.joined(separator: ", ") : nil, event)
    }

    /// A `presenting` event when the screen casts shared changed.
    mutating func follow(screenCasts casts: [ScreenCast], silencesAlerts: Bool) -> EventRecord? {
        guard casts != screenCasts else { return nil }
        screenCasts = casts
        return Self.presentingEvent(casts, silencesAlerts: silencesAlerts)
    }

    /// `screen locked (GNOME): …` or `screen unlocked (GNOME): …`.
    static func screenLockEvent(_ lock: ScreenLock, silences: Bool) -> EventRecord {
        let text: String
        if lock.isLocked {
            text = "screen \(lock.summary): "
                + (silences ? "what silent mode silences is silenced (\(SettingsSchema.key(\Settings.silenceWhileLocked)))"
                            : "nothing silenced (\(SettingsSchema.key(\Settings.silenceWhileLocked)) = false)")
        } else {
            text = "screen \(lock.summary)" + (silences ? ": what the lock silenced sounds again" : "")
        }
        return EventRecord(seq: 0, type: .screenLock, text: text, reason: lock.isLocked ? "locked" : "unlocked")
    }

    /// `presenting: the screen is shared (GNOME Shell screen cast, node 42 to node 57); alerts silenced`,
    /// or `presenting ended: …`.
    static func presentingEvent(_ casts: [ScreenCast], silencesAlerts: Bool) -> EventRecord {
        let text: String
        if casts.isEmpty {
            text = "presenting ended: the screen is no longer shared" + (silencesAlerts ? "; alerts sound again" : "")
        } else {
            let shared = casts.map { cast in
                "\(cast.description) to " + cast.consumers.map { "node \($0)" }.joined(separator: ", ")
            }.joined(separator: "; ")
            text = "presenting: the screen is shared (\(shared)); "
                + (silencesAlerts ? "alerts silenced" : "alerts play (\(SettingsSchema.key(\Settings.presentingSilencesAlerts)) = false)")
        }
        return EventRecord(seq: 0, type: .presenting, text: text)
    }
}

extension SilentMode {
    /// Whether silent mode is on, and why, from the user's choice and what
    /// the desktop's Do Not Disturb says.
    public static func resolve(choice: SilentChoice, doNotDisturb: DoNotDisturb, following: Bool) -> SilentMode {
        switch choice {
        case .on: return SilentMode(isOn: true, reason: "set by the user")
        case .off: return SilentMode(isOn: false, reason: "set by the user")
        case .follow:
            guard following else {
                return SilentMode(isOn: false, reason: "not following Do Not Disturb (\(SettingsSchema.key(\Settings.followDoNotDisturb)) = false)")
            }
            if doNotDisturb.isOn {
                return SilentMode(isOn: true, reason: "following Do Not Disturb (on in \(doNotDisturb.onIn.joined(separator: ", ")))")
            }
            if doNotDisturb.isKnown { return SilentMode(isOn: false, reason: "following Do Not Disturb (off)") }
            return SilentMode(isOn: false, reason: "following Do Not Disturb (no desktop mechanism answers)")
        }
    }
}
