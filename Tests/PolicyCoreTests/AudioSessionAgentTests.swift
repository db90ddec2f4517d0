import Foundation
import Testing
@testable import PolicyCore
import PolicyTestSupport

/// The seeds' audio-session scenarios through the agent's core, on the
/// in-memory daemon (docs/API.md): what a caller declares classifies its
/// streams, what it asks is answered, what the policy does to it is told,
/// and "notify others" ends the debounce.
@Suite struct AudioSessionAgentTests {
    /// The in-memory daemon with sessions: calls go through the core as the
    /// adapter sends them, each followed by a settle (the adapter's reconcile).
    struct Desk {
        var daemon: InMemoryDaemon
        init() throws {
            daemon = try InMemoryDaemon()
            daemon.connect()
        }

        @discardableResult
        mutating func call(_ call: AudioSessionTable.Call, from caller: String, pid: Int32? = nil) -> AudioSessionTable.Reply {
            let (reply, effects) = daemon.core.audioSessionCall(call, from: caller, token: "token-\(caller)-\(daemon.told.count)",
                                                                now: daemon.now)
            daemon.apply(effects)
            if let pid { daemon.core.audioSessionOwnerIdentified(caller, pid: pid, flatpakAppID: nil) }
            print("call \(call) from \(caller): \(reply)")
            return reply
        }

        mutating func create(_ category: String, _ options: [String] = [], from caller: String, pid: Int32) -> String {
            guard case .created(let path) = call(.create(category: category, options: options, mode: ""), from: caller, pid: pid)
            else { Issue.record("no session"); return "" }
            return path
        }

        func property(_ path: String, _ name: AudioSessionProperty) -> AudioSessionValue? {
            daemon.core.audioSessionProperties(path: path)?.properties[name]
        }

        /// The signals told to `path` since message `from`, as "Member(args)".
        func signals(to path: String, from: Int = 0) -> [String] {
            daemon.told.dropFirst(from).compactMap { message in
                guard message.path == path, case .signal(let signal, let values) = message.kind else { return nil }
                return "\(signal.rawValue)(\(values.map(Self.word).joined(separator: ", ")))"
            }
        }

        /// The PropertiesChanged told to `path` since `from`, merged.
        func changed(_ path: String, from: Int = 0) -> [AudioSessionProperty: AudioSessionValue] {
            var merged: [AudioSessionProperty: AudioSessionValue] = [:]
            for message in daemon.told.dropFirst(from) where message.path == path {
                if case .propertiesChanged(let values) = message.kind { merged.merge(values) { $1 } }
            }
            return merged
        }

        static func word(_ value: AudioSessionValue) -> String {
            switch value {
            case .bool(let bool): "\(bool)"
            case .string(let text): "\"\(text)\""
            case .strings(let texts): "\(texts)"
            case .uints(let numbers): "\(numbers)"
            case .double(let number): "\(number)"
            }
        }
    }

    /// A stream of process `pid` (a child of the caller, in the ancestry).
    static func props(pid: Int32, name: String) -> [String: String] {
        ["application.process.id": String(pid), "application.name": name, "media.name": name]
    }

