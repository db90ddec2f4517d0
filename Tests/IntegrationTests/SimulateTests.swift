import Foundation
import PolicyCore
import PolicyTestSupport
import Testing

/// `pw-policy simulate` on real pw-dump output of the sandbox (docs/CLI.md,
/// "simulate"): real clients play, pw-dump saves the graph, and the built
/// binary, with no PipeWire to reach, must say what the real agent says.
@Suite(.serialized)
struct SimulateTests {
    static let duckingPrompt = "{ application.name=Maps policy.category=playback policy.options=[ duck-others ] }"

    /// Music (`media.role = Music`), a notification and a prompt that ducks
    /// others on the headphones: the streams' names.
    static func play(_ scene: AgentScene) throws -> [ChildProcess] {
        let music = try scene.play("music", properties: "{ application.name=Spotify }")
        let alert = try scene.play("alert", role: "Notification", properties: "{ application.name=Mail }")
        let prompt = try scene.play("prompt", role: nil, properties: duckingPrompt, target: "headphones")
        return [music, alert, prompt]
    }

    /// pw-dump's output now, saved in the sandbox. `withAgent`: taken again
    /// until it holds the agent's metadata, which pw-dump of PipeWire 1.6.8
    /// at times leaves out (1 dump in 6 seen; simulate then says so).
    static func dump(_ scene: AgentScene, as name: String, withAgent: Bool = false) throws -> String {
        let path = scene.sandbox.path(name)
        for attempt in 1...5 {
            let result = try Command.run(["pw-dump"], environment: scene.sandbox.environment, timeout: 15)
            try #require(result.status == 0, "pw-dump: \(result.stderr)")
            try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            let graph = try PipeWireDump.parse(Array(result.stdout.utf8)).graph
            if !withAgent || graph.metadata(named: AgentProtocol.metadataName) != nil {
                if attempt > 1 { print("simulate: the dump held the agent's metadata on attempt \(attempt)") }
                return path
            }
        }
        Issue.record("5 dumps without the agent's '\(AgentProtocol.metadataName)' metadata")
        return path
    }

    /// `pw-policy simulate DUMP ARGS` with the agent's environment (the same
    /// config search) but no PipeWire to reach.
    static func simulate(_ scene: AgentScene, _ dump: String, _ arguments: [String] = ["--json"]) throws -> Command.Result {
        var environment = scene.sandbox.environment.merging(CLI.quietEnvironment) { $1 }
        environment["PIPEWIRE_REMOTE"] = scene.sandbox.path("no-pipewire-here")
        return try Command.run([CLI.binary, "simulate", dump] + arguments, environment: environment, timeout: 15)
    }

    /// What a stream's status says of the policy, in one line.
    static func decision(_ info: [String: Any]) -> String {
        let ducked = (info["duckedBy"] as? [[String: Any]] ?? []).compactMap { $0["app"] as? String }
        return ["category", "source", "gain", "effect", "silenced"].map { "\($0)=\(info[$0] ?? "nil")" }.joined(separator: " ")
            + " duckedBy=\(ducked) hold=\((info["hold"] as? [String: Any])?["kind"] ?? "none")"
    }

    /// Stream id → decision, from `status --json` or `simulate --json`.
    static func decisions(_ json: String) throws -> [Int: String] {
        var found: [Int: String] = [:]
        for object in try CLI.jsonArray(json) where object["type"] as? String == "PwPolicy:Stream" {
            if let id = object["id"] as? Int, let info = object["info"] as? [String: Any] { found[id] = decision(info) }
        }
        return found
    }

