/// What the agent makes WirePlumber remember, and gives back (docs/POLICY.md,
/// "WirePlumber's memory" and "Beside WirePlumber's role policy"): the
/// gains WirePlumber saves under a stream's key, and its role-duck level,
/// which the agent takes over while role loopbacks exist. What is to be
/// given back lives in the journal, written before the change it records:
/// a restarted agent, or `pw-policy restore`, gives it back. The mechanism
/// (keys, route-settings, the setting's writes) is WirePlumberStreamState's
/// and RoleDuckTakeover's; this is when the agent uses it.
enum WirePlumberMemoryRoom {
    /// One reconcile's step of the role-duck takeover, the journal told what
    /// it replaced, and what `status` says of the role policy (nil: off).
    static func takeOver(roles: RoleLoopbacks, journal: inout AgentJournal,
                         dryRun: Bool) -> (step: RoleDuckTakeover.Step, status: StackStatus.RolePolicy?) {
        let step = RoleDuckTakeover.step(roles: roles, replaced: journal.wirePlumberDuckLevel, dryRun: dryRun)
        journal.wirePlumberDuckLevel = step.replaced
        guard roles.isActive else { return (step, nil) }
        return (step, StackStatus.RolePolicy(loopbacks: roles.loopbacks.map(\.name), duckLevel: step.duckLevel,
                                             duckingTakenOver: !dryRun && step.replaced != nil))
    }

    /// The takeover's writes, after the journal that remembers what they replace.
    static func effects(of takeover: RoleDuckTakeover.Step) -> [AgentEffect] {
        (takeover.notice.map { [AgentEffect.log(.notice, $0)] } ?? [])
            + takeover.writes.map(AgentEffect.setMetadata)
            + takeover.resets.map { AgentEffect.graph(.setGain(node: $0, gain: 1)) }
    }

    /// The keys whose saved volume the gains `sent` taint, journaled; the
    /// saved volume of each key no stream holds a gain of any more, put back
    /// (restore, then forget) — but only when `correcting`, not while a new
    /// stream waits for WirePlumber to link it: like a raise, a correction is
    /// waited for by nobody, and each is work for WirePlumber and a journal
    /// write on the very turn the new stream arrives (docs/PERFORMANCE.md,
    /// "The journal written when the agent acts"). Nothing in a dry run:
    /// nothing was sent.
    static func track(journal: inout AgentJournal, graph: Graph, applied: [UInt32: AppliedStream], sent: [AgentAction],
                      stack: PipeWireStack, dryRun: Bool, correcting: Bool = true) -> [AgentEffect] {
        guard !dryRun else { return [] }
        let tracking = WirePlumberStreamState.track(journal.wirePlumberKeys, graph: graph, applied: applied, sent: sent,
                                                    stack: stack, correcting: correcting)
        journal.wirePlumberKeys = tracking.keys
        return tracking.writes.map(AgentEffect.setMetadata)
    }

    /// At exit, everything given back.
    struct GivenBack {
        /// route-settings corrections and the role-duck level, to write now.
        var writes: [AgentEffect]
        /// The stand-in streams' resets, once the journal is saved.
        var resets: [AgentEffect]
        /// How many saved volumes are corrected, for the log.
        var corrected: Int
    }

    /// Every saved volume the agent's gains tainted put back to the user's
    /// (where a stream of the key is left, the restore of its gain does it),
    /// and the role-duck level written back, unless the user changed it
    /// meanwhile. The journal keeps what is left to do.
    static func giveBack(journal: inout AgentJournal, graph: Graph, stack: PipeWireStack, dryRun: Bool) -> GivenBack {
        let stored = dryRun ? WirePlumberStreamState.Correction(left: journal.wirePlumberKeys)
            : WirePlumberStreamState.correctAll(journal.wirePlumberKeys, graph: graph, stack: stack)
        var writes = stored.writes.map(AgentEffect.setMetadata)
        // WirePlumber ducks its role loopbacks itself again.
        if !dryRun {
            writes += RoleDuckTakeover.restore(replaced: journal.wirePlumberDuckLevel,
                                               current: RoleLoopbacks.duckLevelSetting(in: graph)).map(AgentEffect.setMetadata)
        }
        journal.wirePlumberDuckLevel = nil
        journal.wirePlumberKeys = stored.standIns.merging(stored.left) { $1 }
        return GivenBack(writes: writes, resets: stored.standIns.isEmpty ? [] : [.resetStoredVolumes(stored.standIns)],
                         corrected: stored.writes.filter { $0.value != nil }.count + stored.standIns.count)
    }

    /// After the stand-ins: the keys whose saved volume is 1 again are
    /// forgotten; the others stay in the journal for the next start.
    static func reset(_ done: Set<String>, journal: inout AgentJournal) -> [AgentEffect] {
        journal.wirePlumberKeys = journal.wirePlumberKeys.filter { !done.contains($0.key) }
        let left = journal.wirePlumberKeys.keys.sorted()
        return left.isEmpty ? [] : [.log(.warning,
            "WirePlumber's saved volume of \(left.joined(separator: ", ")) could not be reset; 'pw-policy restore' tries again")]
    }
}
