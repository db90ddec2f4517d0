import Foundation
import Testing
import PolicyCore

@Suite struct AgentJournalTests {
    /// A fresh directory under the system's temporary directory, removed by the caller.
    static var sample: AgentJournal {
        var journal = AgentJournal()
        journal.silentChoice = .on
        journal.appOverrides["firefox"] = AppOverrideRequest(category: "ambient", options: ["duck-others"],
                                                             mode: "spoken-audio", persist: true)
        journal.applied[10] = AppliedStream(serial: 5010, commandedGain: 0.2, commandedAt: 12.5, confirmed: false,
                                            held: false, ramp: GainRamp(from: 1, to: 0.2, start: 12, duration: 0.25))
        journal.applied[11] = AppliedStream(serial: 5011, commandedGain: 0, held: true, routedTo: 1002)
        journal.memory = EngineMemory(
            sessions: [SessionKey("mpv:playback"): .init(activeSince: 3, lastActive: 9, category: .playback,
                                                         options: [.duckOthers], appName: "mpv",
                                                         interruption: .init(by: SessionKey("phone:call"), resumable: true),
                                                         ducked: 0.2)],
            streams: [10: .init(lastOutput: 2, lastOutputPrivate: true, lastOutputName: "headphones", routeLost: true)],
            held: [11: .routeLost], outputs: [1: "speakers", 2: "headphones"], privateOutputs: [2],
            defaultOutput: 1, silenced: [SessionKey("beep:system-sound")], time: 42)
        journal.memory.silencedApps = [SessionKey("beep:system-sound"): "beep"]
        return journal
    }

    /// The decision clock moves on every decision; only real changes are written.
    @Test func onlyRealChangesAreWorthAWrite() {
        let sample = Self.sample
        var later = sample
        later.memory.time = 43
        later.memory.sessions[SessionKey("mpv:playback")]?.lastActive = 43
        #expect(!later.differsDurably(from: sample))
        // A step of a fade in progress: the ramp says where the gain goes.
        var stepped = later
        stepped.applied[10]?.commandedGain = 0.5
        stepped.applied[10]?.commandedAt = 12.6
        stepped.applied[10]?.confirmed = true
        #expect(!stepped.differsDurably(from: sample))
        // The daemon confirming a command, or the command sent again unchanged:
        // a restart confirms or resends it from the graph.
        var confirmed = later
        confirmed.applied[11]?.confirmed = false
        confirmed.applied[11]?.commandedAt = 40
        #expect(!confirmed.differsDurably(from: sample))
        #expect(!sample.differsDurably(from: confirmed))
        var changes: [AgentJournal] = []
        for change in 0..<11 {
            var changed = later
            switch change {
            case 0: changed.applied[11]?.commandedGain = 0.5
            case 1: changed.memory.sessions[SessionKey("mpv:playback")]?.activeSince = 4
            case 2: changed.memory.sessions[SessionKey("x:ambient")] = .init(activeSince: 43, lastActive: 43)
            case 3: changed.memory.time = nil
            case 4: changed.silentChoice = .off
            case 5: changed.applied[10]?.ramp = nil  // the fade ended
            case 6: changed.applied[10]?.ramp?.to = 0.3  // a new fade
            case 7: changed.applied[11] = nil
            case 8:  // as many sessions, another one
                changed.memory.sessions[SessionKey("mpv:playback")] = nil
                changed.memory.sessions[SessionKey("vlc:playback")] = .init(activeSince: 3, lastActive: 43)
            case 9: changed.memory.held = [:]
            default: changed.appOverrides = [:]
            }
            changes.append(changed)
        }
        #expect(changes.map { $0.differsDurably(from: sample) } == Array(repeating: true, count: 11))
    }

    /// The user's settings are synced to disk; what the agent did to streams is not.
    @Test func settingsAreTheUsersSilentModeAndOverrides() {
        let sample = Self.sample
        var streamsOnly = sample
        streamsOnly.applied = [:]
        streamsOnly.memory = .empty
        var silent = sample
        silent.silentChoice = .off
        var overrides = sample
        overrides.appOverrides["mpv"] = AppOverrideRequest(category: "ambient", persist: true)
        #expect([streamsOnly, silent, overrides].map { $0.settingsDiffer(from: sample) } == [false, true, true])
    }

