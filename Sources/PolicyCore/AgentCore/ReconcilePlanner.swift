/// Compares what the engine wants with what the graph shows and returns the
/// fewest actions that close the gap (level-triggered: a missed event, a
/// WirePlumber relink or a stale gain restored by restore-stream converge).
public struct ReconcilePlanner: Sendable {
    public var fadeDown: Double
    public var fadeUp: Double
    /// How fades reach the daemon and how often.
    public var pacing: FadePacing
    /// A commanded gain not reported back within this time is sent again.
    public var confirmTimeout: Double
    /// How often a command not reported back yet is checked for being
    /// overtaken (`AppliedStream.overtaken`) until the timeout: echoes of
    /// our own commands run no reconcile, so the check needs a wake-up.
    static let overtakenCheck = 0.25

    public init(settings: Settings, pacing: FadePacing = FadePacing(), confirmTimeout: Double = 1.0) {
        fadeDown = Double(settings.fadeDownMs) / 1000
        fadeUp = Double(settings.fadeUpMs) / 1000
        self.pacing = pacing
        self.confirmTimeout = confirmTimeout
    }

    public struct Plan: Sendable, Equatable {
        public var actions: [AgentAction]
        public var applied: [UInt32: AppliedStream]
        /// When to run again for a fade step or a confirmation check; nil = not needed.
        public var nextTick: Double?
        /// The new streams WirePlumber has yet to link, for the next plan.
        public var linkWait = LinkWait()
        /// Streams kept from their output until they pass the start gate (StartGate).
        public var gated: Set<UInt32> = []
    }

    static let epsilon = 0.002
    /// A `Suspend` not reported back as `suspended` within this time is sent
    /// again (the daemon answers within a graph cycle or two).
    static let resuspendAfter = 0.2
    /// How long a held stream stays unlinked before it is suspended: longer
    /// than WirePlumber takes to relink a stream whose output went away.
    static let unlinkedBeforeSuspend = 0.2

    /// `gate`: what the start gate refused until now; `refused`: the streams
    /// whose links it destroyed as they appeared, and the node each was
    /// being linked to (StartGate).
    public func plan(graph: Graph, decisions: [UInt32: StreamDecision], classified: [UInt32: ClassifiedStream],
                     applied previous: [UInt32: AppliedStream], linkWait previousWait: LinkWait = LinkWait(),
                     gate: StartGate = .open, refused: [UInt32: UInt32] = [:], now: Double) -> Plan {
        let linkWait = previousWait.observed(graph, applied: previous, now: now, longest: pacing.longestLinkWait)
        var plan = PlanInProgress(fading: Self.fading(previous, decisions: decisions), raisesWait: linkWait.raisesWait,
                                  refused: refused, now: now)
        for node in graph.streams {
            var state = previous[node.id].flatMap { $0.serial == node.serial ? $0 : nil }
            var rampRunning = false
            if var running = state {
                let landing: [AgentAction]
                (rampRunning, landing) = settleNativeRamp(&running, node: node, now: now)
                plan.actions += landing
                if let until = running.rampRunsUntil { plan.tick(until) }
                state = running
            }
            guard let decision = decisions[node.id], !Self.leavesAlone(classified[node.id]) else {
                if let state { letGo(state, node: node, rampRunning: rampRunning, graph: graph, plan: &plan) }
                continue
            }
            var stream = state ?? AppliedStream(serial: node.serial)
            if StartGate.applies(to: node), stream.startGate != .passed {
                stream.startGate = Self.gateProgress(stream.startGate, node: node, isNew: state == nil,
                                                     refused: gate.refuses(stream: node.id, serial: node.serial, client: node.clientID),
                                                     graph: graph)
            }
            if decision.hold != nil {
                hold(&stream, node: node, rampRunning: rampRunning, graph: graph, plan: &plan)
            } else {
                play(&stream, decision: decision, node: node, isNew: state == nil, rampRunning: rampRunning,
                     graph: graph, plan: &plan)
            }
            scheduleNext(stream, plan: &plan)
            // Every stream with a known gain is remembered, even at 1: a later
            // change of decision must fade it, only a stream never seen jumps.
            if stream.commandedGain != nil || stream.held || stream.ramp != nil || stream.routedTo != nil
                || !stream.confirmed || stream.rampRunsUntil != nil || stream.heldFrom != nil {
                plan.applied[node.id] = stream
            }
        }
        return Plan(actions: plan.actions, applied: plan.applied, nextTick: plan.nextTick, linkWait: linkWait,
                    gated: plan.gated)
    }

