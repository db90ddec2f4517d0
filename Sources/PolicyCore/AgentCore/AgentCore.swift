/// The agent's control loop as a pure step: what was observed in, effects
/// out (docs/ARCHITECTURE.md, "The control loop"). It holds everything the
/// agent remembers — config, journal, event numbering, and what it last
/// published on this connection — and does no I/O: the PipeWire adapter
/// observes the graph, calls one of these methods, and executes the effects
/// in order.
public struct AgentCore: Sendable {
    /// Who this agent is, as its status says.
    public struct Identity: Sendable, Equatable {
        public var pid: Int32
        public var version: String
        /// ISO 8601, UTC.
        public var startedAt: String
        /// Decide and publish, but change nothing outside the agent's own
        /// metadata and journal.
        public var dryRun: Bool
        public init(pid: Int32, version: String, startedAt: String, dryRun: Bool) {
            self.pid = pid; self.version = version; self.startedAt = startedAt; self.dryRun = dryRun
        }
    }

    /// One look at the world: the mirrored graph, the stack beside it, the
    /// media players on the session bus, the time.
    public struct Observation: Sendable {
        public var graph: Graph
        /// Monotonic seconds.
        public var now: Double
        public var stack: PipeWireStack
        public var players: PlayerObservation
        /// What the agent's meters measured (`AgentEffect.meter`).
        public var meters: Meters
        /// What the desktop knows about each client's app, by client id
        /// (docs/CLASSIFICATION.md, "App knowledge").
        public var apps: [UInt32: AppFacts]
        /// The desktop's Do Not Disturb (docs/POLICY.md, "Do Not Disturb").
        public var doNotDisturb: DoNotDisturb
        /// Why the media-key proxy is not on the session bus (its name is
        /// another's, no bus); nil when it is, or when it is turned off.
        public var mediaKeysUnavailable: String?
        /// The streams whose new links the start gate destroyed (`AgentEffect.gate`)
        /// and are still unlinked: stream → the node it was being linked to.
        public var refusedLinks: [UInt32: UInt32]
        /// Whether the session is locked (docs/POLICY.md, "Screen lock").
        public var screenLock = ScreenLock.unknown
        /// The parent of each process that plays or records a stream, while
        /// there are audio sessions (AudioSessionClaims walks up from a
        /// stream's process to a session owner's).
        public var audioSessionAncestry: [Int32: Int32] = [:]
        /// Why the audio-session service is not on the session bus (its name
        /// is another's, no bus, turned off); nil when it is (docs/API.md).
        public var audioSessionsUnavailable: String?
        public init(graph: Graph, now: Double, stack: PipeWireStack, players: PlayerObservation = .unwatched("not connected"),
                    meters: Meters = Meters(), apps: [UInt32: AppFacts] = [:], doNotDisturb: DoNotDisturb = .unknown,
                    mediaKeysUnavailable: String? = nil, refusedLinks: [UInt32: UInt32] = [:]) {
            self.graph = graph; self.now = now; self.stack = stack; self.players = players; self.meters = meters
            self.apps = apps; self.doNotDisturb = doNotDisturb; self.mediaKeysUnavailable = mediaKeysUnavailable
            self.refusedLinks = refusedLinks
        }
    }

    /// The meters on the streams that duck others (Metering).
    public struct Meters: Sendable, Equatable {
        /// What each meter measured, by the metered stream's node id.
        public var readings: [UInt32: Audibility]
        /// Streams whose meter could not be made or failed: judged by node state.
        public var failed: Set<UInt32>
        public init(readings: [UInt32: Audibility] = [:], failed: Set<UInt32> = []) {
            self.readings = readings; self.failed = failed
        }
    }

    /// What the session bus adapter saw (docs/PLAYERS.md).
    public enum PlayerObservation: Sendable, Equatable {
        /// The players, and the parent of each process that plays a stream
        /// (PlayerMatching walks up from a stream's process to a player's).
        case watched(PlayerSet, ancestry: [Int32: Int32])
        /// No session bus, or it went away: why, in words.
        case unwatched(String)

        /// Which player controls which stream; none when unwatched.
        func matches(in graph: Graph) -> [UInt32: PlayerMatch] {
            guard case .watched(let players, let ancestry) = self else { return [:] }
            return PlayerMatching.match(players: players, graph: graph, ancestry: ancestry)
        }

