import Foundation
import PolicyCore
import PolicyPipeWire
import Testing
import PolicyTestSupport

/// A sandbox with `pw-policy run` on it and an observer client: the agent is
/// the built binary, a separate process, as in production; the observer sees
/// what really happened in the graph.
final class AgentScene {
    let sandbox: Sandbox
    let tone: String
    let client: TestClient
    private(set) var agent: ChildProcess?
    let agentLog: String

    /// Added to the agent's environment (e.g. PW_POLICY_CONFIG_DIR).
    let agentEnvironment: [String: String]

    /// The scenes that use a game to hold what played before it: the
    /// shipped config lets a game started beside music mix instead
    /// (`solo-ambient.mix-with-playing`, docs/POLICY.md, "Games and the music").
    static let gamesAlwaysSolo = "solo-ambient.mix-with-playing = false"

    /// `settings`: SPA-JSON members of a `settings` drop-in the agent reads
    /// over the shipped config (in the sandbox's `$XDG_CONFIG_HOME`).
    /// `beforeAgent` runs on the sandbox before the agent starts (a
    /// service the agent looks for only as it starts).
    /// `roleLoopbacks`: WirePlumber's role-based policy on (`Sandbox`);
    /// throws `SandboxError.notApplicable` on a WirePlumber without it.
    init(pulse: Bool = false, toneSeconds: Double = 30, agentEnvironment: [String: String] = [:],
         agentArguments: [String] = [], settings: String? = nil, beforeAgent: ((Sandbox) throws -> Void)? = nil,
         roleLoopbacks: Bool = false) throws {
        self.agentEnvironment = agentEnvironment
        sandbox = try Sandbox(pulse: pulse, roleLoopbacks: roleLoopbacks)
        try beforeAgent?(sandbox)
        if let settings {
            let directory = sandbox.environment["XDG_CONFIG_HOME"]! + "/pw-policy/pw-policy.conf.d"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "settings = { \(settings) }\n".write(toFile: directory + "/50-test.conf", atomically: true, encoding: .utf8)
        }
        tone = sandbox.path("tone.wav")
        try Audio.writeTone(to: tone, seconds: toneSeconds)
        agentLog = sandbox.path("agent.log")
        client = try TestClient(sandbox: sandbox)
        try startAgent(extra: agentArguments)
    }

    /// Starts the agent and waits until it publishes its status.
    func startAgent(extra: [String] = []) throws {
        let agent = try ChildProcess([CLI.binary, "run", "-r", sandbox.remote, "--log-level", "debug"] + extra,
                                           environment: sandbox.environment.merging(agentEnvironment) { $1 },
                                           stdout: agentLog + ".out", stderr: agentLog)
        self.agent = agent
        // Read through fresh bindings: the observer binds the agent's new
        // metadata while the agent publishes into it, and PipeWire 0.3.65
        // then never sends it those entries (see `status(_:)`).
        let deadline = Date().addingTimeInterval(10)
        var ready = false
        while !ready, Date() < deadline, agent.isRunning {
            client.pump(0.05)
            ready = agentStatus()?.pid == agent.pid
        }
        if !ready { throw SceneError.agentDidNotStart(log) }
    }

    /// The agent's published status, read through a fresh binding; nil
    /// when it cannot be read (for polling: compare it with a value, never
    /// with nil).
    func agentStatus() -> AgentStatus? {
        (try? freshRead { $0.metadata(named: AgentProtocol.metadataName)?.value(subject: 0, key: AgentProtocol.agentKey) })?
            .flatMap { try? JSONDecoder().decode(AgentStatus.self, from: Data($0.utf8)) }
    }

    /// Reads the graph through a new client (TestClient.freshRead).
    func freshRead<T>(_ read: (Graph) throws -> T) throws -> T {
        try TestClient.freshRead(sandbox, read)
    }

    func stopAgent(signal: Int32 = SIGTERM) {
        agent?.stop(signal: signal)
        agent = nil
    }