    /// One plan under way: what it sends and remembers, when it wants to run
    /// again, and what its fades share.
    private struct PlanInProgress {
        var actions: [AgentAction] = []
        var applied: [UInt32: AppliedStream] = [:]
        var nextTick: Double?
        /// All fades share one budget of Props updates (FadePacing): the
        /// streams fading, and those about to.
        let fading: Int
        /// Until when raises wait for WirePlumber to link new streams (LinkWait).
        let raisesWait: Double?
        /// The links the start gate refused: stream → where it was being linked.
        let refused: [UInt32: UInt32]
        let now: Double
        /// Streams kept from their output until they pass the start gate.
        var gated: Set<UInt32> = []
        /// Raises placed so far in this plan.
        var raises = 0

        mutating func tick(_ time: Double) { nextTick = min(nextTick ?? time, time) }

        /// Raises starting in this plan, each after the one before
        /// (FadePacing.raiseDelay), and none while WirePlumber has a new
        /// stream to link.
        mutating func placeRaise(_ ramp: inout GainRamp, pacing: FadePacing) {
            defer { raises += 1 }
            ramp.start = (raisesWait ?? now) + pacing.raiseDelay(raises, fading: fading)
            ramp.waitsForLinking = raisesWait != nil
        }
    }

    /// The streams fading, and those about to (a duck of many starts many).
    private static func fading(_ previous: [UInt32: AppliedStream], decisions: [UInt32: StreamDecision]) -> Int {
        previous.reduce(0) { count, entry in
            let (id, stream) = entry
            let starts = decisions[id].map { decision in
                decision.hold == nil && stream.commandedGain.map { abs($0 - decision.gain) >= epsilon } == true
            } ?? false
            return count + (stream.ramp != nil || starts ? 1 : 0)
        }
    }

    /// Exempt, audio processing, or not classified (yet): not the policy's.
    private static func leavesAlone(_ classified: ClassifiedStream?) -> Bool {
        classified.map { $0.classification.exempt || $0.classification.category == .audioProcessing } ?? true
    }

    /// A stream never ours, or no longer: undo what we did, then forget it.
    /// A lost restore is sent once more, not fought over: the stream is
    /// someone else's now.
    private func letGo(_ state: AppliedStream, node: Graph.Node, rampRunning: Bool, graph: Graph,
                       plan: inout PlanInProgress) {
        guard !state.isNeutral || !state.confirmed || state.landing != nil else { return }
        var state = state
        let retried = commandLost(state, now: plan.now)
        if rampRunning {
            // Sent plainly now it would be overwritten: after the ramp.
            if state.held || state.heldFrom != nil {
                plan.actions += unhold(&state, node: node, decision: nil, graph: graph, now: plan.now)
            }
            state.ramp = nil
            state.landing = 1
            plan.applied[node.id] = state
            return
        }
        plan.actions += restore(&state, node: node, graph: graph, now: plan.now)
        if !state.confirmed && !retried {
            if let check = nextLossCheck(state, now: plan.now) { plan.tick(check) }
            plan.applied[node.id] = state
        }
    }

