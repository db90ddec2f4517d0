import Foundation
import Testing
@testable import PolicyCore
import PolicyTestSupport

/// Pausing and playing media players, through the whole control loop
/// against the in-memory daemon: pause on a hold, play again only what we
/// paused and nobody touched, only when the hold ends for a reason that
/// resumes (docs/PLAYERS.md, "Pausing and resuming").
@Suite struct PlayerPausesTests {
    static let mpv = "org.mpris.MediaPlayer2.mpv"

    /// Music (stream 10, process 500) controlled by mpv (pid 500), playing
    /// and settled; the session bus watched.
    func musicWithPlayer(status: PlaybackStatus = .playing, on sink: UInt32 = 1,
                         journal: AgentJournal = AgentJournal(), resumeOnReturn: Bool = false) throws -> InMemoryDaemon {
        var daemon = try InMemoryDaemon(journal: journal, resumeOnReturn: resumeOnReturn)
        daemon.players = PlayerSet([MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", pid: 500, identity: "mpv",
                                                status: status, canPause: true, canPlay: true)])
        daemon.connect()
        daemon.play(10, role: "Music", app: "mpv", on: sink)
        daemon.graph.nodes[10]?.props["application.process.id"] = "500"
        daemon.settle()
        return daemon
    }

    func answer(_ daemon: inout InMemoryDaemon, _ status: PlaybackStatus) {
        daemon.players?[Self.mpv]?.status = status
        daemon.settle()
    }

    func call(_ daemon: inout InMemoryDaemon) {
        daemon.play(20, role: "Communication", app: "phone")
        daemon.now += 1
        daemon.settle()
    }

    func hangUp(_ daemon: inout InMemoryDaemon) {
        daemon.stop(20)
        daemon.now += 1
        daemon.settle()
        daemon.now += 1  // past the debounce: the call's session is over
        daemon.settle()
    }

    @Test func aCallPausesThePlayerAndItsEndPlaysItAgainOnce() throws {
        var daemon = try musicWithPlayer()
        call(&daemon)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        #expect(daemon.gain(10) == 0 && !daemon.isLinked(10), "the hold is the backstop until the player pauses")
        #expect(daemon.saved.last?.journal.pausedPlayers[Self.mpv]?.state == .pausing, "journaled")
        #expect(daemon.status(10)?.player?.pausedByAgent?.hasPrefix("pause sent") == true)
        answer(&daemon, .paused)
        #expect(daemon.core.journal.pausedPlayers[Self.mpv]?.state == .paused)
        #expect(daemon.status(10)?.player?.pausedByAgent == "paused by pw-policy; plays again when the interruption ends")
        hangUp(&daemon)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv), .play(busName: Self.mpv)])
        #expect(daemon.core.journal.pausedPlayers.isEmpty)
        #expect(daemon.gain(10) == 1 && daemon.isLinked(10))
    }

    @Test func aPlayerTheUserPausedBeforeTheCallStaysPaused() throws {
        var daemon = try musicWithPlayer(status: .paused)
        call(&daemon)
        hangUp(&daemon)
        #expect(daemon.playerCommands.isEmpty)
    }

    @Test func aPlayerTheUserPlaysDuringTheCallIsLeftAlone() throws {
        var daemon = try musicWithPlayer()
        call(&daemon)
        answer(&daemon, .paused)
        answer(&daemon, .playing)  // the user pressed play
        #expect(daemon.core.journal.pausedPlayers[Self.mpv]?.state == .takenOver)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)], "not paused again")
        hangUp(&daemon)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)], "never played by us")
        #expect(daemon.core.journal.pausedPlayers.isEmpty)
    }

    @Test func aNonResumableTakeoverPausesAndNeverPlays() throws {
        var daemon = try musicWithPlayer()
        daemon.play(30, role: "Music", app: "radio")  // two non-mixable playbacks: the newer wins
        daemon.now += 1
        daemon.settle()
        #expect(daemon.status(10)?.hold?.resumable == false)
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        answer(&daemon, .paused)
        #expect(daemon.status(10)?.player?.pausedByAgent?.contains("stays paused") == true)
        daemon.stop(30)
        daemon.now += 2
        daemon.settle()
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
    }

    /// Music on the headphones (2) with mpv playing it; the headphones unplugged
    /// (WirePlumber moves the music to the speakers), the agent settled.
    func headphonesPulled(resumeOnReturn: Bool = false) throws -> InMemoryDaemon {
        var daemon = try musicWithPlayer(on: 2, resumeOnReturn: resumeOnReturn)
        daemon.graph.nodes[2] = nil
        daemon.graph.links[110] = nil
        daemon.graph.addLink(111, from: 10, to: 1)
        daemon.now += 1
        daemon.settle()
        return daemon
    }

    @Test(arguments: [false, true])
    func headphonesBackWithinTheWindowPlayOnlyWithResumeOnReturn(resumeOnReturn: Bool) throws {
        var daemon = try headphonesPulled(resumeOnReturn: resumeOnReturn)
        answer(&daemon, .paused)
        daemon.now += 5
        daemon.graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        daemon.settle()
        if resumeOnReturn {
            #expect(daemon.playerCommands == [.pause(busName: Self.mpv), .play(busName: Self.mpv)])
            #expect(daemon.graph.links(from: 10).map(\.inputNode) == [2], "back where it played")
            #expect(daemon.status(10)?.hold == nil)
        } else {
            #expect(daemon.playerCommands == [.pause(busName: Self.mpv)], "stays paused")
            #expect(daemon.status(10)?.hold?.kind == "route-lost")
        }
    }

    @Test func headphonesBackAfterTheWindowLeaveItPaused() throws {
        var daemon = try headphonesPulled(resumeOnReturn: true)
        answer(&daemon, .paused)
        daemon.now += 31
        daemon.graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        daemon.settle()
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        #expect(daemon.status(10)?.hold?.kind == "route-lost")
    }

    @Test func headphonesOutPauseAndOnlyResumePlays() throws {
        var daemon = try headphonesPulled()
        #expect(daemon.status(10)?.hold?.kind == "route-lost")
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
        answer(&daemon, .paused)
        daemon.now += 5
        daemon.settle()
        #expect(daemon.playerCommands.count == 1, "stays paused")
        daemon.request(subject: 10, key: AgentProtocol.resumeKey, value: "1")
        daemon.settle()
        #expect(daemon.playerCommands == [.pause(busName: Self.mpv), .play(busName: Self.mpv)])
    }

    /// WirePlumber 0.5.11+ pauses the player of a removed sink itself, in
    /// the same moment: when the agent finds the route lost the player says
    /// Paused already. The agent sends no second Pause and takes that pause
    /// for its own, so `pw-policy resume` plays it as after its own
    /// (docs/PLAYERS.md, "Beside WirePlumber's own pause").
    @Test func aPauseByWirePlumberAtTheUnplugIsTakenForOurs() throws {
        var daemon = try musicWithPlayer(on: 2)
        daemon.graph.nodes[2] = nil
        daemon.graph.links[110] = nil
        daemon.players?[Self.mpv]?.status = .paused
        daemon.now += 1
        daemon.settle()
        #expect(daemon.status(10)?.hold?.kind == "route-lost")
        #expect(daemon.playerCommands.isEmpty, "no second Pause")
        #expect(daemon.core.journal.pausedPlayers[Self.mpv]?.state == .paused)
        daemon.now += 5
        daemon.settle()
        #expect(daemon.playerCommands.isEmpty, "stays paused")
        daemon.request(subject: 10, key: AgentProtocol.resumeKey, value: "1")
        daemon.settle()
        #expect(daemon.playerCommands == [.play(busName: Self.mpv)])
    }

    @Test func aPlayerThatVanishesOrChangesOwnerIsNeverPlayed() throws {
        for replacement in [nil, MediaPlayer(busName: Self.mpv, uniqueName: ":1.9", pid: 900, status: .paused)] {
            var daemon = try musicWithPlayer()
            call(&daemon)
            answer(&daemon, .paused)
            daemon.players?[Self.mpv] = replacement
            daemon.settle()
            hangUp(&daemon)
            #expect(daemon.playerCommands == [.pause(busName: Self.mpv)])
            #expect(daemon.core.journal.pausedPlayers.isEmpty)
        }
    }

    @Test func aRestartDuringTheCallPlaysTheMusicWhenTheCallEnds() throws {
        var before = try musicWithPlayer()
        call(&before)
        answer(&before, .paused)
        before.restoreAll()
        let journal = try #require(before.saved.last?.journal)
        #expect(journal.pausedPlayers[Self.mpv]?.state == .paused, "exit keeps the paused player remembered")

        var after = try InMemoryDaemon(journal: journal)
        after.graph = before.graph
        after.players = before.players
        after.connect()
        after.settle()
        #expect(after.playerCommands.isEmpty, "the call goes on: not played")
        hangUp(&after)
        #expect(after.playerCommands == [.play(busName: Self.mpv)])
    }

    @Test func aDryRunAndAMissingBusSendNothing() throws {
        var daemon = try musicWithPlayer()
        daemon.players = nil
        call(&daemon)
        #expect(daemon.playerCommands.isEmpty)

        var dry = try InMemoryDaemon(dryRun: true)
        dry.players = PlayerSet([MediaPlayer(busName: Self.mpv, uniqueName: ":1.5", pid: 500, status: .playing)])
        dry.connect()
        dry.play(10, role: "Music", app: "mpv")
        dry.graph.nodes[10]?.props["application.process.id"] = "500"
        dry.settle()
        call(&dry)
        #expect(dry.playerCommands.isEmpty)
        #expect(dry.logs.contains { $0.text.hasPrefix("dry-run: would pause \(Self.mpv)") })
    }

    @Test func aJournalWithoutPausedPlayersStillReads() throws {
        var journal = AgentJournal()
        journal.silentChoice = .on
        var json = String(decoding: try journal.encoded(), as: UTF8.self)
        json = json.replacingOccurrences(of: #","pausedPlayers":{}"#, with: "")
        #expect(!json.contains("pausedPlayers"))
        let read = try AgentJournal.decoded(from: Data(json.utf8))
        #expect(read.silentChoice == .on && read.pausedPlayers.isEmpty)
    }
}