        var summary: String {
            switch self {
            case .watched(let players, _): "\(players.count) MPRIS \(players.count == 1 ? "player" : "players") on the session bus"
            case .unwatched(let why): "not watched: \(why)"
            }
        }
    }

    public let identity: Identity
    public private(set) var journal: AgentJournal
    public private(set) var config: LoadedConfig
    /// The last config reload's error while the previous config stays in force.
    public private(set) var configError: String?
    private var classifications: ClassificationCache
    private var engine: PolicyEngine
    private var planner: ReconcilePlanner
    private var eventSeq: UInt64 = 0
    /// What this connection has been told; reset by `connected`.
    private var published = Publication()
    /// What the reconciles since the last `publish()` decided and the
    /// connection has not been told yet.
    private var unpublished: Unpublished?
    /// The new streams WirePlumber has yet to link (the planner's; not
    /// journaled: a restarted agent sees them afresh).
    private var linkWait = LinkWait()
    /// The streams metered on this connection (`AgentEffect.meter`).
    private var metered: [UInt32: UInt64] = [:]
    /// What the adapter refuses (`AgentEffect.gate`).
    private var gate = StartGate.open
    /// The silent switch, Do Not Disturb, the screen lock and presenting (SilentSwitchRoom).
    private var silencing = SilentSwitchRoom()
    /// The audio sessions apps declared (docs/API.md), what they see and
    /// what they were told (AgentCore+AudioSessions). Not journaled: a
    /// session lives as long as its caller's connection to this agent.
    public internal(set) var audioSessions = AudioSessionTable()
    var audioScene = AudioScene()
    var audioNews = AudioSessionNews()
    var audioSessionsUnavailable: String?

    /// The media keys (MediaKeysRoom).
    private var mediaKeys = MediaKeysRoom()
    /// The player the media-key proxy mirrors (`AgentEffect.mediaKeysTarget`).
    public var mediaKeysMirror: MediaPlayer? { mediaKeys.mirror }

    /// Statuses and events wait for `publish()`, which the executor runs
    /// once the gains have gone out (`AgentEffect.publish`): at hundreds of
    /// streams building them took longer than the decision itself
    /// (docs/PERFORMANCE.md, "Limits found"). Statuses are of the latest
    /// decision; every decision's events are kept, in order.
    private struct Unpublished: Sendable {
        var graph: Graph
        var roles: RoleLoopbacks
        var classified: [UInt32: ClassifiedStream]
        var decision: PolicyDecision
        var controls: ControlRequests
        var players: PlayerObservation
        var matches: [UInt32: PlayerMatch]
        var events: [(event: PolicyEvent, names: DecisionNames)]
        var silentMode: SilentMode
        var doNotDisturb: DoNotDisturb
        var screenCasts: [ScreenCast]
        var screenLock: ScreenLock
    }

    public init(identity: Identity, config: LoadedConfig, journal: AgentJournal) throws {
        self.identity = identity
        self.journal = journal
        self.config = config
        classifications = ClassificationCache(classifier: try Classifier(config: config.config))
        engine = PolicyEngine(config: config.config)
        planner = Self.planner(for: config.config, dryRun: identity.dryRun)
    }

    private static func planner(for config: PolicyConfig, dryRun: Bool) -> ReconcilePlanner {
        // In a dry run nothing is ever confirmed; don't "resend" every second.
        ReconcilePlanner(settings: config.settings, confirmTimeout: dryRun ? .infinity : 1.0)
    }

    // MARK: - connection

    /// A new connection's first complete graph: it has a fresh (empty) agent
    /// metadata, so everything is published anew, starting with the
    /// persisted user settings (the CLI reads them there, and they keep
    /// applying because the agent reads its requests there too).
    public mutating func connected(_ observation: Observation) -> [AgentEffect] {
        published = Publication()
        silencing.connected()
        metered = [:]
        gate = .open
        var effects: [AgentEffect] = []
        guard observation.graph.metadata(named: AgentProtocol.metadataName) != nil else { return reconcile(observation) }
        effects.append(own(subject: 0, AgentProtocol.silentModeKey, AgentProtocol.silentModeValue(journal.silentChoice)))
        for (appKey, request) in journal.appOverrides.sorted(by: { $0.key < $1.key }) {
            effects.append(own(subject: 0, AgentProtocol.appOverridePrefix + appKey, StatusPublisher.json(request)))
        }
        return effects + reconcile(observation)
    }