    /// A held stream: silent first, then unlinked — nothing may leak while
    /// WirePlumber relinks — and suspended if it plays on into nothing.
    private func hold(_ stream: inout AppliedStream, node: Graph.Node, rampRunning: Bool, graph: Graph,
                      plan: inout PlanInProgress) {
        let now = plan.now
        stream.ramp = nil
        if stream.commandedGain != 0 || (stream.confirmed && observedDiffers(node, from: 0))
            || commandLost(stream, now: now) {
            plan.actions += command(&stream, gain: 0, node: node, now: now)
            // A running native ramp overwrites it; the unlink below
            // silences the stream meanwhile, and 0 is sent again after.
            if rampRunning { stream.landing = 0 }
        }
        let links = graph.links(from: node.id) + graph.links(to: node.id)
        if !stream.held, let first = links.first {
            stream.heldFrom = first.outputNode == node.id ? first.inputNode : first.outputNode
        }
        plan.actions += links.map { .destroyLink($0.id) }
        stream.held = true
        // Relinked by WirePlumber before it passed the gate, it would start
        // at its client's own volume: refused on sight instead (StartGate).
        if stream.startGate != .passed, StartGate.applies(to: node) { plan.gated.insert(node.id) }
        // A held stream that runs with no links (node.always-process)
        // plays on into nothing: Suspend stops it (docs/HOLDS.md).
        // Only once it has stayed unlinked a moment — a linked stream
        // starts again at once, and WirePlumber relinks a stream whose
        // output just went away — and again whenever it runs anyway.
        // Streams that go idle when unlinked are stopped already.
        guard links.isEmpty, node.streamDirection == .playback else {
            stream.unlinkedSince = nil
            return
        }
        let since = stream.unlinkedSince ?? now
        stream.unlinkedSince = since
        guard node.state == .running else { return }
        if now - since >= Self.unlinkedBeforeSuspend, stream.suspendedAt.map({ now - $0 >= Self.resuspendAfter }) ?? true {
            plan.actions.append(.suspend(node: node.id))
            stream.suspendedAt = now
        }
        plan.tick(max(since + Self.unlinkedBeforeSuspend, (stream.suspendedAt ?? 0) + Self.resuspendAfter))
    }

    /// A stream that plays: released if it was held, moved toward its gain,
    /// and sent to the output the policy prefers.
    private func play(_ stream: inout AppliedStream, decision: StreamDecision, node: Graph.Node, isNew: Bool,
                      rampRunning: Bool, graph: Graph, plan: inout PlanInProgress) {
        if var ramp = stream.ramp, plan.now < ramp.start, ramp.waitsForLinking || plan.raisesWait != nil {
            // A raise not begun yet: it waits while WirePlumber links, and goes once it has.
            plan.placeRaise(&ramp, pacing: pacing)
            stream.ramp = ramp
        }
        if !stream.held, keptFromOutput(&stream, decision: decision, node: node, isNew: isNew, graph: graph, plan: &plan) {
            return
        }
        if stream.held {
            plan.actions += unhold(&stream, node: node, decision: decision, graph: graph, now: plan.now)
            if decision.gain >= Self.epsilon {
                var ramp = GainRamp(from: 0, to: decision.gain, start: plan.now,
                                    duration: fadeDuration(fadeUp, node: node, graph: graph, fading: plan.fading))
                plan.placeRaise(&ramp, pacing: pacing)
                stream.ramp = ramp
            }
        }
        if !rampRunning {
            let converged = converge(&stream, to: decision.gain, node: node, graph: graph, isNew: isNew, plan: &plan)
            plan.actions += converged
        }
        if let target = decision.preferredTarget, let serial = graph.nodes[target]?.serial,
           stream.routedTo != serial, !Self.playsTo(target, stream: node.id, in: graph) {
            plan.actions.append(.setTarget(stream: node.id, targetSerial: serial))
            stream.routedTo = serial
        }
    }

    /// Where a stream stands at the start gate after what was observed: one
    /// found linked, or running linked, has passed; one running unlinked
    /// has started. A link the gate refuses may show before its refusal:
    /// then running linked is a start, not a pass (`refused`).
    private static func gateProgress(_ progress: StartGate.Progress?, node: Graph.Node, isNew: Bool, refused: Bool,
                                     graph: Graph) -> StartGate.Progress? {
        let linked = !outputLinks(of: node.id, in: graph).isEmpty
        if linked && !refused && (isNew || node.state == .running) { return .passed }
        return node.state == .running ? .started : progress
    }

