/// WirePlumber's role ducking, taken over by the agent (docs/POLICY.md,
/// "Beside WirePlumber's role policy"). WirePlumber ducks a role loopback by
/// its playing side's Props `volume`; the agent ducks the streams behind it
/// by theirs. Both at once would be heard as their product (0.2 × 0.3), and
/// whether WirePlumber's is heard at all depends on the stack (PipeWire
/// 1.6.8 + WirePlumber 0.5.15 report it and do not apply it). So while role
/// loopbacks exist the agent sets WirePlumber's own setting
/// `linking.role-based.duck-level` (in its `sm-settings` metadata, as
/// `wpctl settings` does; not saved) to 1, and applies WirePlumber's duck
/// itself (`RoleGains`), at the level the setting had. That level is
/// journaled before the setting changes and written back when the agent
/// stops, or when the loopbacks go.
public enum RoleDuckTakeover {
    /// What the setting says while the agent ducks in WirePlumber's place.
    public static let neutral = "1.0"

    public struct Step: Sendable, Equatable {
        /// The setting the agent replaced (its text): the journal keeps it.
        public var replaced: String?
        /// The level WirePlumber's role policy ducks to, as the agent applies it.
        public var duckLevel: Double
        public var writes: [MetadataWrite] = []
        /// Loopbacks' playing sides WirePlumber ducked before the agent took
        /// over: set back to 1 once, the agent's gains take their place.
        public var resets: [UInt32] = []
        /// Said once, when the agent takes over a level or gives it back.
        public var notice: String?
    }

    /// The write of the setting (`nil` = `neutral`).
    static func write(_ value: String) -> MetadataWrite {
        MetadataWrite(metadata: RoleLoopbacks.settingsMetadata, subject: 0, key: RoleLoopbacks.duckLevelKey,
                      type: AgentProtocol.jsonType, value: value)
    }

    /// One reconcile's step: take over a level WirePlumber would duck with
    /// (one the user set meanwhile too), or give it back when the loopbacks
    /// are gone. `replaced` is what the journal holds.
    public static func step(roles: RoleLoopbacks, replaced: String?, dryRun: Bool) -> Step {
        let current = roles.duckLevelSetting
        let currentLevel = RoleLoopbacks.level(current)
        guard roles.isActive else {
            // Role policy gone (WirePlumber restarted without it): its
            // setting back as it was, if it is still ours.
            guard let replaced, current != nil, currentLevel == 1, !dryRun else {
                return Step(replaced: current == nil ? replaced : nil, duckLevel: RoleLoopbacks.defaultDuckLevel)
            }
            return Step(replaced: nil, duckLevel: RoleLoopbacks.level(replaced) ?? RoleLoopbacks.defaultDuckLevel,
                        writes: [write(replaced)],
                        notice: "WirePlumber's role loopbacks are gone: linking.role-based.duck-level back to \(replaced)")
        }
        guard !dryRun else {
            return Step(replaced: replaced, duckLevel: currentLevel ?? RoleLoopbacks.defaultDuckLevel)
        }
        guard let current, let level = currentLevel, level != 1 else {
            // Ours (or the user's 1: nothing to take over). A setting not
            // read for a moment (its metadata not mirrored yet) is no
            // reason to forget the level to give back at exit.
            let duckLevel = RoleLoopbacks.level(replaced) ?? currentLevel ?? RoleLoopbacks.defaultDuckLevel
            return Step(replaced: currentLevel == 1 || current == nil ? replaced : nil, duckLevel: duckLevel)
        }
        var step = Step(replaced: current, duckLevel: level, writes: [write(neutral)])
        if replaced == nil {
            step.resets = roles.loopbacks.compactMap { $0.volume != 1 ? $0.output : nil }
        }
        if replaced != current {
            step.notice = "WirePlumber role policy: its ducking is done by pw-policy (linking.role-based.duck-level "
                + "\(current) applied to the streams behind its loopbacks; the setting is 1 while pw-policy runs)"
        }
        return step
    }

    /// At exit: the setting back as the agent found it, unless someone set
    /// another since (`current`, what `sm-settings` says now, is not the
    /// agent's 1: a `wpctl settings` after a crash, a restarted WirePlumber).
    public static func restore(replaced: String?, current: String?) -> [MetadataWrite] {
        guard let replaced, RoleLoopbacks.level(current) == 1 else { return [] }
        return [write(replaced)]
    }
}
