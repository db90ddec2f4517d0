import Foundation
import PolicyCore
import PolicyFiles
import PolicyAgent
import PolicyPipeWire
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// Issue 6's faults: WirePlumber restarting under the agent, a storm of
    /// streams, and a sandboxed client trying to steer other apps. (SIGKILL and
    /// PipeWire restarts: AgentSafetyTests; random config bytes: ConfigFuzzTests.)
    @Suite(.serialized)
    struct FaultTests {
        @Test func holdsAndDucksSurviveAWirePlumberRestart() throws {
            // WirePlumber 0.4.13 handles the streams as it starts, sometimes
            // before the sinks that come back with it: it then sends the app "no
            // node available" and pw-play exits. That is WirePlumber's race, not
            // the agent's doing, and leaves nothing to hold: such a try proves
            // nothing and is run again on a new sandbox, up to `maximumTries`
            // times: the race takes about one try in three under load, so 8
            // losses in a row (about 1 in 6500 by chance) mean something else
            // kills the streams, and fail (docs/PERFORMANCE.md, "WirePlumber
            // restarts").
            // Each run says how many tries it needed, so a rising count shows.
            let maximumTries = 8
            for attempt in 1...maximumTries {
                if try wirePlumberRestart() {
                    print("holdsAndDucksSurviveAWirePlumberRestart: passed on try \(attempt) of \(maximumTries)"
                          + " (WirePlumber's start-up race killed the streams \(attempt - 1) times)")
                    return
                }
            }
            print("holdsAndDucksSurviveAWirePlumberRestart: failed: WirePlumber's start-up race killed the streams on all \(maximumTries) tries")
            Issue.record("WirePlumber killed the test's streams on all \(maximumTries) tries (the limit): not its start-up race alone")
        }

        /// One try of the restart; false when WirePlumber killed a stream.
        private func wirePlumberRestart() throws -> Bool {
            let scene = try AgentScene(settings: AgentScene.gamesAlwaysSolo)
            // The prompt on the speakers: the headphones go with WirePlumber.
            let players = try scene.duckAndHold(promptTarget: nil)
            defer { players.forEach { $0.stop() } }
            let names = ["music", "prompt", "player", "game"]

            #expect(try scene.sandbox.restartWirePlumber())
            // WirePlumber's links go with it and the sinks come back new: every
            // stream goes idle for a while, which is not its app stopping.
            scene.client.pump(1)
            if let killed = names.first(where: { scene.sandbox.playerErrors($0).contains("no node available") }) {
                print("WirePlumber sent \(killed) \"no node available\" as it started; trying again")
                return false
            }
            let settled = scene.client.wait(timeout: 5) { _ in
                scene.sinks(of: "player").isEmpty && scene.volume("player") == 0 && abs((scene.volume("music") ?? 0) - 0.2) < 0.01
            }
            #expect(settled, "\(scene.describe(names)); observer connected \(scene.client.connection.isConnected), \(scene.client.graph.nodes.count) nodes\n\(scene.log.split(separator: "\n").filter { !$0.contains("set gain") }.suffix(40).joined(separator: "\n"))")
            // …and it stays so.
            scene.client.pump(1)
            #expect(scene.sinks(of: "player").isEmpty && abs((scene.volume("music") ?? 0) - 0.2) < 0.01,
                    "\(scene.describe(["player", "music"]))")
            // The game still holds the player although WirePlumber's links went
            // with it (0.4.13 asks for new links but never activates them for
            // streams its predecessor set up: only the apps reopening them would
            // play again), and the prompt still ducks it.
            #expect(abs((scene.volume("game") ?? 0) - 0.2) < 0.01, "\(scene.describe(["game"]))")
            #expect(scene.waitForStatus("game") { $0.hold == nil })
            #expect(scene.agent?.isRunning == true, "the agent died:\n\(scene.log)")
            #expect(scene.waitForStatus("player") { $0.hold != nil })
            return true
        }

        /// 200 streams of every kind come and go within a few seconds while music
        /// and an ambient stream play: afterwards everything is as before.
        @Test func aStormOfStreamsLeavesNothingBehind() throws {
            let scene = try AgentScene()
            let music = try scene.play("music")
            let radio = try scene.play("radio", role: nil, properties: "{ policy.category=ambient }")
            defer { music.stop(); radio.stop() }
            #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForSinks("radio", ["speakers"]))
            let linksBefore = linkEnds(scene.client.graph)

            let load = try ChildProcess([Loader.binary, "-r", scene.sandbox.remote], environment: scene.sandbox.environment,
                                              input: true, stderr: scene.sandbox.path("load.log"))
            defer { load.stop() }
            let kinds = ["policy.category=playback policy.options=[duck-others]", "media.role=Game",
                         "media.role=Notification", "policy.category=ambient", "media.role=Music"]
            let waves = 4, perWave = 50
            var interrupted = false, ducked = false
            for wave in 0..<waves {
                let streams = (0..<perWave).map { wave * perWave + $0 }
                load.send(streams.map { "play storm-\($0) application.name=storm-\($0 % 10) \(kinds[$0 % kinds.count])" })
                if wave > 0 { load.send(streams.map { "stop storm-\($0 - perWave)" }) }
                scene.client.wait(timeout: 0.7) { _ in false }
                interrupted = interrupted || scene.volume("music") == 0
                ducked = ducked || (scene.volume("radio") ?? 1) < 1
            }
            load.send(((waves - 1) * perWave..<waves * perWave).map { "stop storm-\($0)" })
            // The storm did reach the policy (or the checks below prove nothing).
            #expect(interrupted || ducked, "\(scene.describe(["music", "radio"]))")

            let calm = scene.client.wait(timeout: 20) { graph in
                !graph.streams.contains { $0.props["node.name"]?.hasPrefix("pw-policy-load.") == true }
                    && scene.volume("music") == 1 && scene.volume("radio") == 1 && linkEnds(graph) == linksBefore
            }
            #expect(calm, "\(scene.describe(["music", "radio"])); links \(linkEnds(scene.client.graph)) vs \(linksBefore)\n\(scene.log.split(separator: "\n").filter { !$0.contains("set gain") && !$0.contains("storm") }.suffix(30).joined(separator: "\n"))")
            #expect(load.isRunning, "the load generator failed: \((try? String(contentsOfFile: scene.sandbox.path("load.log"), encoding: .utf8)) ?? "")")
            #expect(scene.agent?.isRunning == true, "the agent died:\n\(scene.log.suffix(3000))")
            scene.client.pump(1)  // what the agent still does after the storm

            // No metadata entry about a stream that is gone, in ours or WirePlumber's.
            let leftovers = try scene.freshRead { graph -> [String] in
                // Read, or "no entries" proves nothing.
                try #require(graph.metadata(named: AgentProtocol.metadataName) != nil && graph.metadata(named: "default") != nil)
                let live = Set(graph.nodes.keys).union([0])
                return graph.metadata.values.flatMap { metadata in
                    metadata.entries.keys.filter { !live.contains($0) }.map { "\(metadata.name) subject \($0)" }
                }
            }
            #expect(leftovers == [], "leaked metadata entries")
            // Nor in the agent's journal.
            let journalPath = try #require(AgentJournal.runtimePath(environment: scene.sandbox.environment))
            let journal = try #require(try JournalFile.load(from: journalPath))
            let live = Set(scene.client.graph.nodes.keys)
            #expect(Set(journal.applied.keys).isSubset(of: live) && Set(journal.memory.streams.keys).isSubset(of: live)
                    && Set(journal.memory.held.keys).isSubset(of: live), "journal: \(journal.applied.keys.sorted())")
            #expect(!journal.memory.sessions.values.contains { $0.appName.hasPrefix("storm-") })
            #expect(try scene.status("music").hold == nil && scene.status("music").gain == 1)
        }

        /// A link the agent creates (relinking a released stream)
        /// and someone else removes — here the stream closing — must not leave
        /// the agent's proxy behind. Each cycle: music plays, a game holds it,
        /// the game ends and the agent links the music back, the music closes.
        /// The agent logs how many link proxies it holds ("link proxies held:
        /// N", debug); after every cycle that count must come back to what it
        /// was after the first, where before it grew by the music's links each
        /// cycle (up to the ids the daemon reuses).
        @Test func linksRemovedByOthersLeaveNoProxyBehind() throws {
            let scene = try AgentScene(settings: AgentScene.gamesAlwaysSolo)
            func held() -> [Int] {
                scene.log.split(separator: "\n").compactMap { line in
                    line.range(of: "link proxies held: ").flatMap { Int(line[$0.upperBound...]) }
                }
            }
            let cycles = 5
            var afterCycle: [Int] = []
            for cycle in 1...cycles {
                let name = "music\(cycle)"
                let music = try scene.play(name)
                defer { music.stop() }
                #expect(scene.waitForSinks(name, ["speakers"]), "\(scene.describe([name]))")
                let game = try scene.play("game\(cycle)", role: "Game")
                #expect(scene.client.wait { _ in scene.sinks(of: name).isEmpty && scene.volume(name) == 0 },
                        "\(name) should be held: \(scene.describe([name]))")
                game.stop()
                // Released: the agent links it back (its links, its proxies).
                #expect(scene.waitForSinks(name, ["speakers"]) && scene.waitForVolume(name, 1), "\(scene.describe([name]))")
                #expect(scene.client.wait { _ in (held().last ?? 0) > 0 }, "the agent relinked \(name) without a link proxy: \(held())")
                let id = scene.stream(name)?.id
                music.stop()
                #expect(scene.client.wait { graph in id.map { graph.nodes[$0] == nil } ?? false }, "\(name) did not go")
                // The links went with the stream; give the agent the removal.
                let limit = afterCycle.first ?? 0
                scene.client.wait(timeout: 3) { _ in (held().last ?? 0) <= limit }
                afterCycle.append(held().last ?? -1)
            }
            let counts = held()
            print("linksRemovedByOthersLeaveNoProxyBehind: link proxies after each cycle \(afterCycle); peak \(counts.max() ?? -1)")
            #expect((counts.max() ?? 0) > 0, "the agent never held a link proxy: nothing was measured")
            #expect(afterCycle.allSatisfy { $0 >= 0 && $0 <= afterCycle[0] },
                    "link proxies grew: \(afterCycle)\n\(scene.log.split(separator: "\n").filter { $0.contains("link") }.suffix(40).joined(separator: "\n"))")
            #expect(scene.agent?.isRunning == true, "the agent died:\n\(scene.log.suffix(3000))")
        }

        /// A client PipeWire restricts (as it does Flatpak apps) reads the agent's
        /// state but cannot write requests: not for others' streams, not silent
        /// mode, not app overrides. PipeWire refuses; the agent never sees them.
        @Test func aRestrictedClientCannotSteerOtherApps() throws {
            let scene = try AgentScene()
            let music = try scene.play("music")
            defer { music.stop() }
            let id = try #require(scene.stream("music")?.id)
            #expect(scene.waitForStatus("music") { $0.category == "playback" })

            let sandboxed = try TestClient(sandbox: scene.sandbox, properties: ["pipewire.client.access": "restricted"])
            // WirePlumber gives it read and execute permissions on everything.
            #expect(sandboxed.wait { $0.metadata(named: AgentProtocol.metadataName) != nil && $0.nodes[id] != nil })
            let metadata = try #require(sandboxed.graph.metadata(named: AgentProtocol.metadataName))
            #expect(metadata.value(subject: id, key: AgentProtocol.streamKey) != nil, "a restricted client can read the status")
            var refused = 0
            sandboxed.connection.onError = { _, result, _ in if Connection.isRefusal(result) { refused += 1 } }
            let override = #"{"category":"ambient","options":[],"persist":true}"#
            let writes: [(UInt32, String, String)] = [
                (id, AgentProtocol.categoryKey, "ambient"),
                (0, AgentProtocol.silentModeKey, "true"),
                (0, AgentProtocol.appOverrideKey("pw-cat"), override),
                (id, AgentProtocol.resumeKey, "1"),
            ]
            for (subject, key, value) in writes {
                try sandboxed.actions.setMetadata(named: metadata.name, subject: subject, key: key, type: nil, value: value)
            }
            #expect(sandboxed.connection.roundTrip())
            #expect(refused == writes.count, "PipeWire accepted \(writes.count - refused) writes")

            scene.client.pump(0.5)
            let entries = try scene.freshRead { try #require($0.metadata(named: AgentProtocol.metadataName)).entries }
            let written = writes.filter { entries[$0.0]?[$0.1]?.value == $0.2 }.map(\.1)
            #expect(written == [], "these reached the agent's metadata")
            #expect(try scene.status("music").category == "playback" && scene.agentStatus()?.silentMode == false)

            // The CLI run as a restricted client says why and exits 77; reading works.
            let config = scene.sandbox.path("restricted-config")
            try FileManager.default.createDirectory(atPath: config + "/pipewire/client.conf.d", withIntermediateDirectories: true)
            try "context.properties = { pipewire.client.access = restricted }\n"
                .write(toFile: config + "/pipewire/client.conf.d/restricted.conf", atomically: true, encoding: .utf8)
            var environment = scene.sandbox.environment.merging(CLI.quietEnvironment) { $1 }
            environment["XDG_CONFIG_HOME"] = config
            func cli(_ arguments: [String]) throws -> Command.Result {
                try Command.run([CLI.binary] + arguments + ["-r", scene.sandbox.remote], environment: environment, timeout: 15) {
                    scene.client.loop.iterate(timeout: 0.005)
                }
            }
            let silent = try cli(["silent", "on"])
            #expect(silent.status == 77 && silent.stderr.contains("refused"), "\(silent.status): \(silent.stderr)")
            let status = try cli(["status"])
            #expect(status.status == 0 && status.stdout.contains("pw-play"), "\(status.status): \(status.stdout)\(status.stderr)")
            #expect(scene.agentStatus()?.silentMode == false)
            sandboxed.pump(0.2)
        }

        /// The current links as (output node name, input node name) pairs.
        private func linkEnds(_ graph: Graph) -> [String] {
            graph.links.values.map { "\(graph.nodes[$0.outputNode]?.name ?? "?")→\(graph.nodes[$0.inputNode]?.name ?? "?")" }.sorted()
        }
    }
}

/// The load generator built beside this test binary (bench/Load).
enum Loader {
    static var binary: String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("pw-policy-load").path
    }
}