    /// The start gate (StartGate): a playback stream that must start below
    /// full gain and has not passed the gate is kept unlinked; once
    /// WirePlumber has tried to link it (the link refused on sight tells
    /// where), its gain is sent — after a `prime` if it has not started
    /// yet — and then it is linked there, in one batch the daemon keeps in
    /// order. A stream whose link was refused but that plays at full gain
    /// is linked back at once. True when the stream is handled for this plan.
    private func keptFromOutput(_ stream: inout AppliedStream, decision: StreamDecision, node: Graph.Node, isNew: Bool,
                                graph: Graph, plan: inout PlanInProgress) -> Bool {
        let links = Self.outputLinks(of: node.id, in: graph)
        guard StartGate.applies(to: node), stream.startGate != .passed, decision.gain < 1 - Self.epsilon else {
            // Refused while not judged yet, or while it was gated: back to
            // where it was going, until it shows linked (a link made while
            // its client re-creates its ports fails: tried again).
            if !links.isEmpty {
                stream.heldFrom = nil
            } else if let target = plan.refused[node.id] ?? stream.heldFrom {
                plan.actions += relink(node, decision: decision, heldFrom: target, graph: graph)
                stream.heldFrom = target
            }
            return false
        }
        plan.gated.insert(node.id)
        // Meanwhile it waits at its gain, as any stream that does not run
        // (docs/POLICY.md, "Inactive sessions"): should a link of
        // WirePlumber's be refused too late, a client that does not write
        // its own volume plays it already.
        plan.actions += converge(&stream, to: decision.gain, node: node, graph: graph, isNew: isNew, plan: &plan)
        if let first = links.first {
            stream.heldFrom = stream.heldFrom ?? first.inputNode
            plan.actions += links.map { .destroyLink($0.id) }
            return true
        }
        // Not linked yet: WirePlumber's first link is refused on sight.
        guard let target = plan.refused[node.id] ?? stream.heldFrom else { return true }
        let linked = relink(node, decision: decision, heldFrom: target, graph: graph)
        guard !linked.isEmpty else { return true }
        plan.gated.remove(node.id)
        plan.actions += passGate(&stream, gain: decision.gain, node: node, now: plan.now) + linked
        stream.heldFrom = target
        return true
    }

    /// What goes before the link that lets a stream through the gate: its
    /// gain, after a `prime` if its client has not started yet. What the
    /// client reports in between is its own write, not a loss of ours:
    /// only the timeout resends.
    private func passGate(_ stream: inout AppliedStream, gain: Double, node: Graph.Node, now: Double) -> [AgentAction] {
        let started = stream.startGate == .started
        stream.startGate = .passed
        stream.ramp = nil
        stream.commandedGain = gain
        stream.commandedAt = now
        stream.confirmed = false
        stream.overtaken = nil
        stream.sentAgainEarly = nil
        stream.reportsWhenCommanded = nil
        return [started ? .setGain(node: node.id, gain: gain) : .prime(node: node.id, gain: gain)]
    }

    /// When the plan must run again for this stream: its next fade step,
    /// the end of its native ramp, the check that its command arrived.
    private func scheduleNext(_ stream: AppliedStream, plan: inout PlanInProgress) {
        if let ramp = stream.ramp, stream.rampRunsUntil == nil {
            plan.tick(max(min(nextStepDue(stream, along: ramp, fading: plan.fading), ramp.end), plan.now + 0.001))
        }
        if let until = stream.rampRunsUntil { plan.tick(until) }
        if let check = nextLossCheck(stream, now: plan.now) { plan.tick(check) }
    }

