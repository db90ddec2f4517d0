import Foundation
import PolicyCore
import PolicyFiles
import PolicyAgent
import PolicyPipeWire
import PolicyTestSupport

/// What a media player that floods the session bus costs (docs/PLAYERS.md,
/// "A player that floods the bus"): the test player sending 50
/// PropertiesChanged every 10 ms — Metadata with a new title each time, or
/// an unchanged PlaybackStatus — beside the background streams. Per kind,
/// the CPU of the agent, the flooder and the bus daemon over a window that
/// starts half a second before the flood (once the player and its stream
/// arrived and the agent settled: that is not the flood's cost), and the
/// agent's duck reaction during the flood against the same measure without
/// one.
struct BusStormResult {
    struct Window {
        var label: String
        var agentCPU: Double
        var agentWakeups: Int
        var flooderCPU: Double
        var busCPU: Double
        /// PropertiesChanged the flooder got out in the window.
        var signalsSent: Int
        /// Our duck reaction (DuckSample.ours) during the flood.
        var duck: Percentiles?
    }
    var streams: Int
    var seconds: Double
    var quietDuck: Percentiles?
    var windows: [Window] = []
}

enum BusStormRun {
    /// The flood starts this long after the player is ready.
    static let floodAfter = 3.0

    static func run(scene: Scene, testPlayer: String, streams: Int, seconds: Double, duckEvents: Int) throws -> BusStormResult {
        var result = BusStormResult(streams: streams, seconds: seconds)
        result.quietDuck = Percentiles(DuckRun.run(scene: scene, events: duckEvents, label: "storm-quiet") { _ in }.map(\.ours))
        for kind in ["metadata", "status"] {
            let output = scene.options.directory + "/storm-\(kind).out"
            let flooder = try ChildProcess([testPlayer, "--flood", kind, "--flood-after", "\(Int(floodAfter * 1000))",
                                            "--name", "storm\(kind)", "-r", scene.options.remote],
                                           input: true, stdout: output, stderr: output, appending: true)
            defer { flooder.end() }
            func said(_ prefix: String) -> String? {
                ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
                    .split(separator: "\n").last { $0.hasPrefix(prefix) }.map(String.init)
            }
            guard scene.observer.wait(timeout: 10, until: { said("ready") != nil }) else {
                throw BenchError("the flooding test player did not start: \(said("") ?? "")")
            }
            scene.observer.pump(floodAfter - 0.5)
            guard let agentPID = scene.agentPID, let busPID = scene.daemonPID("dbus-daemon"),
                  let agentBefore = ProcessSample(pid: agentPID), let flooderBefore = ProcessSample(pid: flooder.pid),
                  let busBefore = ProcessSample(pid: busPID)
            else { throw BenchError("cannot read /proc for the agent, the flooder or the bus") }
            flooder.send(["flood"])
            scene.observer.wait(timeout: 2) { said("sent") != nil }
            let sentBefore = said("sent").flatMap { Int($0.dropFirst(5)) } ?? 0
            scene.observer.pump(seconds)
            guard let agentAfter = ProcessSample(pid: agentPID), let flooderAfter = ProcessSample(pid: flooder.pid),
                  let busAfter = ProcessSample(pid: busPID)
            else { throw BenchError("the agent, the flooder or the bus went away during the flood") }
            flooder.send(["flood"])
            var sentAfter = sentBefore
            scene.observer.wait(timeout: 2) {
                sentAfter = said("sent").flatMap { Int($0.dropFirst(5)) } ?? sentBefore
                return sentAfter != sentBefore
            }
            let duck = DuckRun.run(scene: scene, events: duckEvents, label: "storm-\(kind)") { _ in }
            result.windows.append(BusStormResult.Window(
                label: kind == "metadata" ? "Metadata, a new title each time" : "PlaybackStatus, unchanged",
                agentCPU: agentAfter.cpuSeconds - agentBefore.cpuSeconds,
                agentWakeups: agentAfter.contextSwitches - agentBefore.contextSwitches,
                flooderCPU: flooderAfter.cpuSeconds - flooderBefore.cpuSeconds,
                busCPU: busAfter.cpuSeconds - busBefore.cpuSeconds,
                signalsSent: sentAfter - sentBefore, duck: Percentiles(duck.map(\.ours))))
        }
        return result
    }
}