    // MARK: - the control loop

    /// One turn of the loop, level-triggered: the effects that bring the
    /// graph to what the policy wants now, ending with `publish` for what
    /// the connection is to be told of it.
    public mutating func reconcile(_ observation: Observation) -> [AgentEffect] {
        let graph = observation.graph, now = observation.now
        var effects: [AgentEffect] = []
        var journal = self.journal
        ReconcilePlanner.confirm(&journal.applied, graph: graph)

        let controls = ControlRequests.parse(graph.metadata(named: AgentProtocol.metadataName),
                                             previousNodeOverrides: published.nodeOverrides)
        published.nodeOverrides = controls.nodeOverrides
        effects += published.newWarnings(controls.warnings).map { .log(.warning, $0) }
        let switchIsThere = graph.metadata(named: AgentProtocol.metadataName) != nil
        let silent = silencing.follow(choice: &journal.silentChoice, seen: &journal.doNotDisturbSeen,
                                      requested: controls.silentMode, doNotDisturb: observation.doNotDisturb,
                                      following: config.config.settings.followDoNotDisturb, switchIsThere: switchIsThere,
                                      now: now)
        let silentMode = silent.mode
        if let text = silent.event { effects += emit(EventRecord(seq: 0, type: .silentMode, text: text), graph: graph) }
        if let choice = silent.rewrite {
            effects.append(own(subject: 0, AgentProtocol.silentModeKey, AgentProtocol.silentModeValue(choice)))
        }
        let lock = silencing.follow(lock: observation.screenLock, silences: config.config.settings.silenceWhileLocked)
        if let event = lock.event { effects += emit(event, graph: graph) }
        let screenLocked = lock.lockedBy
        journal.appOverrides = controls.appOverrides.filter(\.value.persist)
        let roles = RoleLoopbacks.observed(in: graph)
        let takeover = RoleDuckTakeover.step(roles: roles, replaced: journal.wirePlumberDuckLevel, dryRun: identity.dryRun)
        journal.wirePlumberDuckLevel = takeover.replaced
        let stack = StackStatus(observation.stack, rolePolicy: Self.rolePolicyStatus(roles, takeover, dryRun: identity.dryRun))
        if let change = published.stackChange(stack) { effects.append(.log(.notice, change)) }

        let claims = claimAudioSessionStreams(observation)
        let classified = Self.withoutLoopbacks(
            classifications.classifyAll(graph: graph, overrides: controls.overrideTable, apps: observation.apps,
                                        declarations: declarations(claims)), roles)
        let wantedMeters = Metering.wanted(classified, graph: graph, settings: config.config.settings,
                                           held: journal.memory.held)
        let resumeRequests = controls.resumeRequests.union(mediaKeys.takeResumes())
        let input = EngineInputBuilder.build(graph: graph, classified: classified, now: now,
                                             silentMode: silentMode.isOn, silentModeReason: silentMode.reason,
                                             resumeRequests: resumeRequests,
                                             audibility: Metering.audibility(of: wantedMeters, meters: observation.meters),
                                             screenLocked: screenLocked,
                                             endedSessions: endedAudioSessions(claims: claims, classified: classified, graph: graph),
                                             roles: roles)
        if let event = silencing.follow(screenCasts: input.screenCasts,
                                        silencesAlerts: config.config.settings.presentingSilencesAlerts) {
            effects += emit(event, graph: graph)
        }
        var decision = engine.decide(input, memory: journal.memory)
        journal.memory = decision.memory
        let roleActions = RoleActions.now(roles, graph: graph)
        decision.streams = RoleGains.applied(to: decision.streams, roles: roles, actions: roleActions,
                                             duckLevel: takeover.duckLevel, graph: graph)
        let plan = planner.plan(graph: graph, decisions: decision.streams, classified: classified,
                                applied: journal.applied, linkWait: linkWait, gate: gate, refused: observation.refusedLinks,
                                now: now)
        journal.applied = plan.applied
        linkWait = plan.linkWait
        // WirePlumber saves the gains we send under the stream's key: taken
        // back out once no stream of the key holds one (restore, then forget).
        var corrections: [AgentEffect] = []
        if !identity.dryRun {
            let tracking = WirePlumberStreamState.track(journal.wirePlumberKeys, graph: graph, applied: plan.applied,
                                                        sent: plan.actions, stack: observation.stack)
            journal.wirePlumberKeys = tracking.keys
            corrections = tracking.writes.map(AgentEffect.setMetadata)
        }
        let matches = observation.players.matches(in: graph)
        var pauses = PlayerPauses.Plan(commands: [], paused: journal.pausedPlayers, reasons: [])
        if case .watched(let players, _) = observation.players {
            let resumed = Set(decision.events.compactMap { if case .resumed(let stream) = $0 { stream } else { nil } })
            pauses = PlayerPauses.plan(players: players, matches: matches, decisions: decision.streams,
                                       sessions: classified.mapValues(\.session), memory: decision.memory,
                                       names: decision.names, resumed: resumed, paused: journal.pausedPlayers, now: now)
            journal.pausedPlayers = pauses.paused
        }
        var watched: PlayerSet?
        if case .watched(let players, _) = observation.players { watched = players }
        let mirror = mediaKeys.follow(players: watched, now: now, enabled: config.config.settings.mediaKeys,
                                      unavailable: observation.mediaKeysUnavailable, matches: matches,
                                      sessions: classified.mapValues(\.session), graph: graph, decision: decision, paused: pauses)
        // Journal first: if we die between here and the daemon, the next start
        // still knows what we changed and which players we paused.
        effects += corrections
        effects += save(journal)
        effects += Self.effects(of: takeover)
        // Before the actions: the links they make are not to be refused.
        let nextGate = identity.dryRun ? StartGate.open
            // WirePlumber's role policy ducks or corks by loopback, whatever the app.
            : StartGate.after(plan, graph: graph, quieting: roleActions.lowersSome ? .anyone : decision.newcomersMayStartQuiet,
                              classified: classified)
        if nextGate != gate {
            gate = nextGate
            effects.append(.gate(nextGate))
        }
        // The hold first (gain 0, unlinked), then the pause: the hold is the
        // backstop until the player says it paused.
        effects += act(plan.actions, graph: graph)
        for (command, reason) in zip(pauses.commands, pauses.reasons) {
            effects += identity.dryRun ? [.log(.info, "dry-run: would \(reason)")] : [.log(.info, reason), .player(command)]
        }
        effects += tellAudioSessions(decision, classified: classified, graph: graph, claims: claims,
                                     silentMode: silentMode.isOn, now: now)
        if case .some(let mirror) = mirror { effects.append(.mediaKeysTarget(mirror)) }
        let events = (unpublished?.events ?? []) + decision.events.map { (event: $0, names: decision.names) }
        unpublished = Unpublished(graph: graph, roles: roles, classified: classified, decision: decision, controls: controls,
                                  players: observation.players, matches: matches, events: events,
                                  silentMode: silentMode, doNotDisturb: observation.doNotDisturb,
                                  screenCasts: input.screenCasts, screenLock: observation.screenLock)
        if wantedMeters != metered {
            metered = wantedMeters
            effects.append(.meter(wantedMeters))
        }
        effects.append(.publish)
        effects.append(.wakeUp(at: [plan.nextTick, decision.nextWakeup].compactMap { $0 }.min()))
        return effects
    }