    /// Moves the stream's gain toward `target`: fades when the policy changes,
    /// jumps for a new stream (no blip of the wrong level) and when someone
    /// else (restore-stream) overwrote our value.
    private func converge(_ stream: inout AppliedStream, to target: Double, node: Graph.Node, graph: Graph,
                          isNew: Bool, plan: inout PlanInProgress) -> [AgentAction] {
        let now = plan.now, fading = plan.fading
        if stream.confirmed, let commanded = stream.commandedGain, stream.ramp == nil,
           observedDiffers(node, from: commanded) {
            return command(&stream, gain: target, node: node, now: now)  // overwritten by someone else
        }
        if let ramp = stream.ramp, abs(ramp.to - target) < Self.epsilon {
            return advance(&stream, along: ramp, node: node, graph: graph, fading: fading, now: now)
        }
        // What the daemon has: our last command (a step or a native ramp's end).
        let current = stream.commandedGain ?? node.volume.map(Double.init)
        guard let current else { return [] }  // Props not reported yet: wait
        if isNew {
            // Straight to its level: no blip of a stale gain, no audible fade-in.
            stream.ramp = nil
            return command(&stream, gain: target, node: node, now: now)
        }
        if !stream.confirmed, stream.ramp == nil, abs((stream.commandedGain ?? -1) - target) < Self.epsilon {
            // Our last command is still on its way; resend only if it got lost.
            return commandLost(stream, now: now) ? command(&stream, gain: target, node: node, now: now) : []
        }
        guard abs(current - target) >= Self.epsilon || observedDiffers(node, from: target) else {
            stream.ramp = nil
            // Known from now on, so that its next change fades.
            return stream.commandedGain == nil ? command(&stream, gain: target, node: node, now: now) : []
        }
        let duration = fadeDuration(target < current ? fadeDown : fadeUp, node: node, graph: graph, fading: fading)
        // A stream that does not run is not heard: a fade would only cost
        // Props updates, and one that opens during a recording must be at
        // its gain before its first sample (docs/POLICY.md, "Inactive sessions").
        if duration <= 0 || node.state != .running {
            stream.ramp = nil
            return command(&stream, gain: target, node: node, now: now)
        }
        var ramp = GainRamp(from: current, to: target, start: now, duration: duration)
        if target > current { plan.placeRaise(&ramp, pacing: pacing) }
        stream.ramp = ramp
        return advance(&stream, along: ramp, node: node, graph: graph, fading: fading, now: now)
    }

    /// Whether the stream's fades are native ramps: its client has them, and
    /// the stream runs (a ramp sent to a stream that does not run would wait,
    /// and block the next; steps do not).
    private func rampsNatively(_ node: Graph.Node, graph: Graph) -> Bool {
        node.state == .running
            && StackCapabilities.hasNativeVolumeRamps(client: node.clientID.flatMap { graph.clients[$0] })
    }

    /// How long a fade configured to last `configured` takes: as configured
    /// for native ramps, stretched for steps while many streams fade
    /// (FadePacing.steppedDuration).
    private func fadeDuration(_ configured: Double, node: Graph.Node, graph: Graph, fading: Int) -> Double {
        configured <= 0 || rampsNatively(node, graph: graph) ? configured
            : pacing.steppedDuration(configured, fading: fading)
    }

    /// The time between two steps of `ramp` (FadePacing).
    private func stepInterval(_ ramp: GainRamp, fading: Int) -> Double {
        pacing.stepInterval(fading: fading, duration: ramp.duration, configured: ramp.to < ramp.from ? fadeDown : fadeUp)
    }

    /// When the next step of a stepped fade is due, for the step and for the
    /// wake-up alike: the first at the fade's start (a raise may wait for its
    /// turn), the others a step interval after the one before. Woken a step
    /// after the last command instead, a raise not begun waited for the
    /// duck's step interval, beyond the fade's length when many fade, and the
    /// raises due meanwhile went in one burst.
    private func nextStepDue(_ stream: AppliedStream, along ramp: GainRamp, fading: Int) -> Double {
        stream.commandedAt < ramp.start ? ramp.start : stream.commandedAt + stepInterval(ramp, fading: fading)
    }

