import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire
import Testing
import PolicyTestSupport

/// Every command of the built `pw-policy` against the real agent
/// (`pw-policy run`) with real streams that cause the effects the CLI shows.
/// Each test checks what the CLI printed and, where a command changes
/// something, what the graph did (the observer's volumes and links) and
/// what was written into the agent's metadata.
@Suite(.serialized)
struct CLIWithAgentTests {
    static let duckingPrompt = "{ application.name=Maps policy.category=playback policy.options=[ duck-others ] }"

    @Test func statusReportsTheRunningAgentAndItsConfig() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForStatus("music") { $0.category == "playback" })
        let id = try #require(scene.stream("music")?.id)
        let pid = try #require(scene.agent?.pid)

        let text = try scene.cli(["status"])
        #expect(text.status == 0, "stderr: \(text.stderr)")
        #expect(text.stdout.contains("running (pid \(pid), version "), "stdout: \(text.stdout)")
        #expect(text.stdout.contains(Sandbox.repositoryRoot + "/conf/pw-policy.conf"), "stdout: \(text.stdout)")
        #expect(text.stdout.split(separator: "\n").contains { $0.contains("Silent mode:") && $0.hasSuffix(" off (following Do Not Disturb (off))") },
                "stdout: \(text.stdout)")
        let line = try #require(streamLine(id, in: text.stdout), "stdout: \(text.stdout)")
        #expect(line.contains("\(id). Spotify") && line.contains("→ speakers"), "line: \(line)")
        #expect(!line.hasSuffix("]"), "music plays untouched, yet: \(line)")

        let objects = try CLI.jsonArray(try scene.cli(["status", "--json"]).stdout)
        let agent = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        #expect(agent["running"] as? Bool == true && agent["pid"] as? Int == Int(pid))
        let info = try #require(streamInfo(id, in: objects))
        #expect(info["category"] as? String == "playback" && info["source"] as? String == "inference")
        #expect(info["output"] as? String == "speakers" && info["gain"] as? Double == 1)
        #expect(info["effect"] is NSNull || info["effect"] == nil)
    }

    @Test func statusAndExplainShowADuckWithItsMatrixRule() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForVolume("music", 1))
        // On the headphones, so the speakers carry the music alone.
        let prompt = try scene.play("prompt", role: nil, properties: Self.duckingPrompt, target: "headphones")
        defer { prompt.stop() }
        #expect(scene.waitForVolume("music", 0.2), "\(scene.describe(["music", "prompt"]))")
        #expect(scene.waitForStatus("music") { $0.duckedBy.map(\.app) == ["Maps"] })
        let id = try #require(scene.stream("music")?.id)

        let status = try scene.cli(["status"])
        #expect(status.status == 0, "stderr: \(status.stderr)")
        let line = try #require(streamLine(id, in: status.stdout), "stdout: \(status.stdout)")
        #expect(line.hasSuffix("[gain 0.20 DUCKED by \"Maps\"]"), "line: \(line)")
        let info = try #require(streamInfo(id, in: try CLI.jsonArray(try scene.cli(["status", "--json"]).stdout)))
        #expect(info["gain"] as? Double == 0.2)
        #expect(info["effect"] as? String == "gain 0.20 DUCKED by \"Maps\"")

        let explain = try scene.cli(["explain", "spotify"])
        #expect(explain.status == 0, "stderr: \(explain.stderr)")
        let reason = try scene.status("music").reason
        #expect(reason.contains("media.role") && reason.contains("Music"), "reason: \(reason)")
        #expect(explain.stdout.contains("Because:    \(reason)"), "stdout: \(explain.stdout)")
        #expect(explain.stdout.contains("built-in inference"), "stdout: \(explain.stdout)")
        #expect(explain.stdout.contains("policy gain 0.20"))
        // The matrix cell it names is the duck rule of the config the agent loaded.
        let why = try #require(explain.stdout.split(separator: "\n").first { $0.contains("Why:") }, "stdout: \(explain.stdout)")
        #expect(why.contains("ducked to 0.20 by \"Maps\""), "why: \(why)")
        let (file, lineNumber) = try #require(ruleOrigin(in: String(why)), "no 'rule N at FILE:LINE' in: \(why)")
        let cited = try String(contentsOfFile: file, encoding: .utf8).components(separatedBy: "\n")[lineNumber - 1]
        #expect(cited.contains("incoming = { options = [ duck-others ] } action = duck"), "\(file):\(lineNumber) is: \(cited)")

        let json = try scene.cli(["explain", String(id), "--json"])
        let explained = try #require(try CLI.jsonArray(json.stdout).first?["info"] as? [String: Any])
        #expect(explained["reason"] as? String == reason)
        #expect(try explained["explanation"] as? [String] == scene.status("music").explanation)
        #expect((explained["props"] as? [String: String])?["application.name"] == "Spotify")

        prompt.stop()
        #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
        #expect(scene.waitForStatus("music") { $0.duckedBy.isEmpty })
        let after = try #require(streamLine(id, in: try scene.cli(["status"]).stdout))
        #expect(!after.hasSuffix("]"), "line: \(after)")
    }

    @Test func statusShowsMusicHeldByASoloAmbientGame() throws {
        let scene = try AgentScene(settings: AgentScene.gamesAlwaysSolo)
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForSinks("music", ["speakers"]))
        let game = try scene.play("game", role: "Game", properties: "{ application.name=Tetris }")
        defer { game.stop() }
        #expect(scene.client.wait { _ in scene.sinks(of: "music").isEmpty && scene.volume("music") == 0 },
                "\(scene.describe(["music", "game"]))")
        #expect(scene.waitForStatus("music") { $0.hold?.kind == "interrupted" })
        let id = try #require(scene.stream("music")?.id)

        let line = try #require(streamLine(id, in: try scene.cli(["status"]).stdout))
        #expect(line.hasSuffix("[HELD: interrupted by \"Tetris\", does not resume]"), "line: \(line)")
        let explain = try scene.cli(["explain", "Spotify"])
        #expect(explain.stdout.contains("interrupted by \"Tetris\"; released without resuming"), "stdout: \(explain.stdout)")

        game.stop()
        #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
        #expect(scene.waitForStatus("music") { $0.hold == nil })
        let after = try #require(streamLine(id, in: try scene.cli(["status"]).stdout))
        #expect(!after.hasSuffix("]"), "line: \(after)")
    }

    @Test func statusShowsMusicHeldByACallThatResumesIt() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForSinks("music", ["speakers"]))
        let call = try scene.sandbox.spawn(["pw-loopback", "--capture-props={ media.role=Communication }",
                                            "--playback-props={ media.role=Communication }"])
        defer { call.stop() }
        #expect(scene.client.wait { _ in scene.sinks(of: "music").isEmpty && scene.volume("music") == 0 },
                "\(scene.describe(["music"]))\n\(scene.log)")
        #expect(scene.waitForStatus("music") { $0.hold?.resumable == true })
        let id = try #require(scene.stream("music")?.id)

        let objects = try CLI.jsonArray(try scene.cli(["status", "--json"]).stdout)
        let caller = try #require(objects.compactMap { $0["info"] as? [String: Any] }
            .first { $0["category"] as? String == "play-and-record" }?["app"] as? String, "no call in \(objects)")
        #expect(streamInfo(id, in: objects)?["effect"] as? String == "HELD: interrupted by \"\(caller)\", resumes")
        let line = try #require(streamLine(id, in: try scene.cli(["status"]).stdout))
        #expect(line.hasSuffix("[HELD: interrupted by \"\(caller)\", resumes]"), "line: \(line)")

        call.stop()
        #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
    }

    /// `pw-policy restore` (the unit's ExecStopPost) leaves a running
    /// agent's changes to it: the game stays silenced.
    @Test func restoreDoesNothingWhileAnAgentRuns() throws {
        let scene = try AgentScene()
        let game = try scene.play("game", role: nil, properties: "{ application.name=Solitaire policy.category=ambient }")
        defer { game.stop() }
        #expect(try scene.cli(["silent", "on"]).status == 0)
        #expect(scene.waitForVolume("game", 0), "\(scene.describe(["game"]))")
        let pid = try #require(scene.agent?.pid)
        let restore = try scene.cli(["restore"])
        #expect(restore.status == 0, "stderr: \(restore.stderr)")
        #expect(restore.stderr.contains("an agent runs (pid \(pid))"), "stderr: \(restore.stderr)")
        scene.client.pump(0.3)
        #expect(scene.volume("game") == 0 && scene.agent?.isRunning == true, "\(scene.describe(["game"]))")
    }

    @Test func silentModeSilencesAnAmbientStreamAndStatusShowsIt() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        let game = try scene.play("game", role: nil, properties: "{ application.name=Solitaire policy.category=ambient }")
        defer { music.stop(); game.stop() }
        #expect(scene.waitForStatus("game") { $0.category == "ambient" })
        let gameID = try #require(scene.stream("game")?.id), musicID = try #require(scene.stream("music")?.id)
        #expect(try scene.cli(["silent", "status"]).stdout == "silent mode: off (following Do Not Disturb (off))\n")

        let on = try scene.cli(["silent", "on"])
        #expect(on.status == 0 && on.stdout == "silent mode: on (set by the user)\n", "stdout: \(on.stdout) stderr: \(on.stderr)")
        #expect(scene.waitForVolume("game", 0), "\(scene.describe(["game", "music"]))")
        #expect(scene.volume("music") == 1 && scene.sinks(of: "game") == ["speakers"], "\(scene.describe(["game", "music"]))")
        #expect(scene.waitForStatus("game") { $0.silenced })
        let status = try scene.cli(["status"])
        #expect(status.stdout.split(separator: "\n").contains { $0.contains("Silent mode:") && $0.hasSuffix(" on (set by the user)") },
                "stdout: \(status.stdout)")
        #expect(streamLine(gameID, in: status.stdout)?.hasSuffix("[SILENCED]") == true, "stdout: \(status.stdout)")
        #expect(streamLine(musicID, in: status.stdout)?.hasSuffix("]") == false, "stdout: \(status.stdout)")
        let json = try CLI.jsonArray(try scene.cli(["silent", "--json"]).stdout)
        #expect((json.first?["info"] as? [String: Any])?["silentMode"] as? Bool == true)
        #expect((json.first?["info"] as? [String: Any])?["choice"] as? String == "on")

        let toggle = try scene.cli(["silent", "toggle"])
        #expect(toggle.stdout == "silent mode: off (set by the user)\n", "stdout: \(toggle.stdout) stderr: \(toggle.stderr)")
        #expect(scene.waitForVolume("game", 1), "\(scene.describe(["game"]))")
        #expect(scene.waitForStatus("game") { !$0.silenced })
        #expect(streamLine(gameID, in: try scene.cli(["status"]).stdout)?.hasSuffix("]") == false)
    }

    @Test func unpluggedHeadphonesHoldMusicUntilResumeByName() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }", target: "headphones")
        defer { music.stop() }
        #expect(scene.waitForSinks("music", ["headphones"]))
        #expect(scene.waitUntilAgentSees("music", runningOn: "headphones"), "\(scene.describe(["music"]))")
        let headphones = try #require(scene.client.node(named: "headphones"))
        try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
        #expect(scene.waitForStatus("music") { $0.hold?.kind == "route-lost" }, "\(scene.describe(["music"]))")
        #expect(scene.client.wait { _ in scene.sinks(of: "music").isEmpty && scene.volume("music") == 0 },
                "\(scene.describe(["music"]))")
        let id = try #require(scene.stream("music")?.id)

        let status = try scene.cli(["status"])
        let line = try #require(streamLine(id, in: status.stdout), "stdout: \(status.stdout)")
        #expect(line.hasSuffix("[HELD: output \"headphones\" went away; 'pw-policy resume \(id)' continues it]"), "line: \(line)")
        #expect(!status.stdout.contains("Headphones"), "the unplugged output is still listed: \(status.stdout)")

        let resume = try scene.cli(["resume", "spotify"])
        #expect(resume.status == 0, "stderr: \(resume.stderr)")
        #expect(resume.stdout == "stream \(id) \"Spotify\" resumed\n", "stdout: \(resume.stdout)\n\(scene.log)")
        #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
        #expect(try scene.status("music").hold == nil)
        let after = try #require(streamLine(id, in: try scene.cli(["status"]).stdout))
        #expect(!after.hasSuffix("]"), "line: \(after)")

        let again = try scene.cli(["resume", String(id)])
        #expect(again.status == 0 && again.stdout == "stream \(id) \"Spotify\" is not held; nothing to resume\n",
                "stdout: \(again.stdout)")
        #expect(scene.waitForVolume("music", 1) && scene.sinks(of: "music") == ["speakers"], "\(scene.describe(["music"]))")
        #expect(try scene.status("music").hold == nil)
    }

    @Test func aStreamOverrideChangesTheCategoryTheAgentApplies() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        let game = try scene.play("game", role: nil, properties: "{ application.name=Solitaire policy.category=ambient }")
        defer { music.stop(); game.stop() }
        #expect(scene.waitForStatus("game") { $0.source == "stream-properties" })
        scene.client.pump(0.5)
        #expect(scene.volume("music") == 1, "ambient mixes: \(scene.describe(["music", "game"]))")
        let id = try #require(scene.stream("game")?.id)

        let set = try scene.cli(["set", "solitaire", "--category", "playback", "--options", "duck-others"])
        #expect(set.status == 0, "stderr: \(set.stderr)")
        #expect(set.stdout == "stream \(id) \"Solitaire\": playback [duck-others] while the stream lasts\n", "stdout: \(set.stdout)")
        #expect(try requests(subject: id, in: scene) == [AgentProtocol.categoryKey: "playback",
                                                     AgentProtocol.optionsKey: "[\"duck-others\"]"])
        // What the agent does with it: the game now ducks the music.
        #expect(scene.waitForVolume("music", 0.2), "\(scene.describe(["music", "game"]))")
        #expect(try scene.status("game").source == "override" && scene.status("game").category == "playback")
        let explain = try scene.cli(["explain", String(id)])
        #expect(explain.stdout.contains("a runtime override (pw-policy set)"), "stdout: \(explain.stdout)")
        #expect(streamLine(id, in: try scene.cli(["status"]).stdout)?.contains("duck-others,override") == true)

        let unset = try scene.cli(["unset", "Solitaire"])
        #expect(unset.status == 0, "stderr: \(unset.stderr)")
        #expect(unset.stdout == "stream \(id) \"Solitaire\": override removed; now ambient (stream-properties)\n",
                "stdout: \(unset.stdout)")
        #expect(try requests(subject: id, in: scene).isEmpty)
        #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music", "game"]))")
        let again = try scene.cli(["unset", String(id)])
        #expect(again.status == 1)
        #expect(again.stderr == "pw-policy: stream \(id) \"Solitaire\" has no override\n", "stderr: \(again.stderr)")
    }

    @Test func anAppOverrideAppliesToItsNextStreamAndSurvivesARestart() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForSinks("music", ["speakers"]))

        // Set before the app plays: taken as given.
        let set = try scene.cli(["set", "--app", "org.gnome.Maps", "--category", "playback", "--options", "duck-others", "--persist"])
        #expect(set.status == 0, "stderr: \(set.stderr)")
        #expect(set.stdout == "app 'org.gnome.Maps': playback [duck-others], remembered across restarts; no stream of it is playing now\n",
                "stdout: \(set.stdout)")
        let raw = try #require(try requests(subject: 0, in: scene)[AgentProtocol.appOverrideKey("org.gnome.Maps")])
        #expect(try JSONDecoder().decode(AppOverrideRequest.self, from: Data(raw.utf8))
                == AppOverrideRequest(category: "playback", options: ["duck-others"], mode: nil, persist: true))

        // An empty role: without the override it would be the default, which mixes.
        let maps = try scene.play("maps", role: "", properties: "{ application.id=org.gnome.Maps application.name=Maps }")
        defer { maps.stop() }
        #expect(scene.waitForVolume("music", 0.2), "\(scene.describe(["music", "maps"]))\n\(scene.log)")
        #expect(try scene.status("maps").source == "override" && scene.status("maps").options == ["duck-others"])
        let overrides = try CLI.jsonArray(try scene.cli(["status", "--json"]).stdout)
            .filter { $0["type"] as? String == "PwPolicy:AppOverride" }.compactMap { $0["info"] as? [String: Any] }
        #expect(overrides.count == 1 && overrides.first?["appKey"] as? String == "org.gnome.Maps"
                && overrides.first?["persist"] as? Bool == true, "\(overrides)")

        scene.stopAgent()
        #expect(scene.waitForVolume("music", 1), "the agent did not restore on exit: \(scene.describe(["music"]))")
        try scene.startAgent()
        #expect(scene.waitForVolume("music", 0.2), "the override was forgotten: \(scene.describe(["music", "maps"]))\n\(scene.log)")
        #expect(try scene.cli(["status"]).stdout.contains("org.gnome.Maps"))

        let typo = try scene.cli(["unset", "--app", "org.gnome.Mapz"])
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("did you mean 'org.gnome.Maps'?"), "stderr: \(typo.stderr)")
        // Named by its running stream's app name.
        let unset = try scene.cli(["unset", "--app", "Maps"])
        #expect(unset.status == 0 && unset.stdout == "app 'org.gnome.Maps': override removed\n",
                "stdout: \(unset.stdout) stderr: \(unset.stderr)")
        #expect(try requests(subject: 0, in: scene)[AgentProtocol.appOverrideKey("org.gnome.Maps")] == nil)
        #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music", "maps"]))")
        #expect(scene.waitForStatus("maps") { $0.source == "default" })
        #expect(scene.sinks(of: "music") == ["speakers"])
    }

    @Test(arguments: [
        (["set", "spotify", "--category", "playbak"], "unknown category 'playbak'; did you mean 'playback'?"),
        (["set", "spotify", "--category", "ambient", "--options", "duck-everyone"], "unknown option 'duck-everyone'"),
        (["set", "spotify", "--category", "ambient", "--mode", "loud"], "unknown mode 'loud'"),
        (["set", "--app", "spotify", "--category", "ambient", "--options", "mix,duck-others"], "unknown option 'mix'"),
        (["set", "--app", "spotify", "spotify", "--category", "ambient"], "not both"),
        (["silent", "maybe"], "unknown action 'maybe'"),
    ])
    func badValuesAreRejectedBeforeAnythingIsWritten(arguments: [String], message: String) throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForStatus("music") { $0.category == "playback" })
        let id = try #require(scene.stream("music")?.id)
        let before = try requests(subject: 0, in: scene)

        let result = try scene.cli(arguments)
        #expect(result.status == 64, "exit \(result.status), stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try requests(subject: id, in: scene).isEmpty)
        #expect(try requests(subject: 0, in: scene) == before)
        scene.client.pump(0.3)
        #expect(try scene.status("music").source == "inference" && scene.status("music").category == "playback")
        #expect(scene.volume("music") == 1 && scene.sinks(of: "music") == ["speakers"], "\(scene.describe(["music"]))")
    }

    @Test func anUnknownStreamIsNotFoundAndNothingIsWritten() throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        let id = try #require(scene.stream("music")?.id)
        let before = try requests(subject: 0, in: scene)
        for arguments in [["set", "spotifi", "--category", "ambient"], ["resume", "spotifi"], ["unset", "spotifi"]] {
            let result = try scene.cli(arguments)
            #expect(result.status == 1, "\(arguments): exit \(result.status)")
            #expect(result.stderr == "pw-policy: no stream matches 'spotifi'; did you mean 'Spotify' (id \(id))?\n",
                    "\(arguments): \(result.stderr)")
        }
        #expect(try requests(subject: id, in: scene).isEmpty)
        #expect(try requests(subject: 0, in: scene) == before)
    }

    @Test(arguments: [false, true])
    func monitorPrintsEventsAsTheyHappen(json: Bool) throws {
        let scene = try AgentScene()
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        defer { music.stop() }
        #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForVolume("music", 1))
        let output = scene.sandbox.path("monitor.out"), errors = scene.sandbox.path("monitor.err")
        let monitor = try ChildProcess([CLI.binary, "monitor", "-r", scene.sandbox.remote] + (json ? ["--json"] : []),
                                             environment: scene.sandbox.environment.merging(CLI.quietEnvironment) { $1 },
                                             stdout: output, stderr: errors)
        defer { monitor.stop(signal: SIGKILL) }
        func lines() -> [String] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        // Nothing tells when the monitor has bound the agent's metadata:
        // toggle silent mode until it prints, then leave silent mode off.
        var toggles = 0
        while lines().isEmpty, toggles < 20, monitor.isRunning {
            try scene.cli(["silent", "toggle"])
            toggles += 1
            scene.client.pump(0.2)
        }
        #expect(!lines().isEmpty, "monitor printed nothing; stderr: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        if try scene.cli(["silent", "status"]).stdout != "silent mode: off\n" { try scene.cli(["silent", "off"]) }
        scene.client.pump(0.5)
        let before = lines().count

        let prompt = try scene.play("prompt", role: nil, properties: Self.duckingPrompt, target: "headphones")
        #expect(scene.waitForVolume("music", 0.2), "\(scene.describe(["music", "prompt"]))")
        #expect(scene.client.wait(timeout: 5) { _ in lines().dropFirst(before).contains { $0.contains("duck-began") } },
                "monitor printed: \(lines())")
        let musicSession = try scene.status("music").session
        let promptSession = try scene.status("prompt").session
        prompt.stop()
        #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
        #expect(scene.client.wait(timeout: 5) { _ in lines().dropFirst(before).contains { $0.contains("duck-ended") } },
                "monitor printed: \(lines())")

        kill(monitor.pid, SIGINT)
        let exited = monitor.waitForExit(timeout: 5) { scene.client.loop.iterate(timeout: 0.005) }
        #expect(exited && monitor.exitStatus == 0, "exit status \(String(describing: monitor.exitStatus))")
        let printed = Array(lines().dropFirst(before))
        // Every event reached the monitor's connection: none may be skipped.
        #expect(!printed.contains { $0.contains("events-missed") }, "\(printed)")
        if json {
            let events = try printed.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)") }
            let infos = events.compactMap { $0["info"] as? [String: Any] }
            let began = try #require(infos.first { $0["type"] as? String == "duck-began" })
            #expect(began["session"] as? String == musicSession && began["by"] as? String == promptSession, "\(began)")
            #expect(began["level"] as? Double == 0.2 && began["time"] is String)
            let ended = try #require(infos.first { $0["type"] as? String == "duck-ended" })
            #expect(ended["session"] as? String == musicSession)
            let types = infos.compactMap { $0["type"] as? String }
            #expect(types.firstIndex(of: "duck-began")! < types.firstIndex(of: "duck-ended")!, "\(types)")
            // Each agent event once, in order.
            let seqs = infos.compactMap { $0["seq"] as? Int }.filter { $0 > 0 }
            #expect(!seqs.isEmpty && seqs == Array(seqs.first!...seqs.last!), "\(seqs)")
        } else {
            let began = try #require(printed.firstIndex { $0.contains("  duck-began  ") }, "\(printed)")
            #expect(printed[began].hasSuffix("\"Spotify\" ducked to 0.20 by \"Maps\""), "\(printed[began])")
            let ended = try #require(printed.firstIndex { $0.contains("  duck-ended  ") }, "\(printed)")
            #expect(began < ended && printed[ended].hasSuffix("\"Spotify\" no longer ducked"), "\(printed[ended])")
            #expect(printed.contains { $0.contains("stream-classified") && $0.contains("\"Maps\": playback [duck-others]") },
                    "\(printed)")
            // `HH:MM:SS  type  text`.
            #expect(printed.allSatisfy { $0.range(of: #"^\d\d:\d\d:\d\d  [a-z-]+ +\S"#, options: .regularExpression) != nil },
                    "\(printed)")
        }
    }

    @Test func monitorReportsTheAgentGoingAndComing() throws {
        let scene = try AgentScene()
        let output = scene.sandbox.path("monitor.out")
        let monitor = try ChildProcess([CLI.binary, "monitor", "-r", scene.sandbox.remote],
                                             environment: scene.sandbox.environment.merging(CLI.quietEnvironment) { $1 },
                                             stdout: output)
        defer { monitor.stop(signal: SIGKILL) }
        func text() -> String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        var toggles = 0
        while text().isEmpty, toggles < 20, monitor.isRunning {
            try scene.cli(["silent", "toggle"])
            toggles += 1
            scene.client.pump(0.2)
        }
        #expect(!text().isEmpty, "monitor printed nothing")
        scene.stopAgent()
        #expect(scene.client.wait { _ in text().contains("agent-stopped") }, "\(text())")
        #expect(monitor.isRunning, "monitor exited when the agent stopped")
        try scene.startAgent()
        #expect(scene.client.wait { _ in text().contains("agent-started") }, "\(text())")
        monitor.stop(signal: SIGTERM)
        #expect(monitor.exitStatus == 0)
    }

    /// Commands run while the agent starts bind its metadata as it appears;
    /// one that left before the bind completed would leave PipeWire 0.3.65
    /// passing the agent's changes to no settled client ever again: no
    /// `monitor` line, no confirmation. The CLI stays until its binds are done.
    @Test func commandsRunWhileTheAgentStartsLeaveItsMetadataWorking() throws {
        let scene = try AgentScene()
        for round in 0..<3 {
            scene.stopAgent()
            let pollers = try (0..<3).map { index in
                try scene.sandbox.spawn(["sh", "-c", "for i in $(seq 1 25); do \"$0\" status -r \"$1\" >/dev/null 2>&1; done",
                                         CLI.binary, scene.sandbox.remote])
            }
            scene.client.pump(0.2)
            try scene.startAgent()
            for poller in pollers { #expect(poller.waitForExit(timeout: 60) { scene.client.loop.iterate(timeout: 0.01) }) }
            let toggle = try scene.cli(["silent", "toggle"])
            // Silent mode survives restarts: on, off, on.
            #expect(toggle.status == 0 && toggle.stdout == "silent mode: \(round % 2 == 0 ? "on" : "off") (set by the user)\n",
                    "the agent's answer never reached the CLI: \(toggle.stdout)\(toggle.stderr)")
        }
    }

    // MARK: - reading what happened

    /// The line of `status` for a stream, by node id.
    private func streamLine(_ id: UInt32, in text: String) -> String? {
        text.split(separator: "\n").first { $0.contains(" \(id). ") }.map(String.init)
    }

    private func streamInfo(_ id: UInt32, in objects: [[String: Any]]) -> [String: Any]? {
        objects.first { $0["id"] as? Int == Int(id) && $0["type"] as? String == "PwPolicy:Stream" }?["info"] as? [String: Any]
    }

    /// The requests (not the agent's own publications) in the `pw-policy`
    /// metadata at `subject`, read through a fresh binding. Throws (and
    /// records an issue) when the metadata cannot be read, so that a failed
    /// read cannot pass for "nothing was written".
    private func requests(subject: UInt32, in scene: AgentScene,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String] {
        let published: Set<String> = [AgentProtocol.streamKey, AgentProtocol.agentKey, AgentProtocol.outputsKey,
                                      AgentProtocol.eventKey]
        let entries = try scene.freshRead { graph in
            try #require(graph.metadata(named: AgentProtocol.metadataName), "no pw-policy metadata",
                         sourceLocation: sourceLocation).entries[subject]
        }
        return (entries ?? [:]).filter { !published.contains($0.key) }.mapValues(\.value)
    }

    /// `rule N at FILE:LINE: …` → (FILE, LINE).
    private func ruleOrigin(in text: String) -> (String, Int)? {
        guard let match = text.range(of: #"rule \d+ at [^ ]+:\d+:"#, options: .regularExpression) else { return nil }
        let origin = text[match].dropFirst("rule ".count).drop { $0 != " " }.dropFirst(" at ".count).dropLast()
        guard let colon = origin.lastIndex(of: ":"), let line = Int(origin[origin.index(after: colon)...]) else { return nil }
        return (String(origin[..<colon]), line)
    }
}