    var log: String { (try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? "" }

    deinit {
        agent?.stop(signal: SIGKILL)
    }

    // MARK: streams

    func play(_ name: String, role: String? = "Music", properties: String? = nil,
              target: String? = nil) throws -> ChildProcess {
        let player = try sandbox.play(tone: tone, as: name, role: role, properties: properties, target: target)
        guard client.wait(timeout: 5, until: { _ in self.client.stream(withMediaName: name) != nil }) else {
            throw SceneError.streamDidNotAppear(name)
        }
        return player
    }

    func stream(_ name: String) -> Graph.Node? { client.stream(withMediaName: name) }

    func volume(_ name: String) -> Float? { stream(name)?.volume }

    func sinks(of name: String) -> Set<String> {
        stream(name).map { client.graph.linkedSinkNames(of: $0.id) } ?? []
    }

    /// The agent's published decision for a stream, read through a fresh
    /// binding: PipeWire 0.3.65 does not forward metadata changes to settled
    /// listeners while another client is binding the object (a CLI call), so
    /// a long-lived observer can miss updates.
    ///
    /// A read that fails (no such stream, no agent metadata, no entry for
    /// the stream, an entry that does not decode) records an issue and
    /// throws, so that `try scene.status("music").hold == nil` cannot pass
    /// on a status that was never read. Inside waits use `polledStatus`.
    func status(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> StreamStatus {
        let id = try #require(stream(name)?.id, "no stream '\(name)' in the graph", sourceLocation: sourceLocation)
        let json = try freshRead { graph in
            let metadata = try #require(graph.metadata(named: AgentProtocol.metadataName),
                                        "no '\(AgentProtocol.metadataName)' metadata: the agent is not running",
                                        sourceLocation: sourceLocation)
            return try #require(metadata.value(subject: id, key: AgentProtocol.streamKey),
                                "the agent published no status for '\(name)' (node \(id))", sourceLocation: sourceLocation)
        }
        return try JSONDecoder().decode(StreamStatus.self, from: Data(json.utf8))
    }

    /// The stream's published status for polling (`client.wait`): nil while
    /// it cannot be read. Compare with a value; a condition that holds for
    /// nil (`?.hold == nil`) would pass on a failed read, so write
    /// `polledStatus(name).map { $0.hold == nil } == true`.
    func polledStatus(_ name: String) -> StreamStatus? {
        stream(name).flatMap { polledStatus(id: $0.id) }
    }

    func polledStatus(id: UInt32) -> StreamStatus? {
        guard let json = (try? freshRead({ $0.metadata(named: AgentProtocol.metadataName)?.value(subject: id, key: AgentProtocol.streamKey) })) ?? nil
        else { return nil }
        return try? JSONDecoder().decode(StreamStatus.self, from: Data(json.utf8))
    }

    /// Waits until the stream's published status satisfies `condition`.
    @discardableResult
    func waitForStatus(_ name: String, timeout: Double = 5, _ condition: (StreamStatus) -> Bool) -> Bool {
        client.wait(timeout: timeout) { _ in self.polledStatus(name).map(condition) ?? false }
    }

    /// Waits until the stream's policy gain (Props volume) is `gain`.
    @discardableResult
    func waitForVolume(_ name: String, _ gain: Float, timeout: Double = 5) -> Bool {
        client.wait(timeout: timeout) { _ in abs((self.volume(name) ?? -1) - gain) < 0.01 }
    }

    @discardableResult
    func waitForSinks(_ name: String, _ sinks: Set<String>, timeout: Double = 5) -> Bool {
        client.wait(timeout: timeout) { _ in self.sinks(of: name) == sinks }
    }