    /// The next piece of a fade: a native ramp to a point further along the
    /// curve, or a step (FadePacing).
    private func advance(_ stream: inout AppliedStream, along ramp: GainRamp, node: Graph.Node, graph: Graph,
                         fading: Int, now: Double) -> [AgentAction] {
        if now < ramp.start { return [] }  // a raise waiting for its turn
        if ramp.isFinished(at: now) {
            stream.ramp = nil
            return stream.commandedGain == ramp.to && !observedDiffers(node, from: ramp.to) ? []
                : command(&stream, gain: ramp.to, node: node, now: now)
        }
        if rampsNatively(node, graph: graph) {
            let length = pacing.segments(duration: ramp.duration, fading: fading).length
            // The last piece takes the rest rather than leave a sliver.
            let end = ramp.end - now < length * 1.5 ? ramp.end : now + length
            let gain = ramp.value(at: end)
            if end == ramp.end {
                stream.ramp = nil
                // A native ramp stops one step short: land exactly on 1.
                if gain == 1 { stream.landing = 1 }
            }
            let sent = command(&stream, gain: gain, node: node, now: now,
                               rampMilliseconds: max(1, Int(((end - now) * 1000).rounded())))
            if !sent.isEmpty {
                stream.rampLength = end - now
                stream.rampRunsUntil = end + pacing.rampSettle
            }
            return sent
        }
        guard now >= nextStepDue(stream, along: ramp, fading: fading) - 1e-9 else { return [] }
        let interval = stepInterval(ramp, fading: fading)
        // A step ahead: the first one goes at once, the last lands at the end.
        let stepEnd = now + interval >= ramp.end - interval / 2 ? ramp.end : now + interval
        let gain = ramp.value(at: stepEnd)
        if stepEnd == ramp.end { stream.ramp = nil }
        return command(&stream, gain: gain, node: node, now: now)
    }

    /// Whether a native ramp we sent may still run in the client; once it is
    /// over, the gain that was waiting for it is sent. A ramp advances only
    /// while its stream runs, so a stream that stopped pushes the end out.
    private func settleNativeRamp(_ stream: inout AppliedStream, node: Graph.Node,
                                  now: Double) -> (running: Bool, actions: [AgentAction]) {
        guard var until = stream.rampRunsUntil else { return (false, []) }
        if node.state != .running { until = max(until, now + (stream.rampLength ?? 0) + pacing.rampSettle) }
        if now < until {
            stream.rampRunsUntil = until
            return (true, [])
        }
        stream.rampRunsUntil = nil
        stream.rampLength = nil
        guard let landing = stream.landing else { return (false, []) }
        stream.landing = nil
        return (false, command(&stream, gain: landing, node: node, now: now, always: true))
    }

    /// Our last command was not reported back in time, or a later one to
    /// the same client was: the daemon or the client lost it.
    private func commandLost(_ stream: AppliedStream, now: Double) -> Bool {
        !stream.confirmed && confirmTimeout.isFinite
            && (stream.overtaken == true || now - stream.commandedAt >= confirmTimeout)
    }

    /// When to check an unconfirmed command next: every `overtakenCheck`
    /// while it may yet be found overtaken, and at the timeout.
    private func nextLossCheck(_ stream: AppliedStream, now: Double) -> Double? {
        guard !stream.confirmed, confirmTimeout.isFinite else { return nil }
        let timeout = stream.commandedAt + confirmTimeout
        guard stream.sentAgainEarly != true else { return timeout }
        let checks = ((now - stream.commandedAt) / Self.overtakenCheck).rounded(.down) + 1
        return min(stream.commandedAt + checks * Self.overtakenCheck, timeout)
    }

    /// Everything needed to leave every stream as it would be without us:
    /// gains back to 1, held streams linked where they played. For shutdown.
    /// Streams whose links the start gate refused are linked where they
    /// were going.
    public func restoreAll(graph: Graph, applied: [UInt32: AppliedStream], refused: [UInt32: UInt32] = [:],
                           now: Double) -> [AgentAction] {
        let restoring = applied.sorted { $0.key < $1.key }.flatMap { id, state -> [AgentAction] in
            guard let node = graph.nodes[id], node.serial == state.serial else { return [] }
            var state = state
            return restore(&state, node: node, graph: graph, now: now, restatingInFlight: true)
        }
        let refusedOnly = refused.filter { applied[$0.key] == nil && graph.nodes[$0.key] != nil }.sorted { $0.key < $1.key }
        return restoring + refusedOnly.flatMap { id, target in
            relink(graph.nodes[id]!, decision: nil, heldFrom: target, graph: graph)
        }
    }