    /// What the reconciles since the last call decided, told to the
    /// connection: classifications, events, statuses, acknowledged resume
    /// requests (run by `AgentEffect.publish`, after the gains).
    public mutating func publish() -> [AgentEffect] {
        guard let pending = unpublished else { return [] }
        unpublished = nil
        let graph = pending.graph
        var effects = reportReclassified(pending.classified, graph: graph)
        for (event, names) in pending.events {
            effects += emit(StatusPublisher.record(event, seq: 0, names: names), graph: graph)
        }
        // Publish before acknowledging a resume: whoever waits for the key to
        // go must find the new status already there.
        effects += publishStatuses(pending)
        if graph.metadata(named: AgentProtocol.metadataName) != nil {
            for stream in pending.controls.resumeRequests.sorted() {
                effects.append(own(subject: stream, AgentProtocol.resumeKey, nil))
            }
        }
        effects += clearEntriesOfVanishedNodes(graph)
        return effects
    }

    // MARK: - media keys

    /// A media key pressed on the proxy (`org.mpris.MediaPlayer2.pw_policy`):
    /// sent on to the player it goes to, or the user's resume of the player
    /// pw-policy paused (its hold released, then Play), or nothing while a
    /// call holds the music — said in the log, as an event (`pw-policy
    /// monitor`) and in `status`. Then a reconcile, with the resume.
    public mutating func mediaKey(_ key: MediaKey, _ observation: Observation) -> [AgentEffect] {
        let (outcome, text) = mediaKeys.press(key, pausedPlayers: journal.pausedPlayers)
        var effects = emit(EventRecord(seq: 0, type: .mediaKey, text: text,
                                       reason: outcome.refusal == nil ? key.rawValue : "refused"), graph: observation.graph)
        var reconciled = reconcile(observation)
        if let command = outcome.command, let busName = outcome.busName {
            let send: [AgentEffect] = identity.dryRun ? [.log(.info, "dry-run: would send \(command.rawValue) to \(busName)")]
                : [.player(.mediaKey(command, busName: busName))]
            // After the release (the graph actions and PlayerPauses' Play),
            // before the publish.
            reconciled.insert(contentsOf: send, at: reconciled.firstIndex(of: .publish) ?? reconciled.endIndex)
        }
        effects += reconciled
        return effects
    }

