import Foundation
import PolicyCore
import PolicyDBus
import PolicyAgent
import PolicyPipeWire
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// The MPRIS observer on a sandbox's private session bus, with our test
    /// player and with real mpv on both of its outputs: what it sees, how
    /// players are matched to streams, Pause/Play through it
    /// (docs/PLAYERS.md). The agent's pausing is not wired yet.
    @Suite struct PlayerObserverTests {
        @Test func seesTheTestPlayerAndPausesAndPlaysIt() throws {
            let scene = try PlayerScene()
            let player = try TestPlayer(scene: scene, name: "a")
            #expect(player.busName == "org.mpris.MediaPlayer2.pwpolicytest.a")
            #expect(scene.wait { players, _ in players[player.busName]?.status == .playing })
            let seen = try #require(scene.players[player.busName])
            #expect(seen.pid == player.pid)
            #expect(seen.uniqueName.hasPrefix(":"))
            #expect(seen.identity == "pw-policy test player a")
            #expect(seen.trackID == "/org/pwpolicy/track/1" && seen.title == "Test tone" && seen.url == player.busName)
            #expect(seen.canPause == true && seen.canPlay == true)
            #expect(seen.flatpakAppID == nil)

            // Our own Pause: answered, the status follows, the position freezes.
            let pause = scene.command(play: false, player.busName)
            #expect(pause.map { (try? $0.get()) != nil } == true, "\(String(describing: pause))")
            #expect(scene.wait { players, _ in players[player.busName]?.status == .paused })
            scene.pump(0.3)
            let frozen = player.position(scene: scene)
            scene.pump(0.5)
            #expect(frozen != nil && player.position(scene: scene) == frozen)

            // Someone else's Play (playerctl): seen through PropertiesChanged.
            let reportsBefore = scene.reports
            try scene.playerctl(["-p", "pwpolicytest.a", "play"])
            #expect(scene.wait { players, _ in players[player.busName]?.status == .playing })
            #expect(scene.reports > reportsBefore)
            scene.pump(0.5)
            #expect((player.position(scene: scene) ?? 0) > (frozen ?? .max))

            // Our own Play after a Pause by playerctl.
            try scene.playerctl(["-p", "pwpolicytest.a", "pause"])
            #expect(scene.wait { players, _ in players[player.busName]?.status == .paused })
            #expect(scene.command(play: true, player.busName).map { (try? $0.get()) != nil } == true)
            #expect(scene.wait { players, _ in players[player.busName]?.status == .playing })
        }

        /// A player flooding the bus (50 PropertiesChanged every 10 ms) is
        /// unsubscribed and read by polling: logged once, still reported,
        /// and a pause by someone else is still seen (docs/PLAYERS.md, "A
        /// player that floods the bus").
        @Test(arguments: ["metadata", "status"])
        func aPlayerThatFloodsTheBusIsReadByPolling(flood: String) throws {
            let scene = try PlayerScene()
            let player = try TestPlayer(scene: scene, name: "storm", options: ["--flood", flood])
            func floodLines() -> [String] { scene.log.filter { $0.contains("sends more than 100 PropertiesChanged a second") } }
            #expect(scene.wait { _, _ in !floodLines().isEmpty }, "never throttled; the observer logged \(scene.log)")
            #expect(scene.players[player.busName]?.status == .playing, "the flooder is still a player")
            let reports = scene.reports
            scene.pump(2)
            // Polled once a second: a few reports (Metadata floods change the title), not hundreds.
            #expect(scene.reports - reports <= 4, "\(scene.reports - reports) reports in 2 s while throttled")
            try scene.playerctl(["-p", "pwpolicytest.storm", "pause"])
            #expect(scene.wait(timeout: 5) { players, _ in players[player.busName]?.status == .paused },
                    "a pause was not seen while polling")
            #expect(floodLines().count == 1, "logged once: \(floodLines())")
        }

        /// A player already there when the observer starts is found by
        /// ListNames; one that leaves is removed.
        @Test func findsPlayersAlreadyThereAndRemovesThoseThatLeave() throws {
            let scene = try PlayerScene()
            let first = try TestPlayer(scene: scene, name: "first", options: ["--paused"])
            #expect(scene.wait { players, _ in players[first.busName]?.status == .paused })
            var reported: [PlayerSet] = []
            let late = MPRISObserver(bus: scene.bus, log: { _ in }, onChange: { reported.append($0) })
            try late.start().get()
            #expect(scene.wait { _, _ in reported.last?[first.busName]?.pid == first.pid })
            first.process.stop()
            #expect(scene.wait { players, _ in players[first.busName] == nil })
            #expect(scene.wait { _, _ in reported.last?.isEmpty == true })
            #expect(scene.log.contains("player \(first.busName) left"))
        }

        /// The stream of a child process is the bus connection's player's:
        /// the stream names the child's pid, the bus the parent's.
        @Test func matchesAStreamPlayedByAChildProcess() throws {
            let scene = try PlayerScene()
            let player = try TestPlayer(scene: scene, name: "child", options: ["--child"])
            #expect(player.streamPID != player.pid)
            #expect(scene.wait { players, graph in
                players[player.busName] != nil && graph.streams.contains { $0.name == player.nodeName && $0.hasInfo }
            })
            let stream = try #require(scene.stream(named: player.nodeName))
            let clientPID = stream.clientID.flatMap { scene.client.graph.clients[$0]?.props["application.process.id"] }
            #expect(clientPID == String(player.streamPID))
            let match = scene.matches()[stream.id]
            #expect(match == PlayerMatch(busName: player.busName,
                                         reason: .descendant(streamPID: player.streamPID, playerPID: player.pid, generations: 1)))
            // Paused through the bus, the child's stream stops.
            #expect(scene.command(play: false, player.busName).map { (try? $0.get()) != nil } == true)
            scene.pump(0.3)
            let frozen = player.position(scene: scene)
            scene.pump(0.5)
            #expect(frozen != nil && player.position(scene: scene) == frozen)
        }

        @Test func aPlayerThatIgnoresPauseKeepsPlaying() throws {
            let scene = try PlayerScene()
            let player = try TestPlayer(scene: scene, name: "deaf", options: ["--ignore-pause"])
            #expect(scene.wait { players, _ in players[player.busName]?.status == .playing })
            #expect(scene.command(play: false, player.busName).map { (try? $0.get()) != nil } == true)
            scene.pump(0.5)
            #expect(scene.players[player.busName]?.status == .playing)
            let before = player.position(scene: scene)
            scene.pump(0.5)
            #expect((player.position(scene: scene) ?? 0) > (before ?? .max))
        }

        /// Told to pause, it exits without answering: the call fails, the
        /// player is removed, and the log says it left, not that
        /// something failed.
        @Test func aPlayerThatVanishesMidPause() throws {
            let scene = try PlayerScene()
            let player = try TestPlayer(scene: scene, name: "gone", options: ["--vanish-on-pause"])
            #expect(scene.wait { players, _ in players[player.busName]?.status == .playing })
            let result = scene.command(play: false, player.busName)
            guard case .failure(let error)? = result else {
                Issue.record("Pause on a vanishing player: \(String(describing: result))")
                return
            }
            #expect(error.name.hasPrefix("org.freedesktop.DBus.Error."), "\(error)")
            #expect(error.peerLeft, "\(error)")
            #expect(scene.wait { players, _ in players[player.busName] == nil })
            #expect(scene.log.contains("player \(player.busName) left the bus before it answered Pause"), "\(scene.log)")
            #expect(!scene.log.contains { $0.contains("Pause failed") }, "\(scene.log)")
            // A command to a player that is no more fails too, at once.
            let again = scene.command(play: true, player.busName)
            #expect(again.map { (try? $0.get()) == nil } == true)
        }

        @Test(arguments: ["pipewire", "pulse"])
        func seesMPVAndMatchesItsStream(output: String) throws {
            let scene = try PlayerScene(pulse: output == "pulse")
            let tone = scene.sandbox.path("tone.wav")
            try Audio.writeTone(to: tone, seconds: 3)
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: tone, output: output, mpris: true)
            let busName = "org.mpris.MediaPlayer2.mpv"
            #expect(scene.wait(timeout: 15) { players, graph in
                // mpv-mpris may say Playing before its Metadata has the file's title.
                players[busName]?.status == .playing && players[busName]?.title != nil
                    && graph.streams.contains { $0.name == "mpv" && $0.hasInfo }
            }, "\(scene.players) \(scene.log)")
            let player = try #require(scene.players[busName])
            #expect(player.pid == mpv.pid)
            #expect(player.identity?.isEmpty == false)
            #expect(player.title?.contains("tone") == true, "\(player)")
            let stream = try #require(scene.stream(named: "mpv"))
            let client = stream.clientID.flatMap { scene.client.graph.clients[$0] }
            // What mpv's stream carries on this output (docs/PLAYERS.md).
            print("mpv --ao=\(output) stream props: \(stream.props.sorted { $0.key < $1.key })")
            print("mpv --ao=\(output) client props: \((client?.props ?? [:]).sorted { $0.key < $1.key })")
            #expect(client?.props["application.process.id"] == String(mpv.pid))
            #expect(scene.matches()[stream.id] == PlayerMatch(busName: busName, reason: .sameProcess(pid: mpv.pid)))

            try scene.playerctl(["-p", "mpv", "pause"])
            #expect(scene.wait { players, _ in players[busName]?.status == .paused })
            #expect(scene.command(play: true, busName).map { (try? $0.get()) != nil } == true)
            #expect(scene.wait { players, _ in players[busName]?.status == .playing })
            mpv.stop()
            #expect(scene.wait { players, _ in players[busName] == nil })
        }

        @Test func theSessionBusGoingAwayIsReportedOnce() throws {
            let scene = try PlayerScene()
            var lost: [SessionBusError] = []
            scene.bus.onDisconnect = { lost.append($0) }
            let daemon = try #require(scene.sandbox.pid(of: "dbus-daemon"))
            kill(daemon, SIGKILL)
            #expect(scene.wait { _, _ in !lost.isEmpty })
            scene.pump(0.3)
            #expect(lost.count == 1)
            #expect(lost.first?.description.contains("players are not paused") == true)
            let result = scene.command(play: false, "org.mpris.MediaPlayer2.any")
            #expect(result.map { (try? $0.get()) == nil } == true)
        }
    }
}

/// No session bus at all: a value to log and show, not a crash.
@Suite struct SessionBusUnavailableTests {
    @Test func noBusAtTheAddressIsAnErrorValue() {
        let loop = EventLoop()
        let result = SessionBus.connect(address: "unix:path=/nonexistent/pw-policy-test/bus", on: loop)
        guard case .failure(let error) = result else {
            Issue.record("connected to a bus that does not exist")
            return
        }
        #expect(error == .unavailable(address: "unix:path=/nonexistent/pw-policy-test/bus", reason: "No such file or directory"))
        #expect(error.description == "no session bus at unix:path=/nonexistent/pw-policy-test/bus: No such file or directory; players are not paused")
    }

    @Test func aMalformedAddressIsAnErrorValue() {
        let result = SessionBus.connect(address: "not an address", on: EventLoop())
        #expect((try? result.get()) == nil)
    }
}