    /// Gain back to 1 and links back. `restatingInFlight`: at shutdown there
    /// is no later reconcile to resend it, so a command still on its way
    /// (even one to 1) is followed by a 1 of our own.
    private func restore(_ state: inout AppliedStream, node: Graph.Node, graph: Graph, now: Double,
                         restatingInFlight: Bool = false) -> [AgentAction] {
        var actions: [AgentAction] = []
        state.ramp = nil
        if state.held || state.heldFrom != nil {
            actions += unhold(&state, node: node, decision: nil, graph: graph, now: now)
        }
        if (state.commandedGain ?? 1) != 1 || commandLost(state, now: now) || (restatingInFlight && !state.confirmed) {
            actions += command(&state, gain: 1, node: node, now: now)
        }
        return actions
    }

    /// Records `gain` as commanded now and returns what sends it: nothing
    /// when the daemon already reports it — unless `always` (after a native
    /// ramp, what it reports is not what it plays) or our last command is
    /// still on its way: then what it reports is about to change, and a
    /// restore to the value it shows would be lost behind the command in
    /// flight — a native ramp over `rampMilliseconds` when given, else a
    /// plain `volume`.
    private func command(_ stream: inout AppliedStream, gain: Double, node: Graph.Node, now: Double,
                         rampMilliseconds: Int? = nil, always: Bool = false) -> [AgentAction] {
        let inFlight = !stream.confirmed
        // The same gain again while the last is unconfirmed: a resend.
        let resent = inFlight && stream.commandedGain == gain
        stream.sentAgainEarly = resent && (stream.overtaken == true || stream.sentAgainEarly == true) ? true : nil
        stream.overtaken = nil
        stream.commandedGain = gain
        stream.commandedAt = now
        stream.reportsWhenCommanded = node.propsReports
        stream.confirmed = !always && !inFlight && !observedDiffers(node, from: gain)
        guard !stream.confirmed else { return [] }
        return [rampMilliseconds.map { .rampGain(node: node.id, gain: gain, milliseconds: $0) }
                ?? .setGain(node: node.id, gain: gain)]
    }

    private func observedDiffers(_ node: Graph.Node, from gain: Double) -> Bool {
        guard let volume = node.volume else { return true }
        return !Self.reports(volume, gain)
    }

    /// Whether the daemon reports `gain` as sent: Props carry a 32-bit float,
    /// so exactly that float, not merely something close (a fade step a hair
    /// below 1 is not 1).
    public static func reports(_ volume: Float, _ gain: Double) -> Bool {
        volume == Float(gain)
    }

    /// Links a released stream back where it belongs: the engine's preferred
    /// target, else where it was, else the target it asked for, else the
    /// role loopback WirePlumber would link it into, else the default sink
    /// (playback) or source (capture).
    /// Ends a hold: linked back (which starts a suspended stream), and
    /// everything the hold remembered forgotten.
    /// A stream that has not passed the start gate gets gain 0 first
    /// (StartGate): the release fades it up from there.
    private func unhold(_ stream: inout AppliedStream, node: Graph.Node, decision: StreamDecision?,
                        graph: Graph, now: Double) -> [AgentAction] {
        defer {
            stream.heldFrom = nil
            stream.held = false
            stream.unlinkedSince = nil
            stream.suspendedAt = nil
        }
        let relinked = relink(node, decision: decision, heldFrom: stream.heldFrom, graph: graph)
        guard !relinked.isEmpty, decision != nil, stream.startGate != .passed, StartGate.applies(to: node) else {
            return relinked
        }
        return passGate(&stream, gain: 0, node: node, now: now) + relinked
    }

