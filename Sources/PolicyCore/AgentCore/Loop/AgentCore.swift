/// The agent's control loop as a pure step: what was observed in, effects
/// out (docs/ARCHITECTURE.md, "The control loop"). It holds everything the
/// agent remembers, most of it in rooms of its own — what the connection was
/// told (PublishingRoom), the media keys (MediaKeysRoom), the silent switch
/// (SilentSwitchRoom), WirePlumber's memory (WirePlumberMemoryRoom), the
/// journal — and does no I/O: the agent process (PolicyAgent) observes
/// through its adapters, calls one of these methods, and its executor runs
/// the effects in order (`EffectExecutor`). The config's reload and the
/// shutdown are in the files named for them.
public struct AgentCore: Sendable {
    public let identity: Identity
    public internal(set) var journal: AgentJournal
    /// `journal` holds changes of a turn that acted on nothing, not written
    /// yet (`save(_:acting:)`).
    public private(set) var journalUnwritten = false
    public internal(set) var config: LoadedConfig
    /// The last config reload's error while the previous config stays in force.
    public internal(set) var configError: String?
    var classifications: ClassificationCache
    var engine: PolicyEngine
    var planner: ReconcilePlanner
    /// What the connection is told, and was (PublishingRoom).
    var publishing = PublishingRoom()
    /// The new streams WirePlumber has yet to link (the planner's; not
    /// journaled: a restarted agent sees them afresh).
    private var linkWait = LinkWait()
    /// The streams metered on this connection (`AgentEffect.meter`).
    private var metered: [UInt32: UInt64] = [:]
    /// What the adapter refuses (`AgentEffect.gate`).
    var gate = StartGate.open
    /// The silent switch, Do Not Disturb, the screen lock and presenting (SilentSwitchRoom).
    private var silencing = SilentSwitchRoom()
    /// The audio sessions apps declared (docs/API.md), what they see and
    /// what they were told (AgentCore+AudioSessions). Not journaled: a
    /// session lives as long as its caller's connection to this agent.
    public internal(set) var audioSessions = AudioSessionTable()
    var audioScene = AudioScene()
    var audioNews = AudioSessionNews()
    var audioSessionsUnavailable: String?

    /// The streams `restoreAll` put back to gain 1, by node id (serial).
    public internal(set) var restored: [UInt32: UInt64?] = [:]

    /// The media keys (MediaKeysRoom).
    private var mediaKeys = MediaKeysRoom()
    /// The player the media-key proxy mirrors (`AgentEffect.mediaKeysTarget`).
    public var mediaKeysMirror: MediaPlayer? { mediaKeys.mirror }

    public init(identity: Identity, config: LoadedConfig, journal: AgentJournal) throws {
        self.identity = identity
        self.journal = journal
        self.config = config
        classifications = ClassificationCache(classifier: try Classifier(config: config.config))
        engine = PolicyEngine(config: config.config)
        planner = Self.planner(for: config.config, dryRun: identity.dryRun)
    }

    // MARK: - connection

