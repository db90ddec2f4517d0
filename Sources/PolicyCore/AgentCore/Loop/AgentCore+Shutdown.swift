/// The control loop at exit, and `pw-policy restore`: everything the agent
/// changed given back, and only then forgotten (docs/POLICY.md, "Fades").
extension AgentCore {
    /// Until when a native ramp we sent may still run in a client: a restore
    /// sent before would be overwritten by it (FadePacing), so shutdown
    /// waits for this first.
    public var nativeRampsRunUntil: Double? { journal.applied.values.compactMap(\.rampRunsUntil).max() }

    /// Undoes everything the agent changed — gains back to 1.0, held streams
    /// relinked, its `target.object` requests removed — waits until the
    /// daemon has it, and only then forgets it in the journal (dying halfway
    /// leaves the journal to finish the job at the next start).
    public mutating func restoreAll(_ observation: Observation) -> [AgentEffect] {
        let graph = observation.graph
        let restoring = planner.restoreAll(graph: graph, applied: journal.applied, refused: observation.refusedLinks,
                                           now: observation.now)
        restored = identity.dryRun ? [:] : journal.applied.mapValues(\.serial)
        // Nothing refused any more: what we link back, WirePlumber relinks.
        var effects: [AgentEffect] = gate == .open ? [] : [.gate(.open)]
        gate = .open
        effects += act(restoring, graph: graph)
        for (id, applied) in journal.applied.sorted(by: { $0.key < $1.key }) where applied.routedTo != nil {
            let write = MetadataWrite.targetObject(of: id, serial: nil)
            effects.append(identity.dryRun ? .log(.info, "dry-run: would remove the target.object of \(id)") : .setMetadata(write))
        }
        var journal = self.journal
        let givenBack = WirePlumberMemoryRoom.giveBack(journal: &journal, graph: graph, stack: observation.stack,
                                                       dryRun: identity.dryRun)
        effects += givenBack.writes
        effects.append(.flush)
        journal.applied = [:]
        journal.memory = .empty  // nothing is held or ducked any more
        // Players we paused stay paused, and remembered: the next start plays
        // them when their interruption is over (docs/PLAYERS.md).
        effects += save(journal)
        effects += givenBack.resets
        effects.append(.wakeUp(at: nil))
        let corrected = givenBack.corrected
        effects.append(.log(.notice, "restored \(restoring.count) changes"
            + (corrected > 0 ? " and \(corrected) \(corrected == 1 ? "volume" : "volumes") WirePlumber saved" : "")
            + "; every stream is as it would be without pw-policy"))
        return effects
    }

    /// After `resetStoredVolumes`: the keys whose saved volume is 1 again
    /// are forgotten; the others stay in the journal for the next start.
    public mutating func storedVolumesReset(_ done: Set<String>) -> [AgentEffect] {
        var journal = self.journal
        let warning = WirePlumberMemoryRoom.reset(done, journal: &journal)
        return save(journal) + warning
    }

    /// After `restoreAll`: the gain 1 again for every restored stream that
    /// does not report it. A plain `volume` that reaches a client while a
    /// native ramp of ours still runs there — started late by a busy client
    /// — is overwritten by that ramp (docs/POLICY.md, "Fades"); the agent
    /// checks before it exits, as it would on any reconcile.
    public func restoreStragglers(in graph: Graph) -> [AgentAction] {
        restored.sorted { $0.key < $1.key }.compactMap { id, serial in
            guard let node = graph.nodes[id], node.serial == serial, let volume = node.volume,
                  !ReconcilePlanner.reports(volume, 1) else { return nil }
            return .setGain(node: id, gain: 1)
        }
    }
}