    /// Scenario 3 of the seeds: the game asks whether other audio plays and
    /// picks ambient while the music plays (which goes on), solo-ambient
    /// when nothing does.
    @Test func theGameAsksAndPicksAmbientBesideTheMusic() throws {
        var desk = try Desk()
        desk.daemon.play(10, props: Self.props(pid: 500, name: "mpv").merging(["media.role": "Music"]) { $1 })
        desk.daemon.settle()
        let game = desk.create("solo-ambient", from: ":1.7", pid: 600)
        desk.daemon.ancestry = [601: 600]
        #expect(desk.property(game, .otherAudioIsPlaying) == .bool(true), "asked right after CreateSession")
        #expect(desk.property(game, .secondaryAudioShouldBeSilenced) == .bool(true), "the music does not mix")
        desk.call(.setCategory(path: game, category: "ambient", options: [], mode: ""), from: ":1.7")
        desk.daemon.play(20, props: Self.props(pid: 601, name: "game"))
        desk.daemon.settle()
        #expect(desk.daemon.status(20)?.category == "ambient" && desk.daemon.status(20)?.source == "audio-session",
                "\(String(describing: desk.daemon.status(20)))")
        let musicLinked = desk.daemon.isLinked(10)
        #expect(desk.daemon.gain(10) == 1 && musicLinked, "the music plays on")
        #expect(desk.daemon.gain(20) == 1)
        #expect(desk.property(game, .streams) == .uints([20]))
        // The music stops: told that nothing else plays.
        let told = desk.daemon.told.count
        desk.daemon.graph.nodes[10]?.state = .idle
        desk.daemon.settle()
        #expect(desk.changed(game, from: told)[.otherAudioIsPlaying] == .bool(false))
        #expect(desk.property(game, .secondaryAudioShouldBeSilenced) == .bool(false))
        // With nothing playing, another game declares solo-ambient and is solo.
        let solo = desk.create("solo-ambient", from: ":1.8", pid: 700)
        #expect(desk.property(solo, .otherAudioIsPlaying) == .bool(true), "the first game plays")
        #expect(desk.property(solo, .secondaryAudioShouldBeSilenced) == .bool(false), "but mixes")
    }

    /// Scenario: a navigation app declares playback, mix-with-others,
    /// duck-others; the music ducks only while it speaks.
    @Test func theNavigationPromptDucksTheMusicWhileItSpeaks() throws {
        var desk = try Desk()
        desk.daemon.play(10, props: Self.props(pid: 500, name: "mpv").merging(["media.role": "Music"]) { $1 })
        let maps = desk.create("playback", ["mix-with-others", "duck-others"], from: ":1.3", pid: 300)
        desk.daemon.ancestry = [301: 300]
        desk.daemon.settle()
        desk.daemon.play(30, props: Self.props(pid: 301, name: "prompt"))
        desk.daemon.settle()
        #expect(desk.daemon.gain(10).map { abs($0 - 0.2) < 0.001 } == true, "ducked: \(String(describing: desk.daemon.gain(10)))")
        #expect(desk.daemon.gain(30) == 1)
        #expect(desk.property(maps, .otherAudioIsPlaying) == .bool(true))
        desk.daemon.stop(30)
        desk.daemon.settle()
        #expect(desk.daemon.gain(10) == 1, "back once it stopped speaking")
    }

    /// The VoIP client's session interrupts the player client's session,
    /// which is told it began and, after the call, that it ended and should
    /// resume; "notify others" tells it at once, without it after the debounce.
    @Test(arguments: [true, false])
    func aCallInterruptsAnotherSessionAndDeactivatingTellsIt(notifyOthers: Bool) throws {
        var desk = try Desk()
        let player = desk.create("playback", from: ":1.4", pid: 400)
        let voip = desk.create("play-and-record", from: ":1.5", pid: 500)
        desk.daemon.ancestry = [401: 400, 501: 500]
        desk.daemon.play(40, props: Self.props(pid: 401, name: "player"))
        desk.daemon.settle()
        desk.daemon.play(50, props: Self.props(pid: 501, name: "call"))
        desk.daemon.graph.addStream(51, direction: .capture, props: Self.props(pid: 501, name: "call input"))
        desk.daemon.settle()
        #expect(desk.signals(to: player) == ["InterruptionBegan(\"call\", \"play-and-record\", true)"])
        let held = !desk.daemon.isLinked(40)
        #expect(desk.property(player, .interrupted) == .bool(true) && held)
        #expect(desk.signals(to: voip).isEmpty, "the call is told nothing")
        // The call ends: its streams go, then it deactivates.
        let told = desk.daemon.told.count
        desk.daemon.stop(50)
        desk.daemon.stop(51)
        desk.daemon.reconcile()
        #expect(desk.signals(to: player, from: told).isEmpty, "within the debounce, still interrupted")
        desk.call(.deactivate(path: voip, notifyOthers: notifyOthers), from: ":1.5")
        desk.daemon.reconcile()
        if notifyOthers {
            #expect(desk.signals(to: player, from: told) == ["InterruptionEnded(true)"], "at once")
            let linked = desk.daemon.isLinked(40)
            #expect(linked, "released in the same turn")
        } else {
            #expect(desk.signals(to: player, from: told).isEmpty)
            desk.daemon.settle()
            #expect(desk.signals(to: player, from: told) == ["InterruptionEnded(true)"], "after the debounce")
        }
        #expect(desk.property(player, .interrupted) == .bool(false))
        #expect(desk.property(voip, .active) == .bool(false))
        // The player plays again (its app restarts the stream released); it
        // calls again: a stream that starts ends the deactivation.
        desk.daemon.graph.nodes[40]?.state = .running
        desk.daemon.settle()
        desk.daemon.play(52, props: Self.props(pid: 501, name: "call"))
        desk.daemon.settle()
        #expect(desk.daemon.core.audioSessions.sessions.values.allSatisfy { $0.deactivation == nil })
        #expect(desk.property(player, .interrupted) == .bool(true),
                "\(desk.signals(to: player)); call: \(String(describing: desk.daemon.status(52)?.explanation)); player: \(String(describing: desk.daemon.status(40)?.explanation))")
    }

    /// A recorder's session silences alerts; the recording itself is told nothing.
    @Test func aRecordersSessionSilencesAlerts() throws {
        var desk = try Desk()
        let recorder = desk.create("record", from: ":1.6", pid: 600)
        desk.daemon.ancestry = [601: 600]
        desk.daemon.graph.addStream(60, direction: .capture, props: Self.props(pid: 601, name: "recorder"))
        desk.daemon.settle()
        desk.daemon.now += 1
        desk.daemon.play(61, role: "Notification", app: "chat")
        desk.daemon.settle()
        #expect(desk.daemon.gain(61) == 0 && desk.daemon.status(61)?.silenced == true)
        #expect(desk.daemon.status(60)?.source == "audio-session")
        #expect(desk.signals(to: recorder).isEmpty)
    }

    /// The headphones are unplugged: the session is told "old device
    /// unavailable" with the output it played to; plugged back, nothing
    /// resumes by itself.
    @Test func unpluggingTellsTheSessionItsOldDeviceWentAway() throws {
        var desk = try Desk()
        let player = desk.create("playback", from: ":1.4", pid: 400)
        desk.daemon.ancestry = [401: 400]
        desk.daemon.play(40, props: Self.props(pid: 401, name: "player"), on: 2)
        desk.daemon.settle()
        #expect(desk.property(player, .output) == .string("headphones"))
        desk.daemon.graph.removeNode(2)
        desk.daemon.settle()
        #expect(desk.signals(to: player) == ["RouteChanged(\"old-device-unavailable\", \"headphones\", \"\")"])
        #expect(desk.property(player, .output) == .string(""))
    }

    /// Its output moves when a device comes: "new device available", with
    /// the previous output; when the user moves it: "user-choice".
    @Test func aRouteChangeSaysWhy() throws {
        var desk = try Desk()
        desk.daemon.graph.removeNode(2)
        let player = desk.create("playback", from: ":1.4", pid: 400)
        desk.daemon.ancestry = [401: 400]
        desk.daemon.play(40, props: Self.props(pid: 401, name: "player"))
        desk.daemon.settle()
        // Headphones come, and WirePlumber moves the stream there.
        desk.daemon.graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        desk.daemon.reconcile()
        desk.daemon.graph.links[140] = nil
        desk.daemon.graph.addLink(140, from: 40, to: 2)
        desk.daemon.now += 0.1
        desk.daemon.settle()
        #expect(desk.signals(to: player) == ["RouteChanged(\"new-device-available\", \"speakers\", \"headphones\")"])
        // Much later the user moves it back.
        desk.daemon.now += 60
        desk.daemon.graph.links[140] = nil
        desk.daemon.graph.addLink(140, from: 40, to: 1)
        desk.daemon.settle()
        #expect(desk.signals(to: player).last == "RouteChanged(\"user-choice\", \"headphones\", \"speakers\")")
    }

    /// A caller's declaration reaches none of another app's streams; and
    /// whatever it declares, a call still interrupts it.
    @Test func aCallerAffectsItsOwnStreamsOnlyAndACallStillInterrupts() throws {
        var desk = try Desk()
        desk.daemon.play(10, props: Self.props(pid: 500, name: "mpv").merging(["media.role": "Music"]) { $1 })
        let greedy = desk.create("play-and-record", from: ":1.9", pid: 900)
        desk.daemon.ancestry = [901: 900]
        desk.daemon.settle()
        #expect(desk.daemon.status(10)?.source == "inference", "the music is not the caller's")
        desk.daemon.play(90, props: Self.props(pid: 901, name: "greedy"))
        desk.daemon.settle()
        #expect(desk.daemon.status(90)?.category == "play-and-record")
        // A real call (another app's) interrupts it as any other.
        desk.daemon.play(70, props: Self.props(pid: 700, name: "phone").merging(["media.role": "Communication"]) { $1 })
        desk.daemon.graph.addStream(71, direction: .capture, props: Self.props(pid: 700, name: "phone"))
        desk.daemon.settle()
        let callLinked = desk.daemon.isLinked(70)
        #expect(desk.daemon.gain(70) == 1 && callLinked, "nothing keeps a call from being heard")
        let greedyHeld = !desk.daemon.isLinked(90)
        #expect(greedyHeld)
        #expect(desk.signals(to: greedy) == ["InterruptionBegan(\"phone\", \"play-and-record\", true)"])
        // The caller leaves the bus: its streams are classified as before.
        _ = desk.daemon.core.audioSessionOwnerLeft(":1.9")
        desk.daemon.settle()
        #expect(desk.daemon.status(90)?.source != "audio-session")
    }

    /// Silent mode and the lock: told as SilenceBegan with the reason, and
    /// the SilentMode property.
    @Test func silencingIsToldWithItsReason() throws {
        var desk = try Desk()
        let game = desk.create("ambient", from: ":1.2", pid: 200)
        desk.daemon.ancestry = [201: 200]
        desk.daemon.play(20, props: Self.props(pid: 201, name: "game"))
        desk.daemon.settle()
        desk.daemon.request(subject: 0, key: AgentProtocol.silentModeKey, value: "true")
        desk.daemon.settle()
        #expect(desk.signals(to: game).first?.hasPrefix("SilenceBegan(\"silent mode, set by the user") == true,
                "\(desk.signals(to: game))")
        #expect(desk.property(game, .silentMode) == .bool(true) && desk.property(game, .silenced) == .bool(true))
        desk.daemon.request(subject: 0, key: AgentProtocol.silentModeKey, value: "false")
        desk.daemon.settle()
        #expect(desk.signals(to: game).last == "SilenceEnded()")
        desk.daemon.screenLock = ScreenLock(lockedIn: ["GNOME"], answering: ["GNOME"])
        desk.daemon.settle()
        #expect(desk.signals(to: game).last == "SilenceBegan(\"the screen is locked (GNOME; silent.while-locked) (ambient is silenced in silent mode)\")")
    }

    /// The status names the service and each session.
    @Test func theStatusShowsTheSessions() throws {
        var desk = try Desk()
        let game = desk.create("ambient", from: ":1.2", pid: 200)
        desk.daemon.ancestry = [201: 200]
        desk.daemon.play(20, props: Self.props(pid: 201, name: "game"))
        desk.daemon.settle()
        let text = try #require(desk.daemon.agentEntry(AgentProtocol.agentKey))
        let status = try JSONDecoder().decode(AgentStatus.self, from: Data(text.utf8)).audioSessions
        print("audio sessions status: \(String(describing: status))")
        #expect(status == AudioSessionsStatus(busName: "org.pwpolicy.AudioSession1", available: true,
                                              text: "org.pwpolicy.AudioSession1 on the session bus",
                                              sessions: [.init(path: game, owner: ":1.2", pid: 200, declared: "ambient",
                                                               streams: [20], state: "active, on speakers")]))
    }
}