    // MARK: - config

    /// What made the agent reload: said in its log line and in the event's
    /// `reason` (docs/CONFIG.md, "Checking and reloading").
    public enum ReloadTrigger: String, Sendable {
        case signal = "SIGHUP", fileChanged = "file-changed"
        var logged: String { self == .signal ? "SIGHUP" : "file changed" }
    }

    /// A config read after a SIGHUP or a file change: in force from the next
    /// reconcile, unless it is the one in force or the classifier refuses it.
    public mutating func reload(_ loaded: LoadedConfig, trigger: ReloadTrigger, graph: Graph) -> [AgentEffect] {
        guard loaded.config != config.config || loaded.files != config.files else {
            configError = nil
            return []
        }
        let classifier: Classifier
        do {
            classifier = try Classifier(config: loaded.config)
        } catch {
            return reloadFailed("\(error)", trigger: trigger, graph: graph)
        }
        config = loaded
        configError = nil
        classifications = ClassificationCache(classifier: classifier)
        engine = PolicyEngine(config: loaded.config)
        planner = Self.planner(for: loaded.config, dryRun: identity.dryRun)
        let text = "config reloaded (\(trigger.logged)): \(loaded.files.joined(separator: ", "))"
        return emit(EventRecord(seq: 0, type: .configReloaded, text: text, reason: trigger.rawValue),
                    graph: graph, level: .notice)
    }

    /// A reload that could not be read or validated: the previous config stays.
    public mutating func reloadFailed(_ error: String, trigger: ReloadTrigger, graph: Graph) -> [AgentEffect] {
        configError = error
        let text = "config reload rejected (\(trigger.logged)); keeping the previous config"
        return [.log(.error, "\(text):\n\(error)")]
            + emit(EventRecord(seq: 0, type: .configRejected, text: text, reason: trigger.rawValue),
                   graph: graph, level: nil)
    }

