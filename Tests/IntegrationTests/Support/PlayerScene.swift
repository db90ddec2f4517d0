import Foundation
import PolicyCore
import PolicyDBus
import PolicyPipeWire
import Testing
import PolicyTestSupport

/// A sandbox with our PipeWire client and an `MPRISObserver` on the
/// sandbox's private session bus, both on the client's loop — as the agent
/// will run them (docs/PLAYERS.md). Tests drive players and wait, turning
/// that one loop, for what the observer reports.
final class PlayerScene {
    let sandbox: Sandbox
    let client: TestClient
    let bus: SessionBus
    let observer: MPRISObserver
    private(set) var players = PlayerSet.empty
    private(set) var reports = 0
    private(set) var log: [String] = []

    init(pulse: Bool = false) throws {
        sandbox = try Sandbox(pulse: pulse)
        client = try TestClient(sandbox: sandbox)
        bus = try SessionBus.connect(address: sandbox.environment["DBUS_SESSION_BUS_ADDRESS"], on: client.loop).get()
        var record: ((String) -> Void)?
        var report: ((PlayerSet) -> Void)?
        observer = MPRISObserver(bus: bus, log: { record?($0) }, onChange: { report?($0) })
        record = { [unowned self] in log.append($0) }
        report = { [unowned self] in players = $0; reports += 1 }
        try observer.start().get()
    }

    /// Turns the loop until `condition` holds on the players and the graph.
    @discardableResult
    func wait(timeout: Double = 8, until condition: (PlayerSet, Graph) -> Bool) -> Bool {
        client.loop.run(timeout: timeout) { condition(players, client.graph) }
    }

    func pump(_ seconds: Double) { client.pump(seconds) }

    /// The observer's Pause or Play, waited for (nil: no answer in time).
    func command(play: Bool, _ busName: String) -> Result<Void, BusCallError>? {
        var outcome: Result<Void, BusCallError>?
        if play {
            observer.play(busName) { outcome = $0 }
        } else {
            observer.pause(busName) { outcome = $0 }
        }
        client.loop.run(timeout: 8) { outcome != nil }
        return outcome
    }

    /// Which player each stream node is matched to, with the ancestry read now.
    func matches() -> [UInt32: PlayerMatch] {
        let graph = client.graph
        let ancestry = ProcessAncestry.table(for: PlayerMatching.streamProcessIDs(in: graph))
        return PlayerMatching.match(players: players, graph: graph, ancestry: ancestry)
    }

    /// A playback stream by node.name.
    func stream(named name: String) -> Graph.Node? {
        client.graph.streams.first { $0.name == name }
    }

    /// playerctl on the sandbox's bus, with the loop turning meanwhile.
    @discardableResult
    func playerctl(_ arguments: [String]) throws -> Command.Result {
        try client.run(["playerctl"] + arguments, in: sandbox)
    }
}

/// `pw-policy-test-player` (Tests/TestPlayer) on a scene's sandbox.
final class TestPlayer {
    static var binary: String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("pw-policy-test-player").path
    }

    let process: ChildProcess
    let outputPath: String
    let busName: String
    let pid: Int32
    let streamPID: Int32
    let nodeName: String

    convenience init(scene: PlayerScene, name: String, options: [String] = []) throws {
        try self.init(sandbox: scene.sandbox, name: name, options: options) { scene.pump(0.05) }
    }

    /// `pump` runs the caller's loop while waiting for the player.
    init(sandbox: Sandbox, name: String, options: [String] = [], pump: () -> Void) throws {
        let outputPath = sandbox.path("player-\(name).out")
        self.outputPath = outputPath
        let process = try ChildProcess([TestPlayer.binary, "-r", sandbox.remote, "--name", name] + options,
                                             environment: sandbox.environment, input: true,
                                             stdout: outputPath, stderr: sandbox.path("player-\(name).err"))
        self.process = process
        nodeName = "pw-policy-test-player.\(name)"
        var ready: [Substring]?
        _ = sandbox.wait(timeout: 10) {
            pump()
            ready = TestPlayer.lines(outputPath).first { $0.hasPrefix("ready ") }?.split(separator: " ")
            return ready != nil || !process.isRunning
        }
        // "ready bus NAME pid PID stream-pid PID"
        guard let ready, ready.count == 7, let pid = Int32(ready[4]), let streamPID = Int32(ready[6]) else {
            throw TestPlayerError.notReady(TestPlayer.lines(outputPath) + TestPlayer.lines(sandbox.path("player-\(name).err")))
        }
        busName = String(ready[2])
        self.pid = pid
        self.streamPID = streamPID
    }

    private static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var lines: [String] { Self.lines(outputPath) }

    /// Frames played so far, as the player counts them.
    func position(scene: PlayerScene) -> UInt64? {
        position(sandbox: scene.sandbox) { scene.pump(0.05) }
    }

    func position(sandbox: Sandbox, pump: () -> Void) -> UInt64? {
        let before = lines.count
        process.send(["position"])
        var value: UInt64?
        _ = sandbox.wait(timeout: 5) {
            pump()
            value = lines.dropFirst(before).last { $0.hasPrefix("position ") }.flatMap { UInt64($0.dropFirst(9)) }
            return value != nil
        }
        return value
    }

    deinit { process.stop() }
}

enum TestPlayerError: Error { case notReady([String]) }