    /// The stream is held for its lost route (status), unlinked and at gain 0
    /// (the graph).
    func expectHeldForRoute(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try status(name, sourceLocation: sourceLocation).hold?.kind == "route-lost", "\(describe([name]))", sourceLocation: sourceLocation)
        #expect(sinks(of: name).isEmpty && volume(name) == 0, "\(describe([name]))", sourceLocation: sourceLocation)
    }

    /// Waits until the agent itself has published the stream as running on
    /// `output`: an unplug is "while music plays" only once the agent saw it
    /// play there. Waiting for the links alone raced on a loaded machine —
    /// the agent had not yet seen the stream running when the output went,
    /// so it took it for a paused player and rightly did not hold it.
    @discardableResult
    func waitUntilAgentSees(_ name: String, runningOn output: String, timeout: Double = 5) -> Bool {
        stream(name).map { waitUntilAgentSees(id: $0.id, runningOn: output, timeout: timeout) } ?? false
    }

    func waitUntilAgentSees(id: UInt32, runningOn output: String, timeout: Double = 5) -> Bool {
        client.wait(timeout: timeout) { _ in
            self.polledStatus(id: id).map { $0.state == "running" && $0.output == output } == true
        }
    }

    /// Records what reaches `sink` (its monitor, float32 stereo at 48 kHz)
    /// into the sandbox file `file` until stopped, once the recorder is seen
    /// linked: a recorder that never linked would hear nothing and pass for
    /// "nothing leaked".
    func recordSink(_ sink: String, to file: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChildProcess {
        let recorder = try sandbox.spawn(["pw-record", "--target", sink, "--format", "f32", "--rate", "48000",
                                          "--channels", "2", "-P", "{ stream.capture.sink=true node.name=pw-policy-test-monitor }",
                                          sandbox.path(file)])
        #expect(client.wait { graph in
            graph.nodes.values.contains { $0.name == "pw-policy-test-monitor" && !graph.links(to: $0.id).isEmpty }
        }, "the recorder never linked to \(sink)", sourceLocation: sourceLocation)
        return recorder
    }

    /// The positive control of a "nothing leaked" check: an ambient tone on
    /// `sink` (ambient mixes with everything: docs/POLICY.md), played half a
    /// second and gone, so that a recording of `sink` that hears nothing
    /// cannot pass for one where nothing leaked.
    func playControl(on sink: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let control = try play("control", role: nil, properties: "{ policy.category=ambient }", target: sink)
        #expect(waitForSinks("control", [sink]), "\(describe(["control"]))", sourceLocation: sourceLocation)
        client.pump(0.5)
        control.stop()
        #expect(client.wait { _ in self.stream("control") == nil }, sourceLocation: sourceLocation)
    }

    // MARK: the user's own stream volume

    /// What `setUserVolume` set, by stream name: the channelVolumes and mute
    /// the stream must keep whatever the agent does.
    private(set) var userVolumes: [String: (channelVolumes: [Float], mute: Bool?)] = [:]

    /// Sets a stream's Props `channelVolumes` to `level` on every channel, as
    /// the user's own volume does: pavucontrol (through pipewire-pulse) and
    /// `wpctl set-volume` write `channelVolumes` and leave Props `volume`
    /// alone, as `pw-cli set-param` does here. pw-cli, because wpctl writes
    /// the cube of its argument (0.5 becomes 0.125) and the test wants a
    /// value it can compare exactly. The agent's only gain is Props `volume`
    /// (docs/POLICY.md, "Gains"), so `expectUserVolumesKept()` must find this
    /// value whatever the agent did meanwhile.
    func setUserVolume(_ name: String, to level: Float = 0.5, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // After WirePlumber's restore-stream has set the stream up (it sets
        // channelVolumes once, as the stream starts), or it could overwrite ours.
        #expect(client.wait { _ in self.stream(name).map { $0.state == .running && !$0.channelVolumes.isEmpty } ?? false },
                "\(describe([name]))", sourceLocation: sourceLocation)
        let node = try #require(stream(name), "no stream '\(name)'", sourceLocation: sourceLocation)
        let wanted = [Float](repeating: level, count: node.channelVolumes.count)
        let value = "{ channelVolumes: [ \(wanted.map { String($0) }.joined(separator: ", ")) ] }"
        var kept = false
        for _ in 1...3 where !kept {
            let result = try sandbox.run(["pw-cli", "set-param", String(node.id), "Props", value]) {
                self.client.loop.iterate(timeout: 0.005)
            }
            #expect(result.status == 0, "pw-cli set-param: \(result.stderr)", sourceLocation: sourceLocation)
            // Set, and still so a moment later (no late restore undid it).
            kept = client.wait { _ in self.stream(name)?.channelVolumes == wanted }
            client.pump(0.3)
            kept = kept && self.stream(name)?.channelVolumes == wanted
        }
        try #require(kept, "the user's channelVolumes \(wanted) did not stick: \(self.stream(name)?.channelVolumes ?? [])",
                     sourceLocation: sourceLocation)
        userVolumes[name] = (wanted, self.stream(name)?.mute)
    }

    /// Every stream given a user volume still has exactly it, and its mute.
    func expectUserVolumesKept(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!userVolumes.isEmpty, "no user volume was set", sourceLocation: sourceLocation)
        for (name, user) in userVolumes.sorted(by: { $0.key < $1.key }) {
            guard let stream = stream(name) else {
                Issue.record("stream '\(name)' is gone: its user volume cannot be checked", sourceLocation: sourceLocation)
                continue
            }
            #expect(stream.channelVolumes == user.channelVolumes && stream.mute == user.mute,
                    "the user's volume of '\(name)' changed: channelVolumes \(stream.channelVolumes), mute \(String(describing: stream.mute)); set \(user.channelVolumes), mute \(String(describing: user.mute))",
                    sourceLocation: sourceLocation)
        }
    }

    /// Runs the CLI against this sandbox while the observer keeps turning.
    @discardableResult
    func cli(_ arguments: [String]) throws -> Command.Result {
        try CLI.run(arguments, in: sandbox) { self.client.loop.iterate(timeout: 0.005) }
    }

    /// A player held by a solo-ambient game, and music (ambient) ducked by a
    /// prompt playing on `promptTarget`; returns music, prompt, player, game.
    /// The player and the music have a user volume (`setUserVolume`).
    func duckAndHold(promptTarget: String?) throws -> [ChildProcess] {
        let player = try play("player")
        #expect(waitForSinks("player", ["speakers"]))
        try setUserVolume("player")
        let game = try play("game", role: "Game")
        #expect(client.wait { _ in self.sinks(of: "player").isEmpty && self.volume("player") == 0 },
                "\(describe(["player", "game"]))")
        let music = try play("music", role: nil, properties: "{ policy.category=ambient }")
        #expect(waitForSinks("music", ["speakers"]))
        try setUserVolume("music")
        let prompt = try play("prompt", role: nil, properties: "{ policy.category=playback policy.options=[ duck-others ] }",
                              target: promptTarget)
        #expect(waitForVolume("music", 0.2), "\(describe(["music"]))")
        client.pump(0.3)  // let the fade finish
        return [music, prompt, player, game]
    }

    func describe(_ names: [String]) -> String {
        names.map { name in
            "\(name): volume \(volume(name).map { String($0) } ?? "nil"), sinks \(sinks(of: name).sorted()), state \(stream(name)?.state.rawValue ?? "gone")"
        }.joined(separator: "; ")
    }
}

enum SceneError: Error, CustomStringConvertible {
    case agentDidNotStart(String)
    /// `player`: what became of the client that was to play it.
    case streamDidNotAppear(String, player: String? = nil)
    var description: String {
        switch self {
        case .agentDidNotStart(let log): "the agent did not start; its log:\n\(log)"
        case .streamDidNotAppear(let name, let player): "stream '\(name)' did not appear" + (player.map { "; \($0)" } ?? "")
        }
    }
}
