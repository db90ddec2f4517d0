import Foundation
import Testing
@testable import PolicyCore
import PolicyTestSupport

/// The control loop's ordering rules, scenario by scenario, against the
/// in-memory daemon (docs/ARCHITECTURE.md, "The control loop").
@Suite struct AgentCoreTests {
    /// Index of the first effect matching `predicate`.
    func index(_ effects: [AgentEffect], _ predicate: (AgentEffect) -> Bool) -> Int? {
        effects.firstIndex(where: predicate)
    }

    func isGraphAction(_ effect: AgentEffect) -> Bool {
        if case .graph = effect { return true }
        return false
    }

    func isJournalSave(_ effect: AgentEffect) -> Bool {
        if case .saveJournal = effect { return true }
        return false
    }

    func writes(_ effects: [AgentEffect]) -> [MetadataWrite] {
        effects.compactMap { if case .setMetadata(let write) = $0 { write } else { nil } }
    }

    /// Music (10) playing on the speakers, then stream 20 with `role`
    /// starts, past the debounce, not reconciled yet.
    func musicThen(_ role: String, app: String, dryRun: Bool = false, agentMetadata: Bool = true) throws -> InMemoryDaemon {
        var daemon = try InMemoryDaemon(dryRun: dryRun)
        if !agentMetadata { daemon.graph.metadata[Graph.policyMetadataID] = nil }
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.settle()
        daemon.play(20, role: role, app: app)
        daemon.now += 1
        return daemon
    }

    /// Music on the speakers, then a call: music held for the call.
    func musicThenCall(dryRun: Bool = false) throws -> InMemoryDaemon {
        var daemon = try musicThen("Communication", app: "phone", dryRun: dryRun)
        daemon.settle()
        return daemon
    }

    @Test func theJournalIsSavedBeforeTheGraphActionsItRecords() throws {
        var daemon = try musicThen("Communication", app: "phone")
        let effects = daemon.reconcile()
        let firstAction = try #require(index(effects, isGraphAction), "the call changes the music")
        let save = try #require(index(effects, isJournalSave), "a change to a stream is journaled")
        #expect(save < firstAction)
        guard case .saveJournal(let journal, _) = effects[save] else { return }
        #expect(journal.applied[10] != nil, "the saved journal knows the music is changed")
    }

    /// The statuses and events of a decision are built after its graph
    /// actions (the executor runs `publish` after the gains went out), and
    /// every decision's events are told, also when two reconciles come
    /// before a publish.
    /// Music on the speakers, its journal written, then a browser's stream
    /// (no role: it mixes) starts, not reconciled yet.
    func musicSettledThenABrowser() throws -> InMemoryDaemon {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.settle()
        daemon.settled()
        daemon.saved = []
        daemon.play(20, props: ["application.name": "browser"])
        daemon.now += 1
        return daemon
    }

    /// A stream that needs nothing of the agent (a second app mixing with
    /// the music) costs no journal write while it appears: the write waits
    /// for the agent to settle, or for the next turn that acts, which writes
    /// it before its actions (docs/PERFORMANCE.md, "The journal written when
    /// the agent acts").
    @Test func aTurnThatActsOnNothingLeavesItsJournalForWhenTheAgentSettles() throws {
        var daemon = try musicSettledThenABrowser()
        let effects = daemon.reconcile()
        #expect(!effects.contains(where: isGraphAction), "a plain stream mixes with the music")
        #expect(daemon.saved.isEmpty, "nothing acted on, nothing written yet")
        #expect(daemon.core.journalUnwritten)
        daemon.settled()
        let save = try #require(daemon.saved.first, "written once the agent settled")
        #expect(save.journal == daemon.core.journal)
        #expect(!save.sync)
        daemon.settled()
        #expect(daemon.saved.count == 1, "and only once")
        #expect(!daemon.core.journalUnwritten)
    }

