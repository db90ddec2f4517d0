/// Whether the session is locked, from every source that answers: locked
/// when any of them says so (docs/POLICY.md, "Screen lock"). Like Do Not
/// Disturb, a source that is absent or misbehaves says nothing.
public struct ScreenLock: Sendable, Equatable {
    /// What one source said.
    public enum Reading: Sendable, Equatable {
        case locked(Bool)
        /// Not there: no owner of its bus name, no system bus, no session.
        case absent
        /// There but unusable (a reply of the wrong type, no reply): says
        /// nothing; the adapter logs it once.
        case unusable(String)
    }

    /// The sources saying "locked" now, by name, in source order.
    public var lockedIn: [String]
    /// The sources that answered, locked or not.
    public var answering: [String]

    public init(lockedIn: [String] = [], answering: [String] = []) {
        self.lockedIn = lockedIn; self.answering = answering
    }

    /// Nothing is known: no source answers (or none was read yet).
    public static let unknown = ScreenLock()

    public var isLocked: Bool { !lockedIn.isEmpty }

    public static func combine(_ sources: [ScreenLockSource], readings: [ScreenLockSource: Reading]) -> ScreenLock {
        var state = ScreenLock()
        for source in sources {
            guard case .locked(let locked) = readings[source] else { continue }
            state.answering.append(source.name)
            if locked { state.lockedIn.append(source.name) }
        }
        return state
    }

    /// For status: "locked (GNOME)", "unlocked (screen saver, logind)",
    /// "no lock mechanism answers".
    public var summary: String {
        if isLocked { return "locked (\(lockedIn.joined(separator: ", ")))" }
        if !answering.isEmpty { return "unlocked (\(answering.joined(separator: ", ")))" }
        return "no lock mechanism answers"
    }
}

extension ScreenLockStatus {
    /// The status of `lock`, and whether it silences what silent mode does.
    public init(_ lock: ScreenLock, silences: Bool) {
        self.init(locked: lock.isLocked, text: lock.summary, silences: silences)
    }
}
