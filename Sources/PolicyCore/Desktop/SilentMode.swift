/// Whether silent mode is on, and why: the user's explicit choice wins
/// until Do Not Disturb changes again (or the user says `follow`), then
/// silent mode follows Do Not Disturb.
public struct SilentMode: Sendable, Equatable {
    public var isOn: Bool
    /// In words, for status, explain and monitor.
    public var reason: String

    public init(isOn: Bool, reason: String) { self.isOn = isOn; self.reason = reason }

    /// What becomes of the user's choice when Do Not Disturb is read:
    /// a change of it (on ↔ off, against what was last seen) ends an
    /// explicit choice. A source that stops answering is no change: its
    /// last word stands until one answers again.
    public static func choice(_ choice: SilentChoice, lastSeen: Bool?, now doNotDisturb: DoNotDisturb,
                              following: Bool) -> (choice: SilentChoice, seen: Bool?, changed: Bool) {
        guard doNotDisturb.isKnown else { return (choice, lastSeen, false) }
        let changed = lastSeen.map { $0 != doNotDisturb.isOn } ?? false
        return (following && changed ? .follow : choice, doNotDisturb.isOn, changed)
    }
}
