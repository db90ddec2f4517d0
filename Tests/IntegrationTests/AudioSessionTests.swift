import Foundation
import PolicyCore
import PolicyDBus
import PolicyFiles
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// The seeds' scenarios through the audio-session API (docs/API.md), end
    /// to end on the sandbox: real clients written against the documented
    /// API (`Tests/Clients/audio-session-client` and
    /// `examples/audio-session-game`, python3-dbus) playing with real
    /// PipeWire clients of their own, beside mpv with mpv-mpris on the
    /// sandbox's private session bus, which knows no API. Checked in the
    /// graph, in what the clients are told and in what mpv says; every
    /// figure is printed on `audio sessions: …` lines. Timing-sensitive: one
    /// test measures how fast "notify others" brings the interrupted back.
    @Suite(.serialized) struct AudioSessionTests {
        private static func report(_ line: String) { print("audio sessions: \(line)") }

        /// mpv (mpv-mpris) playing on the speakers, matched by the agent.
        private func mpv(_ scene: AgentScene) throws -> (MPVPlayer, UInt32) {
            let mpv = try MPVPlayer(sandbox: scene.sandbox, file: scene.tone, output: "pipewire", mpris: true)
            let (id, _) = try #require(scene.mpvStream(), "the agent never matched mpv; log:\n\(scene.log.suffix(3000))")
            #expect(scene.waitUntilAgentSees(id: id, runningOn: "speakers"))
            return (mpv, id)
        }

        /// The streams the client's children play (their pid is the client's, a property of theirs).
        private func streams(of client: APIClient, _ scene: AgentScene) -> [Graph.Node] {
            let graph = scene.client.graph
            return graph.streams.filter { node in
                let props = node.props.merging(node.clientID.flatMap { graph.clients[$0]?.props } ?? [:]) { node, _ in node }
                guard let pid = props["application.process.id"].flatMap({ Int32($0) }) else { return false }
                return pid == client.pid || ProcessAncestry.parent(of: pid) == client.pid
            }
        }

        // MARK: the game

        /// Scenario 3 of the seeds: the game asks and picks ambient while mpv
        /// plays — mpv plays on — and solo-ambient when nothing does.
        @Test func theGameAsksAndPicksAmbientWhileMpvPlaysAndSoloAmbientWhenNothingDoes() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let (mpv, mpvID) = try mpv(scene)
            defer { mpv.stop() }
            let soundtrack = scene.sandbox.path("soundtrack.wav")
            try Audio.writeTone(to: soundtrack, seconds: 4, frequency: 660)
            func game(_ name: String) throws -> (ChildProcess, String) {
                let output = scene.sandbox.path("\(name).out")
                let process = try ChildProcess([Sandbox.repositoryRoot + "/examples/audio-session-game", "--file", soundtrack,
                                                "--seconds", "3"], environment: scene.sandbox.environment,
                                               stdout: output, stderr: scene.sandbox.path("\(name).err"))
                return (process, output)
            }
            func said(_ output: String) -> String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

            let (first, output) = try game("game-beside-mpv")
            defer { first.stop() }
            #expect(scene.client.wait(timeout: 5) { _ in said(output).contains("soundtrack playing") }, "\(said(output))")
            Self.report("the game beside mpv: \(said(output).split(separator: "\n").first ?? "")")
            #expect(said(output).contains("game: category ambient: other audio is playing, it goes on"))
            let soundtrackStream = scene.client.wait(timeout: 5) { graph in
                graph.streams.contains { $0.props["media.name"]?.hasSuffix("soundtrack.wav") == true && $0.state == .running }
            }
            #expect(soundtrackStream)
            let gameID = try #require(scene.client.graph.streams.first { $0.props["media.name"]?.hasSuffix("soundtrack.wav") == true }?.id)
            #expect(scene.client.wait(timeout: 5) { _ in
                scene.polledStatus(id: gameID).map { $0.category == "ambient" && $0.source == "audio-session" } == true
            }, "\(String(describing: scene.polledStatus(id: gameID)))")
            scene.client.pump(1)
            let mpvStatus = scene.polledStatus(id: mpvID)
            #expect(mpvStatus?.player?.status == "Playing" && mpvStatus?.hold == nil && scene.client.graph.nodes[mpvID]?.volume == 1,
                    "mpv plays on: \(String(describing: mpvStatus))")
            #expect(mpv.isPaused() == false)
            Self.report("mpv beside the ambient game: \(mpvStatus?.player?.status ?? "?"), gain \(scene.client.graph.nodes[mpvID]?.volume.map { String($0) } ?? "?")")
            #expect(first.waitForExit(timeout: 10, whileWaiting: { scene.client.loop.iterate(timeout: 0.01) }))
            #expect(said(output).contains("game: done: deactivated (notifying others) and closed"), "\(said(output))")

            // The person pauses mpv: nothing else plays; the next game is solo-ambient.
            #expect(mpv.set("pause", to: true))
            #expect(scene.client.wait(timeout: 5) { _ in scene.polledStatus(id: mpvID)?.state != "running" })
            let (second, alone) = try game("game-alone")
            defer { second.stop() }
            #expect(scene.client.wait(timeout: 5) { _ in said(alone).contains("soundtrack playing") }, "\(said(alone))")
            Self.report("the game alone: \(said(alone).split(separator: "\n").first ?? "")")
            #expect(said(alone).contains("game: category solo-ambient: nothing else is playing"))
            #expect(scene.client.wait(timeout: 5) { graph in
                graph.streams.contains { node in
                    node.props["media.name"]?.hasSuffix("soundtrack.wav") == true
                        && scene.polledStatus(id: node.id).map { $0.category == "solo-ambient" && $0.source == "audio-session" } == true
                }
            })
        }

        // MARK: navigation

        /// A navigation app declares playback + mix-with-others + duck-others;
        /// mpv is ducked only while it speaks: its prompt keeps its stream
        /// open, silent after 1.5 s, and mpv is back before the stream ends.
        @Test func theNavigationAppDucksMpvOnlyWhileItSpeaks() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let (mpv, mpvID) = try mpv(scene)
            defer { mpv.stop() }
            let prompt = scene.sandbox.path("turn-left.wav")
            try Audio.writeTone(to: prompt, seconds: 5, frequency: 880, quietAfter: 1.5)
            let maps = try APIClient("maps", scene: scene)
            defer { maps.stop() }
            maps.create("playback", options: ["mix-with-others", "duck-others"])
            let started = Date()
            maps.request("spawn prompt pw-play \(prompt)")
            let ducked = scene.client.wait(timeout: 5) { graph in abs((graph.nodes[mpvID]?.volume ?? 1) - 0.2) < 0.01 }
            let duckedAfter = Date().timeIntervalSince(started)
            #expect(ducked, "mpv at \(String(describing: scene.client.graph.nodes[mpvID]?.volume))")
            let promptID = try #require(scene.client.graph.streams.first { $0.props["media.name"]?.hasSuffix("turn-left.wav") == true }?.id)
            #expect(scene.polledStatus(id: promptID).map { $0.source == "audio-session" && $0.options.contains("duck-others") } == true)
            let back = scene.client.wait(timeout: 5) { graph in graph.nodes[mpvID]?.volume == 1 }
            let backAfter = Date().timeIntervalSince(started)
            let promptStillOpen = scene.client.graph.nodes[promptID]?.state == .running
            Self.report(String(format: "navigation prompt: mpv ducked to 0.2 after %.2f s, back at 1 after %.2f s (the voice stops at 1.5 s); the prompt's stream still running then: %@",
                               duckedAfter, backAfter, promptStillOpen ? "yes" : "no"))
            #expect(back && backAfter < 3.5, "back before the prompt's stream ended (5 s)")
            #expect(promptStillOpen, "ducked only while it speaks, not while its stream is open")
            #expect(mpv.isPaused() == false && scene.polledStatus(id: mpvID)?.hold == nil, "never paused")
        }

        // MARK: a call

        /// A VoIP client's session interrupts a player client's session, which
        /// is told "began" (by whom, resumable) and after the call "ended,
        /// should resume"; mpv, which knows no API, is paused and played over
        /// MPRIS as without it. The VoIP session's `Deactivate(true)` brings
        /// both back within 100 ms; without "notify others" they come back
        /// after the debounce.
        @Test func aCallInterruptsAPlayerSessionAndNotifyingOthersBringsEveryoneBackAtOnce() throws {
            // A debounce long enough to tell "at once" from "after the debounce" apart.
            let scene = try AgentScene(toneSeconds: 60, settings: "debounce-ms = 1000")
            let (mpv, mpvID) = try mpv(scene)
            defer { mpv.stop() }
            let player = try APIClient("player", scene: scene)
            let voip = try APIClient("voip", scene: scene)
            defer { player.stop(); voip.stop() }
            // It mixes with mpv (two non-mixable players: the newer would win).
            player.create("playback", options: ["mix-with-others"])
            player.request("spawn music pw-play \(scene.tone)")
            #expect(scene.client.wait(timeout: 5) { _ in player.property("Active") == "true" })
            #expect(scene.polledStatus(id: mpvID)?.hold == nil && mpv.isPaused() == false, "mpv plays beside it")

            var figures: [String] = []
            for notify in [true, false] {
                // Only an active session is told it was interrupted.
                #expect(scene.client.wait(timeout: 5) { _ in player.property("Active") == "true" },
                        "the player plays before the call; log:\n\(scene.log.suffix(3000))")
                voip.create("play-and-record")
                let before = player.lines.count
                voip.request("spawn call pw-loopback '--capture-props={ node.name=voip-in }' '--playback-props={ node.name=voip-out }'")
                let began = player.wait(after: before) { $0.word == "signal" && $0.text.contains("InterruptionBegan") }
                Self.report("notify \(notify): the player session was told \(began.map(\.text) ?? "nothing in 5 s")")
                #expect(began?.text.hasSuffix("InterruptionBegan [\"pw-loopback\", \"play-and-record\", true]") == true,
                        "\(String(describing: began)); signals: \(player.signals(after: before)); log:\n\(scene.log.suffix(3000))")
                #expect(player.property("Interrupted") == "true")
                let paused = scene.client.wait(timeout: 5) { _ in mpv.isPaused() == true && scene.polledStatus(id: mpvID)?.hold != nil }
                #expect(paused, "mpv is paused over MPRIS during the call")
                #expect(scene.client.wait(timeout: 5) { _ in scene.polledStatus(id: mpvID)?.player?.status == "Paused" })
                scene.client.pump(0.5)

                // Hang up: the call's streams go, then the session deactivates.
                // The agent decides just before (a call that changes nothing
                // still reconciles): its debounce counts from its last
                // decision that saw the call play (docs/API.md, "Not done").
                voip.request("set play-and-record - -")
                scene.client.pump(0.15)
                let hangUp = player.lines.count
                voip.request("kill call")
                voip.request("deactivate \(notify)")
                let called = try #require(voip.lines.last { $0.word == "calling" }).time
                let ended = player.wait(after: hangUp, timeout: 3) { $0.word == "signal" && $0.text.contains("InterruptionEnded") }
                var mpvBack: Double?
                _ = scene.sandbox.wait(timeout: 3) {
                    if mpv.isPaused() == false { mpvBack = MonotonicClock.now }
                    return mpvBack != nil
                }
                let told = ended.map { ($0.time - called) * 1000 } ?? .infinity
                let played = mpvBack.map { ($0 - called) * 1000 } ?? .infinity
                #expect(ended?.text.hasSuffix("InterruptionEnded [true]") == true, "\(String(describing: ended))")
                let figure = String(format: "Deactivate(%@): the player session told \"ended, should resume\" after %.0f ms, mpv playing again after %.0f ms",
                                    notify ? "true" : "false", told, played)
                Self.report(figure)
                figures.append(figure)
                if notify {
                    #expect(told <= 100 && played <= 100, "\(figure)")
                } else {
                    #expect(told >= 500, "without notify-others the debounce (1 s) stands: \(figure)")
                }
                #expect(scene.client.wait(timeout: 5) { _ in scene.polledStatus(id: mpvID)?.player?.status == "Playing" },
                        "log:\n\(scene.log.suffix(4000))")
                #expect(player.property("Interrupted") == "false")
                voip.request("close")
                scene.client.pump(0.5)
            }
            #expect(figures.count == 2)
        }

        // MARK: a recording

        /// A recorder's session silences alerts; the alert sounds again when
        /// the recording ends.
        @Test func aRecordersSessionSilencesAlerts() throws {
            let scene = try AgentScene()
            // Something to record: WirePlumber 0.5 links a capture stream to
            // no sink's monitor when there is no source.
            try VirtualMicrophone.create(in: scene.sandbox, client: scene.client)
            let recorder = try APIClient("recorder", scene: scene)
            defer { recorder.stop() }
            recorder.create("record")
            // pw-record names its stream after its file, as pw-play does.
            recorder.request("spawn recording pw-record \(scene.sandbox.path("api-recording.wav"))")
            #expect(scene.waitForStatus("api-recording") { $0.category == "record" && $0.source == "audio-session" },
                    "\(String(describing: scene.polledStatus("api-recording")))")
            scene.client.pump(0.3)
            let alert = try scene.play("alert", role: "Notification")
            defer { alert.stop() }
            #expect(scene.waitForStatus("alert") { $0.silenced && $0.gain == 0 }, "\(String(describing: scene.polledStatus("alert")))")
            let why = try scene.status("alert").explanation
            Self.report("the alert during the recording: \(why.joined(separator: " / "))")
            #expect(why.contains { $0.contains("silenced while") })
            recorder.request("kill recording")
            #expect(scene.waitForVolume("alert", 1), "\(scene.describe(["alert"]))")
        }

        // MARK: unplug

        /// Unplugging the headphones tells the session "old device
        /// unavailable", with the output it played to.
        @Test func unpluggingTheHeadphonesTellsTheSessionItsOldDeviceIsUnavailable() throws {
            let scene = try AgentScene(toneSeconds: 60)
            let player = try APIClient("player", scene: scene)
            defer { player.stop() }
            player.create("playback")
            player.request("spawn music pw-play --target headphones \(scene.tone)")
            #expect(scene.client.wait(timeout: 5) { _ in player.property("Output") == "\"headphones\"" })
            let id = try #require(streams(of: player, scene).first?.id)
            #expect(scene.waitUntilAgentSees(id: id, runningOn: "headphones"))
            let before = player.lines.count
            let headphones = try #require(scene.client.node(named: "headphones"))
            try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
            let told = player.wait(after: before) { $0.word == "signal" && $0.text.contains("RouteChanged") }
            Self.report("headphones unplugged: \(told?.text ?? "nothing told")")
            #expect(told?.text.hasSuffix("RouteChanged [\"old-device-unavailable\", \"headphones\", \"\"]") == true,
                    "\(String(describing: told))")
            #expect(scene.client.wait(timeout: 5) { _ in player.property("Output") == "\"\"" })
            #expect(scene.polledStatus(id: id)?.hold?.kind == "route-lost")
        }

        // MARK: bad callers

        /// Bad callers get D-Bus errors and nothing else: wrong signatures
        /// and names, another caller's session, a flood; the agent goes on,
        /// the other caller's session is untouched. The objects' introspection
        /// is the shipped XML's.
        @Test func badCallersGetErrorsAndNothingElse() throws {
            let scene = try AgentScene()
            let good = try APIClient("good", scene: scene)
            let bad = try APIClient("bad", scene: scene)
            defer { good.stop(); bad.stop() }
            let path = good.create("ambient")
            let manager = AudioSessionAPI.managerPath, managerInterface = AudioSessionAPI.managerInterface
            let session = AudioSessionAPI.sessionInterface
            let refusals: [(call: String, error: String, says: String)] = [
                ("raw \(manager) \(managerInterface) CreateSession s [\"playback\"]", "org.freedesktop.DBus.Error.InvalidArgs",
                 "takes 'sass', not 's'"),
                ("raw \(manager) \(managerInterface) CreateSession sass [\"musik\",[],\"\"]", "org.freedesktop.DBus.Error.InvalidArgs",
                 "'musik' is not a category"),
                ("raw \(manager) \(managerInterface) CreateSession sass [\"playback\",[\"loud\"],\"\"]",
                 "org.freedesktop.DBus.Error.InvalidArgs", "'loud' is not an option"),
                ("raw \(manager) \(managerInterface) CreateSession sass [\"playback\",[],\"whisper\"]",
                 "org.freedesktop.DBus.Error.InvalidArgs", "'whisper' is not a mode"),
                ("raw \(path) \(session) SetCategory sass [\"playback\",[],\"\"]", "org.freedesktop.DBus.Error.AccessDenied",
                 "belongs to another connection"),
                ("raw \(path) \(session) Close - []", "org.freedesktop.DBus.Error.AccessDenied", "belongs to another connection"),
                ("raw \(path) org.freedesktop.DBus.Properties Get ss [\"\(session)\",\"Token\"]",
                 "org.freedesktop.DBus.Error.AccessDenied", "belongs to another connection"),
                ("raw /org/pwpolicy/AudioSession1/session/99 \(session) Close - []", "org.freedesktop.DBus.Error.UnknownObject",
                 "no audio session"),
                ("raw \(manager) \(managerInterface) Explode - []", "org.freedesktop.DBus.Error.UnknownMethod", ""),
            ]
            for refusal in refusals {
                let answer = bad.request(refusal.call)
                #expect(answer?.word == "error" && answer?.rest.first == refusal.error
                            && (refusal.says.isEmpty || answer?.text.contains(refusal.says) == true),
                        "\(refusal.call): \(String(describing: answer))")
            }
            // Its own session: Set is refused, an unknown property too.
            bad.create("playback")
            let set = bad.request("raw \(bad.session) org.freedesktop.DBus.Properties Set ssv [\"\(session)\",\"Category\",\"ambient\"]")
            #expect(set?.rest.first == "org.freedesktop.DBus.Error.PropertyReadOnly", "\(String(describing: set))")
            let unknown = bad.request("raw \(bad.session) org.freedesktop.DBus.Properties Get ss [\"\(session)\",\"Volume\"]")
            #expect(unknown?.rest.first == "org.freedesktop.DBus.Error.UnknownProperty", "\(String(describing: unknown))")
            // More sessions than a caller may hold.
            var made = 1
            while made < AudioSessionAPI.sessionsPerCaller, bad.request("create playback - -")?.word == "created" { made += 1 }
            let tooMany = bad.request("create playback - -")
            #expect(tooMany?.rest.first == "org.freedesktop.DBus.Error.LimitsExceeded", "\(String(describing: tooMany))")
            // A flood: refused past 100 calls a second, logged once.
            let flood = bad.request("flood 300", timeout: 20)
            Self.report("a flood of 300 calls: \(flood?.text ?? "no answer")")
            let counts = flood?.rest.prefix(2).compactMap { Int($0) } ?? []
            #expect(counts.count == 2 && counts[1] > 0 && counts[0] <= 100, "\(String(describing: flood))")
            #expect(flood?.text.contains("LimitsExceeded") == true)
            #expect(scene.log.components(separatedBy: "sends more than 100 calls a second").count - 1 == 1, "logged once")
            // The good caller's session is as it was, and the agent answers.
            #expect(good.property("Category") == "\"ambient\"")
            #expect(scene.agentStatus()?.audioSessions?.sessions.count == 1 + AudioSessionAPI.sessionsPerCaller)
            // What the objects introspect is the shipped XML.
            let root = Sandbox.repositoryRoot + "/dbus/"
            let managerXML = good.request("introspect \(manager) \(managerInterface) \(root)\(managerInterface).xml")
            let sessionXML = good.request("introspect \(path) \(session) \(root)\(session).xml")
            #expect(managerXML?.rest.first == "same", "\(String(describing: managerXML))")
            #expect(sessionXML?.rest.first == "same", "\(String(describing: sessionXML))")
            // The bad caller leaves: its sessions end; the good one's stays.
            bad.stop()
            #expect(scene.client.wait(timeout: 5) { _ in scene.agentStatus()?.audioSessions?.sessions.map(\.path) == [path] })
            let status = try scene.cli(["status"]).stdout
            Self.report("status: \(status.split(separator: "\n").filter { $0.contains("AudioSession") }.joined(separator: " | "))")
            #expect(status.contains("Audio sessions: org.pwpolicy.AudioSession1 on the session bus; 1 session"))
        }
    }
}
