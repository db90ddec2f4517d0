import Testing
@testable import PolicyCore

/// What WirePlumber saves under a stream's key while the agent acts, and
/// that none of the agent's gains stays there (docs/POLICY.md,
/// "WirePlumber's memory"), against the in-memory daemon's model of
/// restore-stream (0.4) and state-stream (0.5).
@Suite struct WirePlumberStreamStateTests {
    static let v04 = PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 98, version: "0.4.13"))
    static let v05 = PipeWireStack(pipewire: "1.4.2", wirePlumber: .init(client: 98, version: "0.5.8"))

    // MARK: keys

    @Test(arguments: [
        (["media.class": "Stream/Output/Audio", "media.role": "Music", "application.name": "mpv"], "0.4.13",
         "Output/Audio:media.role:Music" as String?),
        (["media.class": "Stream/Output/Audio", "application.id": "org.gnome.Rhythmbox3", "application.name": "Rhythmbox"], "0.5.8",
         "Output/Audio:application.id:org.gnome.Rhythmbox3"),
        (["media.class": "Stream/Output/Audio", "application.name": "mpv", "media.name": "x"], "0.4.13",
         "Output/Audio:application.name:mpv"),
        (["media.class": "Stream/Input/Audio", "node.name": "rec"], "0.5.8", "Input/Audio:node.name:rec"),
        // 0.5.15 keys a role only when it is Notification.
        (["media.class": "Stream/Output/Audio", "media.role": "Music", "application.name": "mpv"], "0.5.15",
         "Output/Audio:application.name:mpv"),
        (["media.class": "Stream/Output/Audio", "media.role": "Notification", "application.name": "x"], "0.5.15",
         "Output/Audio:media.role:Notification"),
        (["media.class": "Stream/Output/Audio", "application.name": "mpv", "state.restore-props": "false"], "0.4.13", nil),
        (["media.class": "Audio/Sink", "node.name": "speakers"], "0.4.13", nil),
    ])
    func theKeyIsWirePlumbersOwn(_ props: [String: String], _ version: String, _ key: String?) {
        #expect(WirePlumberStreamState.key(of: props, wirePlumber: SemanticVersion(parsing: version)) == key)
    }

    @Test func theRouteSettingsEntryWritesTheKeysFirstColonAsADot() {
        #expect(WirePlumberStreamState.routeSettingsKey("Output/Audio:application.name:QtPulseAudio:42")
                == "restore.stream.Output/Audio.application.name:QtPulseAudio:42")
    }

    @Test func aCorrectionWritesOnlyTheVolumeAndLeavesTheMetadataAsItWas() throws {
        var graph = Graph()
        graph.metadata[1] = Graph.Metadata(id: 1, name: "route-settings")
        let fresh = WirePlumberStreamState.routeSettingsCorrection(of: "Output/Audio:application.name:mpv", in: graph)
        #expect(fresh.map(\.value) == [#"{"volume":1.0}"#, nil])
        // WirePlumber publishes the event sounds' entry: kept, with its other values.
        let key = "restore.stream.Output/Audio.media.role:Notification"
        graph.metadata[1]?.entries[0] = [key: Graph.MetadataEntry(subject: 0, key: key, type: "Spa:String:JSON",
                                                                  value: #"{"volume":0.0,"mute":false,"volumes":[0.5,0.5],"channels":["FL","FR"]}"#)]
        let kept = WirePlumberStreamState.routeSettingsCorrection(of: WirePlumberStreamState.notificationKey, in: graph)
        #expect(kept.map(\.value) == [#"{"channels":["FL","FR"],"mute":false,"volume":1.0,"volumes":[0.5,0.5]}"#])
    }

    @Test func aStandInCarriesTheKeysClassPropertyAndChannels() throws {
        let props = try #require(WirePlumberStreamState.standInProperties(for: "Output/Audio:application.name:a:b", channels: 1))
        #expect(props["media.class"] == "Stream/Output/Audio")
        #expect(props["application.name"] == "a:b")
        #expect(props["audio.position"] == "[ MONO ]")
        #expect(props["node.autoconnect"] == "false")
        #expect(props[Graph.Node.agentsOwnKey] != nil)
        #expect(props["media.role"] == nil && props["application.id"] == nil, "nothing WirePlumber would key on first")
        #expect(WirePlumberStreamState.standInProperties(for: "garbage", channels: 2) == nil)
    }

    // MARK: the agent leaves no gain behind

    static let prompt = ["application.name": "Maps", "policy.category": "playback", "policy.options": "[ duck-others ]"]

    /// mpv (stream 10, keyed by its name) ducked by a navigation prompt (20).
    static func mpvDuckedByAPrompt(_ stack: PipeWireStack, dryRun: Bool = false) throws -> InMemoryDaemon {
        var daemon = try InMemoryDaemon(dryRun: dryRun)
        daemon.stack = stack
        daemon.connect()
        daemon.play(10, props: ["application.name": "mpv"])
        daemon.settle()
        daemon.play(20, props: prompt)
        daemon.now += 1
        daemon.settle()
        return daemon
    }

    /// A stream that ends while ducked, on either generation: what
    /// WirePlumber saved for its key is 1 again — at once on 0.4 (through
    /// route-settings), at exit on 0.5 (a stand-in stream) — and the next
    /// stream of the app, with no agent, starts at 1.
    @Test(arguments: [v04, v05])
    func aStreamThatEndsDuckedLeavesNoGainBehind(_ stack: PipeWireStack) throws {
        var daemon = try Self.mpvDuckedByAPrompt(stack)
        #expect(daemon.gain(10) == Double(Float(0.2)))
        #expect(daemon.wirePlumberSaved["Output/Audio:application.name:mpv"] == 0.2, "WirePlumber saves what the stream reports")
        daemon.stop(10)
        daemon.now += 0.1
        daemon.reconcile()
        let key = "Output/Audio:application.name:mpv"
        if stack.wirePlumberVersion! < SemanticVersion(0, 5) {
            #expect(daemon.wirePlumberSaved[key] == 1, "corrected as soon as no stream of the key holds a gain")
            #expect(daemon.core.journal.wirePlumberKeys[key] == nil)
        } else {
            #expect(daemon.core.journal.wirePlumberKeys[key] == .init(channelVolumes: [1, 1], mute: false),
                    "0.5 takes no route-settings correction of it: kept for the exit, with the user's values saved there")
        }
        daemon.restoreAll()
        #expect(daemon.wirePlumberSaved[key] == 1)
        #expect(daemon.core.journal.wirePlumberKeys.isEmpty)
        #expect(daemon.saved.last?.journal.wirePlumberKeys.isEmpty == true)
    }

    /// A correction is WirePlumber's work too: while a new stream waits for
    /// WirePlumber to link it, the corrections wait with the raises, and go
    /// once it is linked (docs/PERFORMANCE.md, "The journal written when
    /// the agent acts").
    @Test func aCorrectionWaitsWhileANewStreamWaitsForItsLink() throws {
        var daemon = try Self.mpvDuckedByAPrompt(Self.v04)
        let key = "Output/Audio:application.name:mpv"
        #expect(daemon.wirePlumberSaved[key] == 0.2)
        daemon.stop(10)
        daemon.graph.addStream(40, props: ["application.name": "browser"])
        daemon.now += 0.1
        daemon.reconcile()
        #expect(daemon.wirePlumberSaved[key] == 0.2, "the browser waits for WirePlumber's link: no correction yet")
        #expect(daemon.core.journal.wirePlumberKeys[key] != nil, "the key stays tainted meanwhile")
        daemon.graph.addLink(140, from: 40, to: 1)
        daemon.now += 0.01
        daemon.reconcile()
        #expect(daemon.wirePlumberSaved[key] == 1, "corrected once the browser is linked")
        #expect(daemon.core.journal.wirePlumberKeys[key] == nil)
    }

    /// Silent mode on a key many streams share: each alert ends at 0; the
    /// key is corrected when none is left at 0, never while one is.
    @Test(arguments: [v04, v05])
    func aRoleKeySharedByManyStreamsIsCorrectedOnceNoneHoldsAGain(_ stack: PipeWireStack) throws {
        var daemon = try InMemoryDaemon()
        daemon.stack = stack
        daemon.connect()
        daemon.request(subject: 0, key: AgentProtocol.silentModeKey, value: "true")
        daemon.play(30, role: "Notification", app: "a")
        daemon.play(31, role: "Notification", app: "b")
        daemon.settle()
        let key = WirePlumberStreamState.notificationKey
        #expect(daemon.gain(30) == 0 && daemon.gain(31) == 0)
        #expect(daemon.wirePlumberSaved[key] == 0)
        daemon.stop(30)
        daemon.now += 0.1
        daemon.reconcile()
        #expect(daemon.wirePlumberSaved[key] == 0, "stream 31 still holds 0: a correction would be overwritten")
        daemon.stop(31)
        daemon.now += 0.1
        daemon.reconcile()
        #expect(daemon.wirePlumberSaved[key] == 1, "both generations read the event sounds' key from route-settings")
        #expect(daemon.core.journal.wirePlumberKeys.isEmpty)
        // The next alert in silent mode is still silenced, from its first sample.
        daemon.play(32, role: "Notification", app: "c")
        daemon.reconcile()
        #expect(daemon.gain(32) == 0)
    }

    /// A stand-in carries the user's own values WirePlumber saved, as the
    /// key's stream last reported them: WirePlumber saves what it reports.
    @Test func theUsersValuesFollowTheStreamOfATaintedKey() throws {
        var daemon = try Self.mpvDuckedByAPrompt(Self.v05)
        let key = "Output/Audio:application.name:mpv"
        daemon.graph.nodes[10]?.channelVolumes = [0.5, 0.25]
        daemon.graph.nodes[10]?.mute = true
        daemon.now += 0.1
        daemon.reconcile()
        #expect(daemon.core.journal.wirePlumberKeys[key] == .init(channelVolumes: [0.5, 0.25], mute: true))
        daemon.stop(10)
        daemon.now += 0.1
        daemon.reconcile()
        let effects = daemon.restoreAll()
        #expect(effects.contains(.resetStoredVolumes([key: .init(channelVolumes: [0.5, 0.25], mute: true)])))
    }

    /// SIGKILL: the journal still names the key; the next start corrects it.
    @Test func aKeyLeftByAKilledAgentIsCorrectedByTheNextOne() throws {
        let first = try Self.mpvDuckedByAPrompt(Self.v04)
        let journal = try #require(first.saved.last?.journal)
        #expect(journal.wirePlumberKeys["Output/Audio:application.name:mpv"] != nil, "journaled before the duck was sent")
        // Killed; mpv quits meanwhile.
        var next = try InMemoryDaemon(journal: journal)
        next.wirePlumberSaved = first.wirePlumberSaved
        next.play(20, props: Self.prompt)
        next.connect()
        #expect(next.wirePlumberSaved["Output/Audio:application.name:mpv"] == 1)
    }

    /// A dry run changes nothing, so it has nothing to take back.
    @Test func aDryRunTracksNothing() throws {
        let daemon = try Self.mpvDuckedByAPrompt(Self.v04, dryRun: true)
        #expect(daemon.core.journal.wirePlumberKeys.isEmpty)
    }
}