    /// The file I/O is the agent's (JournalFileTests); here what it writes
    /// and reads.
    @Test func encodedRoundTrip() throws {
        let decoded = try AgentJournal.decoded(from: Self.sample.encoded())
        #expect(decoded == Self.sample)
        #expect(decoded != AgentJournal(), "the sample is not the empty journal")
        let object = try JSONSerialization.jsonObject(with: Data(Self.sample.encoded())) as? [String: Any]
        #expect(object?["silentMode"] as? Bool == true, "still written for an older agent")
        #expect(object?["silentChoice"] as? String == "on")
    }

    /// A journal an older agent wrote: its silent mode was on or off, off
    /// the default; off now follows Do Not Disturb.
    @Test(arguments: [(true, SilentChoice.on), (false, .follow)])
    func aJournalWithOnlySilentModeReads(_ legacy: Bool, _ choice: SilentChoice) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(AgentJournal().encoded())) as? [String: Any])
        object["silentChoice"] = nil
        object["silentMode"] = legacy
        let journal = try AgentJournal.decoded(from: try JSONSerialization.data(withJSONObject: object))
        #expect(journal.silentChoice == choice && journal.doNotDisturbSeen == nil)
    }

    /// A journal written before the names of silenced sessions were kept still reads.
    @Test func aJournalWithoutSilencedAppsReads() throws {
        var old = Self.sample
        old.memory.silencedApps = nil
        let text = String(decoding: Data(try old.encoded()), as: UTF8.self)
        #expect(!text.contains("silencedApps") && text.contains("beep:system-sound"))
        #expect(try AgentJournal.decoded(from: Data(text.utf8)) == old)
    }

    @Test(arguments: ["", "{", "not json at all", "[]", #"{"version":"one"}"#, "\u{0}\u{1}\u{2}",
                      #"{"version":1,"silentMode":"yes"}"#])
    func corruptDataThrows(_ content: String) {
        #expect(throws: (any Error).self) { try AgentJournal.decoded(from: Data(content.utf8)) }
    }

    @Test(arguments: [
        (["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"], "/x/state/pw-policy/state.json"),
        (["HOME": "/home/u"], "/home/u/.local/state/pw-policy/state.json"),
        (["XDG_STATE_HOME": "", "HOME": "/home/u"], "/home/u/.local/state/pw-policy/state.json"),
        // The XDG spec: a relative path is invalid and ignored.
        (["XDG_STATE_HOME": "relative/state", "HOME": "/home/u"], "/home/u/.local/state/pw-policy/state.json"),
        ([:], "/tmp/.local/state/pw-policy/state.json"),
        (["HOME": ""], "/tmp/.local/state/pw-policy/state.json"),
    ])
    func path(_ environment: [String: String], _ expected: String) {
        #expect(AgentJournal.path(environment: environment) == expected)
    }

    @Test(arguments: [
        (["XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/x/state"], "/run/user/1000/pw-policy/journal.json"),
        (["XDG_RUNTIME_DIR": "", "HOME": "/home/u"], nil),
        (["XDG_RUNTIME_DIR": "run/user/1000"], nil),
        ([:], nil),
    ] as [([String: String], String?)])
    func runtimePath(_ environment: [String: String], _ expected: String?) {
        #expect(AgentJournal.runtimePath(environment: environment) == expected)
    }

    /// The part on disk keeps the user's settings and what WirePlumber's
    /// own files may hold of the agent's gains; the streams, the engine's
    /// memory and the paused players end with the session.
    @Test func whatOutlivesTheSession() throws {
        var journal = Self.sample
        journal.doNotDisturbSeen = true
        journal.wirePlumberKeys["Output/Audio:application.name:mpv"] = .init(channelVolumes: [0.5, 0.5], mute: false)
        journal.pausedPlayers["org.mpris.MediaPlayer2.mpv"] = PausedPlayer(
            owner: ":1.7", cause: .routeLost(output: "headphones"), state: .paused, session: SessionKey("mpv:playback"), since: 3)
        journal.wirePlumberDuckLevel = "0.3"
        #expect(!journal.applied.isEmpty && !journal.memory.streams.isEmpty && !journal.pausedPlayers.isEmpty)
        let part = journal.outlivingTheSession
        #expect(part.silentChoice == journal.silentChoice && part.doNotDisturbSeen == true
                && part.appOverrides == journal.appOverrides && part.wirePlumberKeys == journal.wirePlumberKeys
                && part.wirePlumberDuckLevel == "0.3")
        #expect(part.applied.isEmpty && part.memory == .empty && part.pausedPlayers.isEmpty)
        #expect(try AgentJournal.decoded(from: part.encoded()) == part)
    }
}
