import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

/// `pw-policy-test-card` on a sandbox: a laptop sound card with a headphones
/// and a speaker route and its sink (docs/TESTING.md, "The test card").
/// Commands go to its stdin; what it printed is read back from its stdout.
final class TestCard {
    static var binary: String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("pw-policy-test-card").path
    }

    let process: ChildProcess
    let outputPath: String
    let deviceID: UInt32
    let sinkID: UInt32
    let sinkName: String

    /// Starts the card and waits until its device and sink exist and
    /// `client` mirrors both, with the route WirePlumber chose.
    init(sandbox: Sandbox, client: TestClient, name: String = "alsa_card.pw-policy-test",
         unplugged: Bool = false) throws {
        let outputPath = sandbox.path("\(name).out")
        let process = try ChildProcess([TestCard.binary, "-r", sandbox.remote, "--name", name]
                                                 + (unplugged ? ["--unplugged"] : []),
                                             environment: sandbox.environment, input: true,
                                             stdout: outputPath, stderr: sandbox.path("\(name).err"))
        self.outputPath = outputPath
        self.process = process
        sinkName = name + ".analog-stereo"
        var ready: (device: UInt32, sink: UInt32)?
        client.wait(timeout: 10) { _ in
            ready = Self.readyLine(in: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
            return ready != nil || !process.isRunning
        }
        guard let ready else { throw TestCardError.notReady(output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "") }
        deviceID = ready.device
        sinkID = ready.sink
        guard client.wait(until: { $0.devices[ready.device] != nil && $0.nodes[ready.sink] != nil }) else {
            throw TestCardError.notMirrored
        }
    }

    /// "ready device ID sink ID"
    private static func readyLine(in output: String) -> (device: UInt32, sink: UInt32)? {
        for line in output.split(separator: "\n") where line.hasPrefix("ready ") {
            let words = line.split(separator: " ")
            if words.count == 5, let device = UInt32(words[2]), let sink = UInt32(words[4]) { return (device, sink) }
        }
        return nil
    }

    /// Every line it printed so far.
    var lines: [String] {
        ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private var syncs = 0

    /// Sends a command and waits (turning `client`'s loop) until the card has
    /// handled it and the daemon everything it sent meanwhile; false on timeout.
    @discardableResult
    func send(_ command: String, pumping client: TestClient) -> Bool {
        syncs += 1
        let tag = "after-\(syncs)"
        process.send([command, "sync \(tag)"])
        return client.wait { _ in self.lines.contains("synced \(tag)") }
    }

    /// Waits until WirePlumber has stopped setting routes on the card: no new
    /// line for `quiet` seconds. WirePlumber 0.5.8 sets each route it selects
    /// twice, and switched back and forth, at times stopping on the unplugged
    /// headphones, while this card did not report the volume it sets
    /// (docs/TESTING.md, "The test card"); false if it never stops.
    @discardableResult
    func waitUntilSettled(pumping client: TestClient, quiet: Double = 1.0, timeout: Double = 8) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var count = lines.count, since = Date()
        while Date() < deadline {
            client.pump(0.1)
            let now = lines.count
            if now != count { count = now; since = Date() } else if Date().timeIntervalSince(since) >= quiet { return true }
        }
        return false
    }

    /// The device's routes in `graph`, as the mirror has them.
    func routes(in graph: Graph) -> [Graph.Route] { graph.devices[deviceID]?.routes ?? [] }

    /// The routes of the device's `Route` param as pw-dump reads it (it
    /// enumerates the params itself), as (index, device, name, available).
    func dumpedRoutes(in sandbox: Sandbox) throws -> [DumpedRoute] {
        let device = try sandbox.dump().first { ($0["id"] as? Int) == Int(deviceID) }
        let params = (device?["info"] as? [String: Any])?["params"] as? [String: Any]
        return ((params?["Route"] as? [[String: Any]]) ?? []).map { route in
            DumpedRoute(index: route["index"] as? Int ?? -1, device: route["device"] as? Int ?? -1,
                        name: route["name"] as? String ?? "", available: route["available"] as? String ?? "")
        }.sorted { ($0.device, $0.index) < ($1.device, $1.index) }
    }

    struct DumpedRoute: Equatable, CustomStringConvertible {
        var index: Int, device: Int, name: String, available: String
        init(index: Int, device: Int, name: String, available: String) {
            self.index = index; self.device = device; self.name = name; self.available = available
        }
        init(_ route: Graph.Route) {
            self.init(index: Int(route.index), device: Int(route.device), name: route.name, available: route.available.rawValue)
        }
        var description: String { "\(name)#\(index)@\(device) available \(available)" }
    }

    deinit { process.stop() }
}

enum TestCardError: Error, CustomStringConvertible {
    case notReady(output: String)
    case notMirrored
    var description: String {
        switch self {
        case .notReady(let output): "pw-policy-test-card did not get ready; it printed:\n\(output)"
        case .notMirrored: "the test card's device or sink never appeared in the mirror"
        }
    }
}

extension AgentScene {
    /// The test card on this scene's sandbox, once WirePlumber has picked
    /// its headphones port (the best available one).
    func cardOnItsHeadphones(sourceLocation: SourceLocation = #_sourceLocation) throws -> TestCard {
        let card = try TestCard(sandbox: sandbox, client: client)
        #expect(client.wait { card.routes(in: $0) == [DeviceRouteTests.headphones(.yes)] },
                "routes \(card.routes(in: client.graph))", sourceLocation: sourceLocation)
        return card
    }
}