    @Test func theTurnThatActsWritesWhatAQuietTurnLeftBeforeItsActions() throws {
        var daemon = try musicSettledThenABrowser()
        let before = daemon.core.journal
        daemon.reconcile()
        let browser = Set(daemon.core.journal.memory.sessions.keys).subtracting(before.memory.sessions.keys)
        #expect(!browser.isEmpty, "the engine remembers the browser's session")
        #expect(daemon.saved.isEmpty)
        daemon.play(30, role: "Communication", app: "phone")
        daemon.now += 1
        let effects = daemon.reconcile()
        let save = try #require(index(effects, isJournalSave), "the call's hold is journaled")
        let firstAction = try #require(index(effects, isGraphAction))
        #expect(save < firstAction)
        #expect(daemon.saved.count == 1)
        #expect(browser.isSubset(of: daemon.saved[0].journal.memory.sessions.keys),
                "what the quiet turn learnt of the browser is in the write")
        #expect(!daemon.core.journalUnwritten)
    }

    @Test func whatADecisionTellsIsPublishedAfterItsActions() throws {
        var daemon = try musicThen("Communication", app: "phone")
        let decided = daemon.core.reconcile(daemon.observation)
        let publish = try #require(decided.firstIndex(of: .publish))
        #expect(decided.lastIndex(where: isGraphAction).map { $0 < publish } == true)
        #expect(!decided.contains { if case .setMetadata = $0 { true } else { false } }, "nothing told before publish")
        daemon.now += 0.01
        let again = daemon.core.reconcile(daemon.observation)
        #expect(again.contains(.publish))
        // The executor holds the first publish back for the loop's next turn;
        // when the second reconcile comes first, its publish and wake-up
        // replace the held ones, and nothing else of the first is dropped.
        let superseded = AgentEffect.supersededInBacklog(by: again)
        for effect in decided {
            let isWakeUp = if case .wakeUp = effect { true } else { false }
            #expect(superseded(effect) == (effect == .publish || isWakeUp), "\(effect)")
        }
        #expect(!AgentEffect.supersededInBacklog(by: [.log(.info, "x")])(.publish), "only a later publish replaces one")
        let told = writes(daemon.apply(daemon.core.publish()))
        #expect(told.contains { $0.subject == 20 && $0.key == AgentProtocol.streamKey }, "the call's status")
        #expect(told.filter { $0.key == AgentProtocol.eventKey }.count >= 2, "the first decision's events too: \(told)")
        #expect(daemon.core.publish().isEmpty, "told once")
    }

    @Test func aCallHoldsTheMusicAndItComesBackAfterIt() throws {
        var daemon = try musicThenCall()
        #expect(daemon.gain(10) == 0)
        #expect(!daemon.isLinked(10), "held: unlinked")
        #expect(daemon.status(10)?.hold?.kind == "interrupted")
        #expect(daemon.gain(20) == 1)
        daemon.stop(20)
        daemon.now += 1
        daemon.settle()
        #expect(daemon.gain(10) == 1)
        #expect(daemon.isLinked(10), "relinked where it played")
        #expect(daemon.status(10)?.hold == nil)
        #expect(daemon.wakeUp == .some(nil), "nothing left to do: no wake-up")
    }

    @Test func statusIsPublishedBeforeAResumeIsAcknowledged() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.play(10, role: "Music", app: "player", on: 2)
        daemon.settle()
        // Headphones unplugged: the stream moves to the speakers and is held.
        daemon.graph.nodes[2] = nil
        daemon.graph.links[110] = nil
        daemon.graph.addLink(111, from: 10, to: 1)
        daemon.now += 1
        daemon.settle()
        #expect(daemon.status(10)?.hold?.kind == "route-lost")
        daemon.request(subject: 10, key: AgentProtocol.resumeKey, value: "1")
        let effects = daemon.reconcile()
        let writes = writes(effects)
        let status = try #require(writes.firstIndex { $0.subject == 10 && $0.key == AgentProtocol.streamKey })
        let acknowledged = try #require(writes.firstIndex { $0.subject == 10 && $0.key == AgentProtocol.resumeKey && $0.value == nil })
        #expect(status < acknowledged)
        #expect(daemon.status(10)?.hold == nil, "the status the waiting CLI finds says: not held")
        #expect(daemon.graph.metadata(named: AgentProtocol.metadataName)?.value(subject: 10, key: AgentProtocol.resumeKey) == nil)
    }

    @Test func restoreUndoesEverythingThenForgetsIt() throws {
        var daemon = try musicThenCall()
        #expect(daemon.core.journal.applied[10]?.held == true)
        let effects = daemon.restoreAll()
        #expect(daemon.gain(10) == 1)
        #expect(daemon.isLinked(10))
        let flush = try #require(index(effects) { $0 == .flush })
        let save = try #require(index(effects, isJournalSave))
        #expect(index(effects, isGraphAction).map { $0 < flush } == true, "the restore is sent before the flush")
        #expect(flush < save, "the journal forgets the changes only once the daemon has the restore")
        #expect(daemon.saved.last?.journal.applied.isEmpty == true)
        #expect(daemon.saved.last?.journal.memory == .empty)
        let restored = effects.filter(isGraphAction).count
        #expect(restored >= 2, "the gain and the link")
        #expect(effects.last == .log(.notice, "restored \(restored) changes and 1 volume WirePlumber saved; every stream is as it would be without pw-policy"),
                "one per change, as the daemon gets them, and the music's key WirePlumber saved its gain 0 under")
        let correction = try #require(index(effects) {
            if case .setMetadata(let write) = $0 { write.key == "restore.stream.Output/Audio.media.role:Music" } else { false }
        })
        #expect(correction < flush)
        #expect(daemon.wirePlumberSaved["Output/Audio:media.role:Music"] == 1)
    }

    /// A native ramp that started late in a busy client overwrites the
    /// restore's plain 1: the agent sends 1 again to whatever does not report it.
    @Test func aRestoreOverwrittenByALateRampIsSentAgain() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.play(11, role: "Music", app: "other player")
        daemon.settle()
        daemon.restoreAll()
        #expect(daemon.core.restoreStragglers(in: daemon.graph).isEmpty, "both report 1")
        daemon.graph.nodes[11]?.volume = 0.933867
        #expect(daemon.core.restoreStragglers(in: daemon.graph) == [.setGain(node: 11, gain: 1)])
        daemon.graph.nodes[11]?.props["object.serial"] = "999"  // gone, its id reused: not ours
        #expect(daemon.core.restoreStragglers(in: daemon.graph).isEmpty)
    }

    @Test func aJournalFromACrashIsRestoredOnExit() throws {
        // The previous agent died with the music ducked to 0.2.
        var journal = AgentJournal()
        journal.applied[10] = AppliedStream(serial: 5010, commandedGain: 0.2)
        var daemon = try InMemoryDaemon(journal: journal)
        daemon.play(10, role: "Music", app: "player")
        daemon.graph.nodes[10]?.volume = 0.2
        daemon.restoreAll()
        #expect(daemon.gain(10) == 1)
        #expect(daemon.saved.last?.journal.applied.isEmpty == true)
    }

    @Test func aDryRunChangesNothingButItsOwnMetadataAndJournal() throws {
        let daemon = try musicThenCall(dryRun: true)
        #expect(daemon.gain(10) == 1)
        #expect(daemon.isLinked(10))
        #expect(daemon.logs.contains { $0.level == .info && $0.text.hasPrefix("dry-run: would ") })
        #expect(daemon.status(10)?.hold?.kind == "interrupted", "it still says what it would do")
        var restored = daemon
        let effects = restored.restoreAll()
        #expect(!effects.contains(where: isGraphAction))
        #expect(writes(effects).allSatisfy { $0.metadata == AgentProtocol.metadataName })
        #expect(restored.gain(10) == 1)
    }

    @Test func theUsersSettingsAreSyncedToDiskAndGainsAreNot() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.play(30, role: "Notification", app: "chat")
        daemon.settle()
        daemon.saved = []
        daemon.request(subject: 0, key: AgentProtocol.silentModeKey, value: "true")
        daemon.settle()
        #expect(daemon.gain(30) == 0, "silent mode silences the notification")
        let settingsSave = try #require(daemon.saved.first)
        #expect(settingsSave.sync, "silent mode must outlive the machine")
        #expect(settingsSave.journal.silentChoice == .on)
        #expect(daemon.saved.dropFirst().allSatisfy { !$0.sync }, "fade steps are not synced")
        #expect(daemon.logs.contains { $0.level == .info && $0.text == "silent mode on (set by the user): the user's choice" })
    }

    /// A screen cast linked to a consumer silences the alert, says so in the
    /// agent's status and an event, and its end restores the alert
    /// (docs/POLICY.md, "Presenting").
    @Test func aSharedScreenSilencesAlertsAndItsEndRestoresThem() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.play(30, role: "Notification", app: "chat")
        daemon.settle()
        #expect(daemon.gain(30) == 1)
        func presenting() throws -> PresentingStatus? {
            let text = try #require(daemon.agentEntry(AgentProtocol.agentKey))
            return try JSONDecoder().decode(AgentStatus.self, from: Data(text.utf8)).presenting
        }
        #expect(try presenting() == PresentingStatus(screenCasts: [], silencesAlerts: true))

        // GNOME's cast, then a browser receiving it.
        daemon.graph.nodes[50] = Graph.Node(id: 50, props: ["media.class": "Stream/Output/Video", "node.name": "gnome-shell",
                                                            "media.name": "meta-screen-cast-src"], state: .running)
        daemon.graph.nodes[51] = Graph.Node(id: 51, props: ["media.class": "Stream/Input/Video", "node.name": "firefox",
                                                            "media.name": "webrtc-consume-stream"], state: .running)
        daemon.settle()
        #expect(daemon.gain(30) == 1, "a cast nobody receives shares nothing")
        daemon.graph.links[60] = Graph.Link(id: 60, outputNode: 50, outputPort: 501, inputNode: 51, inputPort: 510, state: .active)
        daemon.settle()
        #expect(daemon.gain(30) == 0)
        #expect(daemon.gain(10) == 1, "the music plays on")
        let cast = ScreenCast(node: 50, implementation: "GNOME Shell", consumers: [51])
        #expect(try presenting() == PresentingStatus(screenCasts: [cast], silencesAlerts: true))
        #expect(daemon.status(30)?.explanation.first
                == "silenced: the screen is being shared (GNOME Shell screen cast, node 50; presenting.silence-alerts)")
        #expect(daemon.logs.contains {
            $0.text == "presenting: the screen is shared (GNOME Shell screen cast, node 50 to node 51); alerts silenced"
        })

        daemon.graph.links[60] = nil
        daemon.settle()
        #expect(daemon.gain(30) == 1, "the sharing ended")
        #expect(try presenting() == PresentingStatus(screenCasts: [], silencesAlerts: true))
        #expect(daemon.logs.contains { $0.text == "presenting ended: the screen is no longer shared; alerts sound again" })
    }

    @Test func aNewConnectionGetsThePersistedSettingsFirst() throws {
        var journal = AgentJournal()
        journal.silentChoice = .on
        journal.appOverrides["app:player"] = AppOverrideRequest(category: "ambient", persist: true)
        var daemon = try InMemoryDaemon(journal: journal)
        let effects = daemon.connect()
        let written = writes(effects)
        #expect(written.first?.key == AgentProtocol.silentModeKey && written.first?.value == "true")
        #expect(written.dropFirst().first?.key == AgentProtocol.appOverridePrefix + "app:player")
        #expect(daemon.agentEntry(AgentProtocol.agentKey) != nil, "then the status")
        // The same connection again publishes only what changed: nothing.
        #expect(writes(daemon.reconcile()).isEmpty)
        // A new connection has a fresh metadata: everything again.
        daemon.graph.metadata[Graph.policyMetadataID]?.entries = [:]
        #expect(writes(daemon.connect()).contains { $0.key == AgentProtocol.agentKey })
    }

    @Test func aFadeAsksToBeWokenAndEndsAtItsLevel() throws {
        var daemon = try musicThen("Navigation", app: "maps")
        daemon.reconcile()
        guard case .some(.some(let next)) = daemon.wakeUp else {
            Issue.record("a fade needs a wake-up")
            return
        }
        #expect(next > daemon.now && next < daemon.now + 0.1)
        daemon.settle()
        #expect(abs((daemon.gain(10) ?? 0) - 0.2) < 0.002, "ducked to the duck level")
        #expect(daemon.wakeUp == .some(nil))
    }

    /// Props changes the adapter need not reconcile on: our own commands
    /// coming back, and a stream in a fade; anything else is news.
    @Test func propsThatCanChangeNoDecisionAreEchoes() throws {
        var daemon = try musicThen("Navigation", app: "maps")
        func echo(_ id: UInt32) -> Bool { daemon.core.isEcho(propsOf: id, in: daemon.graph) }
        daemon.reconcile()
        #expect(echo(10), "in a fade, stepped by the clock")
        daemon.settle()
        #expect(echo(10), "reporting the gain it was sent")
        daemon.graph.nodes[10]?.volume = 0.7
        #expect(!echo(10), "a volume someone else set")
        #expect(!echo(1), "a node the agent never changed")
        daemon.graph.addStream(10, serial: 9999, props: ["media.role": "Music"])
        #expect(!echo(10), "a new node with the id of one we changed")
    }

    /// The daemon confirming a gain is not worth a write (AgentJournal.differsDurably),
    /// so the journal last saved holds the duck's last command unconfirmed.
    /// An agent started from it after a crash confirms it from the graph when
    /// the daemon has the gain, and sends it again when the daemon never got it.
    @Test(arguments: [true, false])
    func aCommandJournaledUnconfirmedIsConfirmedOrSentAgainAfterACrash(_ landed: Bool) throws {
        var before = try musicThen("Navigation", app: "maps")
        before.settle()
        let journal = try #require(before.saved.last?.journal)
        let music = try #require(journal.applied[10])
        #expect(!music.confirmed && music.commandedGain.map { abs($0 - 0.2) < 0.002 } == true,
                "saved before the last step went out, and not again for its confirmation")
        #expect(before.reconcile().contains(where: isJournalSave) == false)

        var after = try InMemoryDaemon(journal: journal)
        after.now = before.now + 5
        after.graph = before.graph
        if !landed { after.graph.nodes[10]?.volume = 1 }
        let effects = after.connect() + after.reconcile()
        let sent = effects.contains { if case .graph(.setGain(10, _)) = $0 { true } else { false } }
        #expect(sent == !landed, landed ? "confirmed from the graph" : "sent again")
        after.settle()
        #expect(abs((after.gain(10) ?? 0) - 0.2) < 0.002, "still ducked for the prompt")
    }

    @Test func everyEventIsNumberedLoggedAndPublished() throws {
        let daemon = try musicThenCall()
        let published = try #require(daemon.agentEntry(AgentProtocol.eventKey))
        let record = try JSONDecoder().decode(EventRecord.self, from: Data(published.utf8))
        #expect(record.type == .interruptionBegan)
        #expect(record.seq >= 3, "two streams classified, then the interruption")
        #expect(daemon.logs.contains { $0.level == .info && $0.text == record.text })
    }

    @Test func aReloadedConfigIsAnnouncedAndABadOneKeepsThePrevious() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        var loaded = daemon.core.config
        loaded.config.settings.duckLevel = 0.5
        loaded.files = ["/etc/pw-policy/pw-policy.conf", "/etc/pw-policy/pw-policy.conf.d/50-duck.conf"]
        daemon.apply(daemon.core.reload(loaded, trigger: .signal, graph: daemon.graph))
        #expect(daemon.core.config == loaded)
        #expect(daemon.logs.contains { $0.level == .notice && $0.text.hasPrefix("config reloaded (SIGHUP)") })
        #expect(daemon.agentEntry(AgentProtocol.eventKey)?.contains("config-reloaded") == true)
        // The same config again: nothing to say.
        #expect(daemon.core.reload(loaded, trigger: .fileChanged, graph: daemon.graph).isEmpty)

        daemon.apply(daemon.core.reloadFailed("pw-policy.conf:3: expected '}'", trigger: .fileChanged, graph: daemon.graph))
        daemon.reconcile()
        #expect(daemon.core.config == loaded, "the previous config stays")
        #expect(daemon.logs.contains { $0.level == .error && $0.text.contains("expected '}'") })
        let agent = try JSONDecoder().decode(AgentStatus.self, from: Data(try #require(daemon.agentEntry(AgentProtocol.agentKey)).utf8))
        #expect(agent.configError == "pw-policy.conf:3: expected '}'")
    }

    @Test func requestsOfVanishedNodesAreCleared() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.request(subject: 77, key: AgentProtocol.categoryKey, value: "ambient")
        daemon.reconcile()
        #expect(daemon.graph.metadata(named: AgentProtocol.metadataName)?.entries[77] == nil,
                "node 77 does not exist: its request would apply to the next node with that id")
    }

    @Test func withoutItsMetadataTheAgentStillActsAndPublishesNothing() throws {
        var daemon = try musicThen("Communication", app: "phone", agentMetadata: false)
        let effects = daemon.reconcile()
        #expect(effects.contains(where: isGraphAction))
        #expect(writes(effects).isEmpty)
    }
}
