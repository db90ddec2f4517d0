import Foundation
import Testing
@testable import PolicyCore
import PolicyTestSupport

extension InMemoryDaemon {
    /// A key pressed on the proxy, as the adapter hands it to the core.
    @discardableResult
    mutating func press(_ key: MediaKey) -> [AgentEffect] { apply(core.mediaKey(key, observation)) }

    /// The published agent status's media-key line.
    var mediaKeys: MediaKeysStatus? {
        agentEntry(AgentProtocol.agentKey)
            .flatMap { try? JSONDecoder().decode(AgentStatus.self, from: Data($0.utf8)) }?.mediaKeys
    }
}

/// Where the media keys go and what each key does, through the whole
/// control loop against the in-memory daemon (docs/PLAYERS.md, "Media keys").
@Suite struct MediaKeysTests {
    static let mpv = "org.mpris.MediaPlayer2.mpv"
    static let vlc = "org.mpris.MediaPlayer2.vlc"

    /// Music (stream 10, pid 500) by mpv and, when asked, a second app's
    /// stream (11, pid 600) by vlc; the players as given.
    func scene(mpv mpvStatus: PlaybackStatus = .playing, vlc vlcStatus: PlaybackStatus? = nil, on sink: UInt32 = 1,
               vlcStream: Bool = false) throws -> InMemoryDaemon {
        var daemon = try InMemoryDaemon()
        var players = [MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", pid: 500, identity: "mpv", status: mpvStatus,
                                   title: "tone", canPause: true, canPlay: true)]
        if let vlcStatus {
            players.append(MediaPlayer(busName: Self.vlc, uniqueName: ":1.6", pid: 600, identity: "VLC", status: vlcStatus,
                                       canPause: true, canPlay: true))
        }
        daemon.players = PlayerSet(players)
        daemon.connect()
        daemon.play(10, props: ["media.role": "Music", "application.name": "mpv", "application.process.id": "500"], on: sink)
        if vlcStream {
            daemon.play(11, props: ["media.role": "Music", "application.name": "VLC", "application.process.id": "600",
                                    "policy.options": "mix-with-others"])
        }
        daemon.settle()
        return daemon
    }

    func set(_ daemon: inout InMemoryDaemon, _ name: String, _ status: PlaybackStatus) {
        daemon.players?[name]?.status = status
        daemon.now += 0.5
        daemon.settle()
    }

    func call(_ daemon: inout InMemoryDaemon) {
        daemon.play(20, role: "Communication", app: "phone")
        daemon.now += 1
        daemon.settle()
    }

    @Test func theKeysGoToTheAudiblePlayer() throws {
        var daemon = try scene()
        #expect(daemon.mediaKeys?.target == Self.mpv)
        #expect(daemon.mediaKeys?.reason == "audible")
        #expect(daemon.mediaKeys?.text == #"org.mpris.MediaPlayer2.mpv ("mpv"): audible now"#)
        #expect(daemon.mediaKeysTarget??.busName == Self.mpv, "the proxy mirrors it")
        daemon.press(.playPause)
        #expect(daemon.playerCommands == [.mediaKey(.playPause, busName: Self.mpv)])
        #expect(daemon.mediaKeys?.lastKey == "PlayPause to org.mpris.MediaPlayer2.mpv: sent PlayPause")
        #expect(daemon.agentEntry(AgentProtocol.eventKey)?.contains("media key PlayPause to org.mpris.MediaPlayer2.mpv") == true)
    }

    /// Scenario table: the players' states → where the keys go, and why.
    @Test(arguments: [
        // mpv, vlc, vlc has a stream, expected target, expected reason
        (PlaybackStatus.playing, PlaybackStatus.paused, false, mpv, "audible"),
        (.paused, .playing, false, vlc, "audible"),  // vlc says Playing, no stream of it known: its word is taken
        (.paused, .playing, true, vlc, "audible"),
        (.paused, .paused, false, mpv, "most-recently-active"),  // neither seen playing: the first by bus name
        (.stopped, .stopped, false, mpv, "most-recently-active"),
    ])
    func whereTheKeysGo(mpv: PlaybackStatus, vlc: PlaybackStatus, vlcStream: Bool, target: String, reason: String) throws {
        let daemon = try scene(mpv: mpv, vlc: vlc, vlcStream: vlcStream)
        #expect(daemon.mediaKeys?.target == target)
        #expect(daemon.mediaKeys?.reason == reason)
    }

    @Test func theMostRecentlyActivePlayerWhenNoneIsAudible() throws {
        var daemon = try scene(vlc: .paused)
        set(&daemon, Self.vlc, .playing)  // vlc started after mpv…
        set(&daemon, Self.vlc, .paused)
        set(&daemon, Self.mpv, .paused)   // …and both were paused by the user
        #expect(daemon.mediaKeys?.target == Self.vlc, "vlc became Playing last")
        #expect(daemon.mediaKeys?.reason == "most-recently-active")
        daemon.press(.playPause)
        #expect(daemon.playerCommands == [.mediaKey(.play, busName: Self.vlc)], "the user's own key: Play, not a toggle")
    }

    @Test func twoAudiblePlayersTheOneStartedLastWins() throws {
        var daemon = try scene(vlc: .paused, vlcStream: true)
        set(&daemon, Self.vlc, .playing)
        #expect(daemon.mediaKeys?.target == Self.vlc)
        set(&daemon, Self.mpv, .paused)
        set(&daemon, Self.mpv, .playing)
        #expect(daemon.mediaKeys?.target == Self.mpv)
    }

    @Test func duringACallPlayPauseDoesNothingToTheMusicAndSaysWhy() throws {
        var daemon = try scene()
        call(&daemon)
        set(&daemon, Self.mpv, .paused)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        #expect(daemon.mediaKeys?.reason == "paused-by-pw-policy")
        let text = try #require(daemon.mediaKeys?.text)
        #expect(text.contains("paused by pw-policy (interrupted by \"phone\")"), "\(text)")
        #expect(text.contains("Play does nothing while a call (\"phone\") holds the music"), "\(text)")
        for key in [MediaKey.playPause, .play] {
            daemon.press(key)
            #expect(daemon.playerCommands == [.pause(busName: Self.mpv)], "\(key): nothing sent to the music")
            #expect(daemon.mediaKeys?.lastKey?.hasSuffix("does nothing to the music: a call (\"phone\") holds the music") == true,
                    "\(String(describing: daemon.mediaKeys?.lastKey))")
        }
        #expect(daemon.logs.contains { $0.text.contains("media key Play to \(Self.mpv): nothing") })
        daemon.press(.next)
        #expect(daemon.playerCommands.last == .mediaKey(.next, busName: Self.mpv), "a key that starts nothing is sent")
    }

    @Test func aPlayerInACallIsNeverATarget() throws {
        var daemon = try scene()
        daemon.players?[Self.vlc] = MediaPlayer(busName: Self.vlc, uniqueName: ":1.6", pid: 700, identity: "Browser",
                                                status: .playing, canPause: true, canPlay: true)
        daemon.play(20, props: ["media.role": "Communication", "application.name": "Browser", "application.process.id": "700"])
        daemon.now += 1
        daemon.settle()
        set(&daemon, Self.mpv, .paused)
        #expect(daemon.status(20)?.category == "play-and-record")
        #expect(daemon.status(20)?.player?.busName == Self.vlc, "the browser's player controls the call")
        #expect(daemon.mediaKeys?.target == Self.mpv, "the music, not the call: \(String(describing: daemon.mediaKeys))")
        daemon.press(.playPause)
        #expect(!daemon.playerCommands.contains { if case .mediaKey = $0 { true } else { false } }, "nothing reaches the call")
        #expect(daemon.mediaKeys?.lastKey?.contains("a call (\"Browser\") holds the music") == true)
    }

    @Test func duringACallAPlayerTheUserPausedIsNotStartedEither() throws {
        var daemon = try scene(mpv: .paused)
        daemon.stop(10)  // a paused player with no stream open
        daemon.play(12, role: "Music", app: "radio")  // music with no player
        daemon.settle()
        call(&daemon)  // holds the radio
        #expect(daemon.status(12)?.hold?.kind == "interrupted")
        #expect(daemon.mediaKeys?.target == Self.mpv)
        #expect(daemon.mediaKeys?.text.contains("Play does nothing while a call (\"phone\") holds the music") == true)
        daemon.press(.playPause)
        #expect(!daemon.playerCommands.contains(.mediaKey(.play, busName: Self.mpv)))
        #expect(!daemon.playerCommands.contains(.mediaKey(.playPause, busName: Self.mpv)))
        #expect(daemon.mediaKeys?.lastKey?.contains("holds the music") == true)
    }

    @Test func playAfterAnUnplugIsTheUsersResume() throws {
        var daemon = try scene(on: 2)
        daemon.graph.nodes[2] = nil
        daemon.graph.links[110] = nil
        daemon.graph.addLink(111, from: 10, to: 1)
        daemon.now += 1
        daemon.settle()
        set(&daemon, Self.mpv, .paused)
        #expect(daemon.status(10)?.hold?.kind == "route-lost")
        #expect(daemon.mediaKeys?.reason == "paused-by-pw-policy")
        #expect(daemon.mediaKeys?.text.hasSuffix("; Play resumes it (releases its hold)") == true)
        daemon.press(.playPause)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv), .play(busName: Self.mpv)],
                "released, then played by the pause's own memory, once")
        #expect(daemon.status(10)?.hold == nil)
        #expect(daemon.core.journal.pausedPlayers.isEmpty)
        #expect(daemon.mediaKeys?.lastKey == "PlayPause to org.mpris.MediaPlayer2.mpv: the user's resume: stream 10 released, then Play")
    }

    @Test func aPlayerPausedByPwPolicyIsTheTargetAfterItsPauseIsForgotten() throws {
        // A non-resumable takeover: vlc's music interrupts mpv; vlc then stops.
        var daemon = try scene(vlc: .paused)
        daemon.play(11, props: ["media.role": "Music", "application.name": "VLC", "application.process.id": "600"])
        set(&daemon, Self.vlc, .playing)
        set(&daemon, Self.mpv, .paused)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        #expect(daemon.mediaKeys?.target == Self.vlc, "vlc is audible")
        daemon.stop(11)
        set(&daemon, Self.vlc, .stopped)
        daemon.now += 2
        daemon.settle()
        #expect(daemon.core.journal.pausedPlayers.isEmpty, "not resumable: forgotten")
        #expect(daemon.mediaKeys?.target == Self.mpv)
        #expect(daemon.mediaKeys?.reason == "paused-by-pw-policy")
        daemon.press(.playPause)
        #expect(daemon.playerCommands.last == .mediaKey(.play, busName: Self.mpv))
        daemon.graph.nodes[10]?.state = .running  // the held stream was suspended; playing runs it again
        set(&daemon, Self.mpv, .playing)
        #expect(daemon.mediaKeys?.reason == "audible")
    }

    @Test func noPlayerNoKey() throws {
        var daemon = try InMemoryDaemon()
        daemon.players = PlayerSet()
        daemon.connect()
        daemon.settle()
        #expect(daemon.mediaKeys?.reason == "none")
        daemon.press(.playPause)
        #expect(daemon.playerCommands.isEmpty)
        #expect(daemon.mediaKeys?.lastKey == "PlayPause: nothing: no media player on the session bus")
    }

    @Test func offOrUnavailableTheStatusSaysWhy() throws {
        var daemon = try scene()
        var config = daemon.core.config
        config.config.settings.mediaKeys = false
        daemon.apply(daemon.core.reload(config, trigger: .signal, graph: daemon.graph))
        daemon.now += 1
        daemon.settle()
        #expect(daemon.mediaKeys?.reason == "off")
        #expect(daemon.mediaKeys?.text == "off (players.media-keys = false)")
        #expect(daemon.mediaKeysTarget == .some(nil), "nothing mirrored")
    }

    @Test func aDryRunSendsNothing() throws {
        var daemon = try InMemoryDaemon(dryRun: true)
        daemon.players = PlayerSet([MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", pid: 500, status: .playing)])
        daemon.connect()
        daemon.play(10, props: ["media.role": "Music", "application.process.id": "500"])
        daemon.settle()
        daemon.press(.pause)
        #expect(daemon.playerCommands.isEmpty)
        #expect(daemon.logs.contains { $0.text == "dry-run: would send Pause to \(Self.mpv)" })
    }

    /// The pure step, as a table: what a key does to a target.
    @Test(arguments: [
        // key, player status, a call holds it, its held streams, our pause confirmed → command, release, refused
        (MediaKey.playPause, PlaybackStatus.playing, false, [UInt32](), false, MediaKey?.some(.playPause), [UInt32](), false),
        (.playPause, .paused, false, [], false, .play, [], false),
        (.play, .paused, true, [], false, nil, [], true),
        (.playPause, .paused, true, [10], false, nil, [], true),
        (.pause, .paused, true, [10], false, .pause, [], false),
        (.stop, .playing, true, [10], false, .stop, [], false),
        (.playPause, .paused, false, [10], true, nil, [10], false),
        (.play, .paused, false, [10], false, .play, [10], false),
        (.previous, .paused, false, [10], true, .previous, [], false),
    ])
    func whatAKeyDoes(key: MediaKey, status: PlaybackStatus, call: Bool, held: [UInt32], confirmed: Bool,
                      command: MediaKey?, release: [UInt32], refused: Bool) {
        let player = MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", status: status)
        let target = MediaKeyTarget(busName: Self.mpv, reason: .pausedByAgent(why: ""),
                                    callHolds: call ? SessionKey("phone/play-and-record") : nil, heldStreams: held)
        let paused = confirmed ? [Self.mpv: PausedPlayer(owner: ":1.5", cause: .routeLost(output: "headphones"), state: .paused,
                                                         session: SessionKey("mpv/playback"), since: 1)] : [:]
        let outcome = MediaKeys.press(key, target: target, players: PlayerSet([player]), paused: paused, names: DecisionNames())
        #expect(outcome.command == command)
        #expect(outcome.release == release)
        #expect((outcome.refusal != nil) == refused)
    }

    @Test func playDuringAGameThatHeldTheMusicIsTheUsersResume() throws {
        var daemon = try InMemoryDaemon()
        var config = daemon.core.config
        config.config.settings.soloAmbientMixesWithPlaying = false
        daemon.apply(daemon.core.reload(config, trigger: .signal, graph: daemon.graph))
        daemon.players = PlayerSet([MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", pid: 500, identity: "mpv",
                                                status: .playing, canPause: true, canPlay: true)])
        daemon.connect()
        daemon.play(10, props: ["media.role": "Music", "application.name": "mpv", "application.process.id": "500"])
        daemon.settle()
        daemon.now += 1
        daemon.play(30, role: "Game", app: "game")
        daemon.settle()
        set(&daemon, Self.mpv, .paused)
        #expect(daemon.status(10)?.hold?.kind == "interrupted", "the game holds the music")
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        #expect(daemon.mediaKeys?.text.hasSuffix("; Play resumes it (releases its hold)") == true,
                "\(String(describing: daemon.mediaKeys?.text))")
        daemon.press(.playPause)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv), .play(busName: Self.mpv)])
        #expect(daemon.status(10)?.hold == nil, "the music is the newest now")
        #expect(daemon.status(30)?.hold?.kind == "interrupted", "and holds the game, as the newer of two non-mixable sessions")
    }

    @Test func memoryForgetsAPauseTheUserUndidAndPlayersThatLeft() {
        var memory = MediaKeyMemory()
        let playing = MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", status: .playing)
        memory.observe(PlayerSet([playing]), now: 1)
        #expect(memory.lastPlaying[Self.mpv]?.at == 1)
        memory.paused(playing, at: 2, why: "headphones went away")
        var paused = playing
        paused.status = .paused
        memory.observe(PlayerSet([paused]), now: 3)
        #expect(memory.pausedByAgent[Self.mpv] != nil)
        memory.observe(PlayerSet([playing]), now: 4)
        #expect(memory.pausedByAgent[Self.mpv] == nil, "the user played it")
        #expect(memory.lastPlaying[Self.mpv]?.at == 4)
        var other = playing
        other.uniqueName = ":1.9"
        memory.observe(PlayerSet([other]), now: 5)
        #expect(memory.lastPlaying[Self.mpv]?.owner == ":1.9", "a new owner is a new player")
        memory.observe(PlayerSet(), now: 6)
        #expect(memory.lastPlaying.isEmpty)
    }
}