    private func relink(_ node: Graph.Node, decision: StreamDecision?, heldFrom: UInt32?, graph: Graph) -> [AgentAction] {
        guard Self.outputLinks(of: node.id, in: graph).isEmpty
                && graph.links(to: node.id).allSatisfy({ graph.nodes[$0.outputNode]?.isAgentsOwn == true }) else { return [] }
        let target: UInt32?
        if let preferred = decision?.preferredTarget, graph.nodes[preferred] != nil {
            target = preferred
        } else if let heldFrom, graph.nodes[heldFrom] != nil {
            target = heldFrom  // back where it played (a route-lost stream's node is gone)
        } else if let own = ownTarget(of: node, in: graph) {
            target = own
        } else if let loopback = RoleLoopbacks.observed(in: graph).loopback(for: node) {
            // Into the role loopback WirePlumber would use, never around it
            // to the sink (docs/POLICY.md, "Beside WirePlumber's role policy").
            target = loopback.input
        } else if node.streamDirection == .capture {
            target = OutputDetection.defaultInput(in: graph)
        } else {
            target = OutputDetection.defaultOutput(in: graph)
        }
        guard let target else { return [] }
        return [node.streamDirection == .capture ? .link(output: target, input: node.id) : .link(output: node.id, input: target)]
    }

    /// Whether the stream plays to `sink`: linked to it, or into a role
    /// loopback of WirePlumber's that plays to it (moving it there would
    /// take it around the loopback).
    static func playsTo(_ sink: UInt32, stream: UInt32, in graph: Graph) -> Bool {
        guard let linked = EngineInputBuilder.linkedSink(of: stream, in: graph) else { return false }
        return linked == sink || RoleLoopbacks.observed(in: graph).resolve(linked) == sink
    }

    /// The links that carry the stream somewhere: all of its outputs' but
    /// those into the agent's own nodes (a meter reads it beside its output).
    static func outputLinks(of node: UInt32, in graph: Graph) -> [Graph.Link] {
        graph.links(from: node).filter { graph.nodes[$0.inputNode]?.isAgentsOwn != true }
    }

    /// The target the stream asked for itself (`target.object`/`node.target`
    /// as a node name or serial, in its props or in the default metadata).
    private func ownTarget(of node: Graph.Node, in graph: Graph) -> UInt32? {
        let requested = graph.metadata(named: "default")?.value(subject: node.id, key: "target.object")
            ?? node.props["target.object"] ?? node.props["node.target"]
        guard let requested, !requested.isEmpty, requested != "-1" else { return nil }
        return graph.nodes.values.first { $0.id != node.id && ($0.name == requested || $0.serial.map(String.init) == requested) }?.id
    }

    /// Confirms commands the daemon has reported back, and marks those a
    /// later command to the same client overtook (`AppliedStream.overtaken`).
    /// Call before `plan`.
    public static func confirm(_ applied: inout [UInt32: AppliedStream], graph: Graph) {
        // Per client, the last command sent of those reported back now:
        // `plan` sends in the order of node ids, so (time, id) is the order sent.
        var lastReported: [UInt32: SentOrder] = [:]
        var waiting: [(id: UInt32, client: UInt32, order: SentOrder)] = []
        for (id, stream) in applied where !stream.confirmed {
            guard let node = graph.nodes[id], let commanded = stream.commandedGain else { continue }
            let order = SentOrder(time: stream.commandedAt, node: id)
            if let volume = node.volume, reports(volume, commanded) {
                applied[id]?.confirmed = true
                applied[id]?.overtaken = nil
                applied[id]?.sentAgainEarly = nil
                if let client = node.clientID { lastReported[client] = max(lastReported[client] ?? order, order) }
            } else if stream.sentAgainEarly != true, stream.ramp == nil, stream.rampRunsUntil == nil,
                      let before = stream.reportsWhenCommanded, node.propsReports > before,
                      let volume = node.volume, Double(volume) > commanded + epsilon {
                applied[id]?.overtaken = true  // overwritten: louder than we asked, reported after we asked
            } else if let client = node.clientID, stream.sentAgainEarly != true {
                waiting.append((id, client, order))
            }
        }
        for command in waiting where lastReported[command.client].map({ command.order < $0 }) == true {
            applied[command.id]?.overtaken = true
        }
    }

    /// Where a command stands in the order the agent sent them.
    struct SentOrder: Comparable {
        var time: Double
        var node: UInt32
        static func < (a: Self, b: Self) -> Bool { (a.time, a.node) < (b.time, b.node) }
    }
}