    // MARK: - shutdown

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
        // What WirePlumber saved under our gains, put back to the user's.
        let stored = identity.dryRun ? WirePlumberStreamState.Correction(left: journal.wirePlumberKeys)
            : WirePlumberStreamState.correctAll(journal.wirePlumberKeys, graph: graph, stack: observation.stack)
        effects += stored.writes.map(AgentEffect.setMetadata)
        // WirePlumber ducks its role loopbacks itself again.
        if !identity.dryRun {
            effects += RoleDuckTakeover.restore(replaced: journal.wirePlumberDuckLevel,
                                                current: RoleLoopbacks.duckLevelSetting(in: graph)).map(AgentEffect.setMetadata)
        }
        effects.append(.flush)
        var journal = self.journal
        journal.applied = [:]
        journal.wirePlumberDuckLevel = nil
        journal.memory = .empty  // nothing is held or ducked any more
        journal.wirePlumberKeys = stored.standIns.merging(stored.left) { $1 }
        // Players we paused stay paused, and remembered: the next start plays
        // them when their interruption is over (docs/PLAYERS.md).
        effects += save(journal)
        if !stored.standIns.isEmpty { effects.append(.resetStoredVolumes(stored.standIns)) }
        effects.append(.wakeUp(at: nil))
        let corrected = stored.writes.filter { $0.value != nil }.count + stored.standIns.count
        effects.append(.log(.notice, "restored \(restoring.count) changes"
            + (corrected > 0 ? " and \(corrected) \(corrected == 1 ? "volume" : "volumes") WirePlumber saved" : "")
            + "; every stream is as it would be without pw-policy"))
        return effects
    }

    /// After `resetStoredVolumes`: the keys whose saved volume is 1 again
    /// are forgotten; the others stay in the journal for the next start.
    public mutating func storedVolumesReset(_ done: Set<String>) -> [AgentEffect] {
        var journal = self.journal
        journal.wirePlumberKeys = journal.wirePlumberKeys.filter { !done.contains($0.key) }
        let left = journal.wirePlumberKeys.keys.sorted()
        return save(journal) + (left.isEmpty ? [] : [.log(.warning,
            "WirePlumber's saved volume of \(left.joined(separator: ", ")) could not be reset; 'pw-policy restore' tries again")])
    }

    /// Whether a change of node `id`'s Props can change no decision: a
    /// stream in a fade (the planner steps a fade by the clock and reads no
    /// volume until it ends), or one reporting the gain we sent it, our own
    /// command coming back (only `volume` of Props matters to the policy).
    /// Reconciling on them stepped every fade early: at hundreds of streams
    /// each step's echoes ran a reconcile that sent the next step to all of
    /// them, as fast as the daemon echoed, and every one was another Props
    /// change for WirePlumber to work through. Fades step on their timer;
    /// confirmations are read by the next reconcile, which the planner's
    /// confirmation check schedules anyway (docs/PERFORMANCE.md, "Limits found").
    public func isEcho(propsOf id: UInt32, in graph: Graph) -> Bool {
        guard let applied = journal.applied[id], let node = graph.nodes[id], applied.serial == node.serial else { return false }
        if applied.ramp != nil { return true }
        guard let volume = node.volume, let commanded = applied.commandedGain else { return false }
        return ReconcilePlanner.reports(volume, commanded)
    }

    /// The streams `restoreAll` put back to gain 1, by node id (serial).
    public private(set) var restored: [UInt32: UInt64?] = [:]

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

    // MARK: - effects

    private mutating func save(_ updated: AgentJournal) -> [AgentEffect] {
        defer { journal = updated }
        guard updated.differsDurably(from: journal) else { return [] }
        return [.saveJournal(updated, sync: updated.settingsDiffer(from: journal))]
    }

    /// Graph actions, or in a dry run what they would have been. (The
    /// executor logs each action at debug level, described only when that
    /// level is on: fades send thousands a second.)
    private func act(_ actions: [AgentAction], graph: Graph) -> [AgentEffect] {
        actions.map { action in
            identity.dryRun ? .log(.info, "dry-run: would \(ActionDescription.describe(action, in: graph))") : .graph(action)
        }
    }

    /// A key of the agent's own metadata.
    private func own(subject: UInt32, _ key: String, _ value: String?) -> AgentEffect {
        .setMetadata(MetadataWrite(metadata: AgentProtocol.metadataName, subject: subject, key: key,
                                   type: value == nil ? nil : AgentProtocol.jsonType, value: value))
    }

    /// Numbers an event, logs it at `level` (nil: logged already), and
    /// publishes it for `pw-policy monitor`.
    mutating func emit(_ record: EventRecord, graph: Graph, level: LogLevel? = .info) -> [AgentEffect] {
        var record = record
        eventSeq += 1
        record.seq = eventSeq
        var effects: [AgentEffect] = level.map { [.log($0, record.text)] } ?? []
        if graph.metadata(named: AgentProtocol.metadataName) != nil {
            effects.append(own(subject: 0, AgentProtocol.eventKey, StatusPublisher.json(record)))
        }
        return effects
    }

    /// Reports streams when first seen and whenever their classification
    /// changes (the registry's first props lack what info brings later, such
    /// as policy.* properties, so a stream may be reclassified at once).
    private mutating func reportReclassified(_ classified: [UInt32: ClassifiedStream], graph: Graph) -> [AgentEffect] {
        var effects: [AgentEffect] = []
        var current: [UInt32: Publication.StreamSignature] = [:]
        current.reserveCapacity(classified.count)
        var changed: [UInt32] = []
        for (id, stream) in classified {
            let classification = stream.classification
            // Compared as a value: building a string per stream on every
            // reconcile cost more than the decision at hundreds of streams.
            let signature = Publication.StreamSignature(serial: graph.nodes[id]?.serial ?? 0, category: classification.category,
                                                        options: classification.options, mode: classification.mode,
                                                        exempt: classification.exempt)
            current[id] = signature
            if published.streamSignatures[id] != signature { changed.append(id) }
        }
        for id in changed.sorted() {
            guard let stream = classified[id] else { continue }
            let classification = stream.classification
            let options = classification.options.sorted().map(\.rawValue)
            let shownOptions = options.isEmpty ? "" : " [" + options.joined(separator: ", ") + "]"
            effects += emit(EventRecord(seq: 0, type: .streamClassified,
                                        text: "stream \(id) \"\(stream.appName)\": \(classification.category.rawValue)\(shownOptions) — \(classification.reason)",
                                        session: stream.session.rawValue, stream: id, reason: classification.source.rawValue),
                            graph: graph)
            effects += classification.warnings.map { .log(.warning, "stream \(id) \"\(stream.appName)\": \($0)") }
        }
        published.streamSignatures = current
        return effects
    }

    private mutating func publishStatuses(_ pending: Unpublished) -> [AgentEffect] {
        let (graph, classified, decision, controls, players, matches) =
            (pending.graph, pending.classified, pending.decision, pending.controls, pending.players, pending.matches)
        guard graph.metadata(named: AgentProtocol.metadataName) != nil else { return [] }
        var effects: [AgentEffect] = []
        var current: [UInt32: StreamStatus] = [:]
        let sinks = EngineInputBuilder.linkedSinks(in: graph)
        var playerOf: [UInt32: StreamStatus.Player] = [:]
        if case .watched(let set, _) = players {
            for (stream, match) in matches {
                playerOf[stream] = StatusPublisher.player(match, in: set, paused: journal.pausedPlayers[match.busName])
            }
        }
        for (id, stream) in classified {
            guard let node = graph.nodes[id] else { continue }
            current[id] = StatusPublisher.streamStatus(node: node, classified: stream, decision: decision.streams[id],
                                                       graph: graph, linkedSinks: sinks, roles: pending.roles,
                                                       names: decision.names,
                                                       extraWarnings: controls.streamWarnings[id] ?? [],
                                                       player: playerOf[id])
        }
        // Compared first, sorted and encoded only when changed: most reconciles
        // change few of hundreds of streams.
        for id in current.compactMap({ published.streams[$0.key] != $0.value ? $0.key : nil }).sorted() {
            effects.append(own(subject: id, AgentProtocol.streamKey, StreamStatusText.encode(current[id]!)))
        }
        for id in published.streams.keys.sorted() where current[id] == nil {
            effects.append(own(subject: id, AgentProtocol.streamKey, nil))
        }
        published.streams = current

        let agent = AgentStatus(pid: identity.pid, version: identity.version, startedAt: identity.startedAt,
                                configFiles: config.files, configError: configError, dryRun: identity.dryRun,
                                silentMode: pending.silentMode.isOn, stack: published.stack, players: players.summary,
                                silentModeReason: pending.silentMode.reason, silentChoice: journal.silentChoice,
                                doNotDisturb: pending.doNotDisturb.summary, mediaKeys: mediaKeys.status,
                                presenting: PresentingStatus(screenCasts: pending.screenCasts,
                                                             silencesAlerts: config.config.settings.presentingSilencesAlerts),
                                screenLock: ScreenLockStatus(pending.screenLock,
                                                             silences: config.config.settings.silenceWhileLocked),
                                audioSessions: audioSessionsStatus)
        for (key, value) in [(AgentProtocol.agentKey, StatusPublisher.json(agent)),
                             (AgentProtocol.outputsKey, StatusPublisher.json(StatusPublisher.outputs(graph: graph)))]
            where published.global[key] != value {
            published.global[key] = value
            effects.append(own(subject: 0, key, value))
        }
        return effects
    }

    /// Requests left for nodes that are gone would otherwise apply to the
    /// next node that gets the same id.
    private func clearEntriesOfVanishedNodes(_ graph: Graph) -> [AgentEffect] {
        guard let metadata = graph.metadata(named: AgentProtocol.metadataName) else { return [] }
        var effects: [AgentEffect] = []
        let vanished = metadata.entries.keys.filter { $0 != 0 && graph.nodes[$0] == nil }
        for subject in vanished.sorted() {
            for key in metadata.entries[subject]!.keys.sorted() where key != AgentProtocol.streamKey {
                effects.append(own(subject: subject, key, nil))
            }
        }
        return effects
    }
}
