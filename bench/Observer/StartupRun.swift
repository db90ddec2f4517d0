import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// The agent starting on a graph that already has the background streams and
/// a ducking stream: how long until the graph is as the policy wants it.
struct StartupResult {
    var streams: Int
    /// From spawning the agent to its status appearing (connected, first sync done).
    var connected: Double?
    /// To the first background stream's volume change.
    var firstChange: Double?
    /// To every background stream at the duck level: converged.
    var converged: Double?
    /// To every stream's status published in the pw-policy metadata.
    var published: Double?
}

enum StartupRun {
    static func run(scene: Scene) throws -> StartupResult {
        let observer = scene.observer
        let background = Set(scene.background)
        let duckLevel: Float = 0.2
        let ducker = "duck-startup"
        scene.load.send(["play \(ducker) pw-policy-load.level=0.1 application.name=bench-ducker application.process.id=3999999 "
                         + "policy.category=playback policy.options=[duck-others]"])
        let ducked = observer.wait(timeout: 30) {
            background.allSatisfy { abs((scene.volume($0) ?? 1) - duckLevel) < 0.01 }
        }
        guard ducked else { throw BenchError("the agent did not duck the background for the start-up run") }
        // SIGTERM: the agent restores every gain before it exits.
        scene.stopAgent()
        guard observer.wait(timeout: 30, until: scene.backgroundRestored) else {
            throw BenchError("the stopped agent left streams ducked")
        }
        observer.waitForQuiet(0.5)
        // The agent's restore just changed every background stream's Props,
        // and WirePlumber works through each (its restore-stream hooks) for
        // seconds at 500 streams. A client that binds WirePlumber's exported
        // metadata — the agent, at start-up — waits until WirePlumber has
        // answered the bind's ping, so a start-up measured now times
        // WirePlumber's backlog, not the agent (docs/PERFORMANCE.md).
        let wirePlumberBusy = scene.waitForWirePlumberIdle(quiet: 0.5, timeout: 60)
        if wirePlumberBusy > 1 { note(String(format: "start-up: waited %.1f s for WirePlumber to finish its backlog", wirePlumberBusy)) }

        var result = StartupResult(streams: background.count)
        var atLevel = Set<UInt32>()
        // Per stream, for a start-up that is slow: when its gain first moved,
        // when it reached the level, and how many values it showed on the way.
        var firstMoved: [UInt32: Double] = [:]
        var reached: [UInt32: Double] = [:]
        var changes: [UInt32: Int] = [:]
        var published = Set<UInt32>()
        var started = 0.0
        observer.onEvent = { change, time in
            let graph = observer.graph
            switch change {
            case .props(let object):
                guard background.contains(object), let volume = graph.nodes[object]?.volume else { return }
                if volume < 0.999, result.firstChange == nil { result.firstChange = time - started }
                if volume < 0.999 {
                    changes[object, default: 0] += 1
                    if firstMoved[object] == nil { firstMoved[object] = time - started }
                }
                if abs(volume - duckLevel) < 0.01, atLevel.insert(object).inserted {
                    reached[object] = time - started
                    if atLevel.count == background.count { result.converged = time - started }
                }
            case .metadata(let object, let subject, _):
                guard let metadata = graph.metadata[object], metadata.name == AgentProtocol.metadataName else { return }
                if subject == 0, result.connected == nil, metadata.value(subject: 0, key: AgentProtocol.agentKey) != nil {
                    result.connected = time - started
                }
                if background.contains(subject), metadata.value(subject: subject, key: AgentProtocol.streamKey) != nil,
                   published.insert(subject).inserted, published.count == background.count {
                    result.published = time - started
                }
            case .added, .removed, .info, .linkState:
                break
            }
        }
        started = try scene.startAgent()
        observer.wait(timeout: 60) { result.converged != nil && result.published != nil }
        observer.onEvent = nil
        let last = reached.sorted { $0.value > $1.value }.prefix(3).map { id, time in
            String(format: "%u at %.0f ms (first moved at %.0f ms, %d values)", id, time * 1000,
                   (firstMoved[id] ?? 0) * 1000, changes[id] ?? 0)
        }
        note("start-up: last at the duck level: " + last.joined(separator: "; ")
             + "; streams showing more than one value: \(changes.values.filter { $0 > 1 }.count)")
        scene.load.send(["stop \(ducker)"])
        observer.wait(timeout: 30, until: scene.backgroundRestored)
        return result
    }
}