    /// A new connection's first complete graph: it has a fresh (empty) agent
    /// metadata, so everything is published anew, starting with the
    /// persisted user settings (the CLI reads them there, and they keep
    /// applying because the agent reads its requests there too).
    public mutating func connected(_ observation: Observation) -> [AgentEffect] {
        publishing.connected()
        silencing.connected()
        metered = [:]
        gate = .open
        var effects: [AgentEffect] = []
        guard observation.graph.metadata(named: AgentProtocol.metadataName) != nil else { return reconcile(observation) }
        effects.append(.setMetadata(.agent(subject: 0, AgentProtocol.silentModeKey,
                                           AgentProtocol.silentModeValue(journal.silentChoice))))
        for (appKey, request) in journal.appOverrides.sorted(by: { $0.key < $1.key }) {
            effects.append(.setMetadata(.agent(subject: 0, AgentProtocol.appOverridePrefix + appKey,
                                               StatusPublisher.json(request))))
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

        let (controls, warnings) = publishing.readRequests(in: graph)
        effects += warnings
        let switchIsThere = graph.metadata(named: AgentProtocol.metadataName) != nil
        var choice = journal.silentChoice, seen = journal.doNotDisturbSeen
        let silent = silencing.follow(choice: &choice, seen: &seen,
                                      requested: controls.silentMode, doNotDisturb: observation.doNotDisturb,
                                      following: config.config.settings.followDoNotDisturb, switchIsThere: switchIsThere,
                                      now: now)
        journal.silentChoice = choice
        journal.doNotDisturbSeen = seen
        let silentMode = silent.mode
        if let text = silent.event { effects += publishing.emit(EventRecord(seq: 0, type: .silentMode, text: text), graph: graph) }
        if let choice = silent.rewrite {
            effects.append(.setMetadata(.agent(subject: 0, AgentProtocol.silentModeKey, AgentProtocol.silentModeValue(choice))))
        }
        let lock = silencing.follow(lock: observation.screenLock, silences: config.config.settings.silenceWhileLocked)
        if let event = lock.event { effects += publishing.emit(event, graph: graph) }
        let screenLocked = lock.lockedBy
        journal.appOverrides = controls.appOverrides.filter(\.value.persist)
        let roles = RoleLoopbacks.observed(in: graph)
        let (takeover, rolePolicy) = WirePlumberMemoryRoom.takeOver(roles: roles, journal: &journal, dryRun: identity.dryRun)
        let stack = StackStatus(observation.stack, rolePolicy: rolePolicy)
        effects += publishing.follow(stack: stack)

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
            effects += publishing.emit(event, graph: graph)
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
        let corrections = WirePlumberMemoryRoom.track(journal: &journal, graph: graph, applied: plan.applied,
                                                      sent: plan.actions, stack: observation.stack, dryRun: identity.dryRun,
                                                      correcting: plan.linkWait.raisesWait == nil)
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
        let takeoverEffects = WirePlumberMemoryRoom.effects(of: takeover)
        let nextGate = identity.dryRun ? StartGate.open
            // WirePlumber's role policy ducks or corks by loopback, whatever the app.
            : StartGate.after(plan, graph: graph, quieting: roleActions.lowersSome ? .anyone : decision.newcomersMayStartQuiet,
                              classified: classified)
        // Journal first: if we die between here and the daemon, the next start
        // still knows what we changed and which players we paused.
        effects += corrections
        // (An open gate that only moved past a new stream refuses nothing more.)
        let gateActs = nextGate != gate && !(nextGate.isOpen && gate.isOpen)
        effects += save(journal, acting: !plan.actions.isEmpty || !pauses.commands.isEmpty || !corrections.isEmpty
                            || !takeoverEffects.isEmpty || gateActs)
        effects += takeoverEffects
        // Before the actions: the links they make are not to be refused.
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
        publishing.keep(.init(graph: graph, roles: roles, classified: classified, decision: decision, controls: controls,
                              players: observation.players, matches: matches, silentMode: silentMode,
                              doNotDisturb: observation.doNotDisturb, screenCasts: input.screenCasts,
                              screenLock: observation.screenLock))
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
        guard publishing.hasDecided else { return [] }
        // Read before: the room is being changed while it asks for the status.
        let (identity, files, configError, settings) = (identity, config.files, configError, config.config.settings)
        let (silentChoice, mediaKeys, audioSessions) = (journal.silentChoice, mediaKeys.status, audioSessionsStatus)
        return publishing.publish(pausedPlayers: journal.pausedPlayers) { decided, stack in
            AgentStatus(pid: identity.pid, version: identity.version, startedAt: identity.startedAt,
                        configFiles: files, configError: configError, dryRun: identity.dryRun,
                        silentMode: decided.silentMode.isOn, stack: stack, players: decided.players.summary,
                        silentModeReason: decided.silentMode.reason, silentChoice: silentChoice,
                        doNotDisturb: decided.doNotDisturb.summary, mediaKeys: mediaKeys,
                        presenting: PresentingStatus(screenCasts: decided.screenCasts,
                                                     silencesAlerts: settings.presentingSilencesAlerts),
                        screenLock: ScreenLockStatus(decided.screenLock, silences: settings.silenceWhileLocked),
                        audioSessions: audioSessions)
        }
    }

    // MARK: - media keys

    /// A media key pressed on the proxy (`org.mpris.MediaPlayer2.pw_policy`):
    /// sent on to the player it goes to, or the user's resume of the player
    /// pw-policy paused (its hold released, then Play), or nothing while a
    /// call holds the music — said in the log, as an event (`pw-policy
    /// monitor`) and in `status`. Then a reconcile, with the resume.
    public mutating func mediaKey(_ key: MediaKey, _ observation: Observation) -> [AgentEffect] {
        let (outcome, text) = mediaKeys.press(key, pausedPlayers: journal.pausedPlayers)
        var effects = publishing.emit(EventRecord(seq: 0, type: .mediaKey, text: text,
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

    // MARK: - effects

    /// The journal written, before whatever the turn `acting` sends. A turn
    /// that sends nothing — a stream appeared, its ports, its link — leaves
    /// the write to the next turn that acts or to `settled()`: the journal
    /// is for undoing what the agent did, and such a turn did nothing. Its
    /// encoding was a good part of the agent's CPU while WirePlumber linked
    /// a new stream (docs/PERFORMANCE.md, "The journal written when the
    /// agent acts").
    mutating func save(_ updated: AgentJournal, acting: Bool = true) -> [AgentEffect] {
        defer { journal = updated }
        guard journalUnwritten || updated.differsDurably(from: journal) else { return [] }
        guard acting || updated.differsBeyondStreams(from: journal) else {
            journalUnwritten = true
            return []
        }
        journalUnwritten = false
        return [.saveJournal(updated, sync: updated.settingsDiffer(from: journal))]
    }

    /// The agent's work has settled (no reconcile for a moment, or it is
    /// stopping): the journal a turn that acted on nothing left unwritten.
    public mutating func settled() -> [AgentEffect] {
        guard journalUnwritten else { return [] }
        journalUnwritten = false
        return [.saveJournal(journal, sync: false)]
    }

    /// Graph actions, or in a dry run what they would have been. (The
    /// executor logs each action at debug level, described only when that
    /// level is on: fades send thousands a second.)
    func act(_ actions: [AgentAction], graph: Graph) -> [AgentEffect] {
        actions.map { action in
            identity.dryRun ? .log(.info, "dry-run: would \(ActionDescription.describe(action, in: graph))") : .graph(action)
        }
    }
}