    static func stack(_ json: String) throws -> String {
        let agent = try CLI.jsonArray(json).first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any]
        let stack = agent?["stack"] as? [String: Any]
        return "PipeWire \((stack?["pipewire"] as? [String: Any])?["version"] ?? "nil"), "
            + "WirePlumber \((stack?["wireplumber"] as? [String: Any])?["version"] ?? "nil")"
    }

    /// Every stream the agent published, with the same decision, and the same stack.
    static func expectSame(agent: String, simulated: String, _ what: String) throws {
        let real = try decisions(agent), guessed = try decisions(simulated)
        print("simulate (\(what)): agent \(try stack(agent)); simulated \(try stack(simulated))")
        for (id, decision) in real.sorted(by: { $0.key < $1.key }) {
            print("simulate (\(what)): stream \(id): agent \(decision)")
            print("simulate (\(what)): stream \(id): simul \(guessed[id] ?? "missing")")
        }
        #expect(real.count >= 3, "the agent published \(real.count) streams")
        #expect(guessed == real)
        #expect(try stack(simulated) == stack(agent))
    }

    @Test func aDumpTakenWhileTheAgentRuns() throws {
        let scene = try AgentScene()
        let players = try Self.play(scene)
        defer { players.forEach { $0.stop() } }
        #expect(scene.waitForVolume("music", 0.2), "\(scene.describe(["music", "alert", "prompt"]))")
        #expect(scene.waitForStatus("music") { $0.duckedBy.map(\.app) == ["Maps"] })
        scene.client.pump(0.8)  // the fades end, the statuses are the last ones
        let dump = try Self.dump(scene, as: "running.json", withAgent: true)
        let agent = try scene.cli(["status", "--json"])
        try #require(agent.status == 0, "status: \(agent.stderr)")

        let simulated = try Self.simulate(scene, dump)
        #expect(simulated.status == 0, "stderr: \(simulated.stderr)")
        try Self.expectSame(agent: agent.stdout, simulated: simulated.stdout, "agent running")

        // The same from standard input.
        let piped = try Command.run(["sh", "-c", "exec \"$0\" simulate - --json < \"$1\"", CLI.binary, dump],
                                    environment: scene.sandbox.environment.merging(CLI.quietEnvironment) { $1 }, timeout: 15)
        #expect(piped.status == 0, "stderr: \(piped.stderr)")
        #expect(try Self.decisions(piped.stdout) == Self.decisions(simulated.stdout))

        let music = try #require(scene.stream("music")?.id)
        let text = try Self.simulate(scene, dump, ["--explain", "\(music)"])
        #expect(text.status == 0, "stderr: \(text.stderr)\nstdout: \(text.stdout)")
        #expect(text.stdout.hasPrefix("Simulated on \(dump), without PipeWire"), "\(text.stdout)")
        #expect(text.stdout.contains("ducked to 0.20 by \"Maps\""), "\(text.stdout)")
        #expect(text.stdout.contains("the agent's settings in the dump"), "\(text.stdout)")
    }

    /// The bug report's case: the graph as it is before the agent acts, and
    /// what the agent then does.
    @Test func aDumpTakenBeforeTheAgentStarts() throws {
        let scene = try AgentScene()
        scene.stopAgent()
        let players = try Self.play(scene)
        defer { players.forEach { $0.stop() } }
        // As a user would see it: every stream playing.
        #expect(scene.client.wait(timeout: 5) { _ in
            ["music", "alert", "prompt"].allSatisfy { scene.stream($0)?.state == .running && !scene.sinks(of: $0).isEmpty }
        }, "\(scene.describe(["music", "alert", "prompt"]))")
        let dump = try Self.dump(scene, as: "before.json")
        let text = try Self.simulate(scene, dump, [])
        #expect(text.status == 0, "stderr: \(text.stderr)")
        #expect(text.stdout.contains("the agent was not running when the dump was taken"), "\(text.stdout)")

        try scene.startAgent()
        #expect(scene.waitForStatus("music") { $0.duckedBy.map(\.app) == ["Maps"] })
        scene.client.pump(0.8)
        let agent = try scene.cli(["status", "--json"])
        try #require(agent.status == 0, "status: \(agent.stderr)")
        // WirePlumber 0.4 publishes no version: the user gives the one the
        // agent found (docs/CLI.md, "simulate").
        let parsed = try PipeWireDump.parse(Array(try String(contentsOfFile: dump, encoding: .utf8).utf8))
        var arguments = ["--json"]
        if PipeWireStack.observed(in: parsed.graph).wirePlumberVersion == nil {
            #expect(text.stdout.contains("give it with --wireplumber VERSION"), "\(text.stdout)")
            let version = try #require(scene.agentStatus()?.stack?.wireplumber?.version)
            print("simulate: the dump's WirePlumber has no version; --wireplumber \(version)")
            arguments += ["--wireplumber", version]
        }
        let simulated = try Self.simulate(scene, dump, arguments)
        #expect(simulated.status == 0, "stderr: \(simulated.stderr)")
        try Self.expectSame(agent: agent.stdout, simulated: simulated.stdout, "agent started after")
    }

    /// What is not a dump, or not there, is told in one line with its exit status.
    @Test func whatIsNotADumpIsRefused() throws {
        let missing = try CLI.run(["simulate", "/nonexistent/graph.json"])
        #expect(missing.status == 66 && missing.stdout.isEmpty, "\(missing.status) \(missing.stdout)")
        #expect(missing.stderr == "pw-policy: cannot read /nonexistent/graph.json: No such file or directory\n", "\(missing.stderr)")
        let file = NSTemporaryDirectory() + "pw-policy-simulate-\(getpid()).json"
        defer { unlink(file) }
        try "{\"id\": 0}".write(toFile: file, atomically: true, encoding: .utf8)
        let object = try CLI.run(["simulate", file])
        #expect(object.status == 65, "\(object.status)")
        #expect(object.stderr == "pw-policy: \(file): not a pw-dump: pw-dump prints a JSON array of objects, this is an object\n",
                "\(object.stderr)")
        let config = try CLI.run(["simulate", file, "--config", "/nonexistent/pw-policy.conf"])
        #expect(config.status == 78, "\(config.status): \(config.stderr)")
    }

    /// The dump read as the agent's mirror reads the daemon: the same
    /// streams and sinks with the same properties, the same links.
    @Test func theDumpReadsAsTheMirrorSeesTheGraph() throws {
        let scene = try AgentScene()
        let players = try Self.play(scene)
        defer { players.forEach { $0.stop() } }
        #expect(scene.waitForStatus("music") { $0.duckedBy.map(\.app) == ["Maps"] })
        scene.client.pump(0.8)
        let mirrored = try scene.freshRead { $0 }
        let parsed = try PipeWireDump.parse(Array(try String(contentsOfFile: try Self.dump(scene, as: "mirror.json"),
                                                             encoding: .utf8).utf8))
        let graph = parsed.graph
        print("simulate: pw-dump read with \(parsed.warnings.count) warnings \(parsed.warnings); \(graph.nodes.count) nodes, "
              + "\(graph.ports.count) ports, \(graph.links.count) links, \(graph.clients.count) clients; mirror \(mirrored.nodes.count) nodes")
        #expect(graph.core == mirrored.core)
        #expect(PipeWireStack.observed(in: graph) == PipeWireStack.observed(in: mirrored))
        let nodes = mirrored.streams + mirrored.sinks
        #expect(nodes.count >= 5)
        for node in nodes {
            let read = graph.nodes[node.id]
            #expect(read?.props == node.props, "node \(node.id): \(node.props.filter { read?.props[$0.key] != $0.value })")
            #expect(read?.volume == node.volume && read?.channelVolumes == node.channelVolumes && read?.mute == node.mute,
                    "node \(node.id)")
            #expect(graph.ports.values.filter { $0.nodeID == node.id }.sorted { $0.id < $1.id }
                    == mirrored.ports.values.filter { $0.nodeID == node.id }.sorted { $0.id < $1.id }, "ports of \(node.id)")
        }
        let links = { (graph: Graph) in
            graph.links.values.filter { link in nodes.contains { $0.id == link.outputNode } }
                .map { [$0.id, $0.outputNode, $0.outputPort, $0.inputNode, $0.inputPort] }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        #expect(links(graph) == links(mirrored))
        // pw-dump writes a JSON value as JSON: the same value, maybe not the same spacing.
        let entries = { (graph: Graph) in
            (graph.metadata(named: "default")?.entries.values.flatMap(\.values) ?? []).map { entry in
                "\(entry.subject) \(entry.key) \(entry.type ?? "nil") "
                    + ((try? JSONParser.parse(Array(entry.value.utf8)))?.text() ?? entry.value)
            }.sorted()
        }
        #expect(entries(graph) == entries(mirrored))
        #expect(!entries(graph).isEmpty)
    }
}
