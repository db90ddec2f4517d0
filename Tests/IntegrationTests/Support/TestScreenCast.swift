import Foundation
import PolicyCore
import PolicyTestSupport

/// `pw-policy-test-screencast` on a sandbox: GNOME Shell's screen-cast
/// stream (`source`) or an app receiving one as libwebrtc does
/// (`consume`), with the properties and calls of the real programs
/// (Tests/TestScreenCast/main.c, docs/POLICY.md, "Presenting"). It runs
/// until stopped; its stdin is a pipe, so it also ends with the test.
final class TestScreenCast {
    static var binary: String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("pw-policy-test-screencast").path
    }

    enum Role {
        case source
        case consumer(of: UInt32)
        var arguments: [String] {
            switch self {
            case .source: ["source"]
            case .consumer(let node): ["consume", String(node)]
            }
        }
    }

    let process: ChildProcess
    let outputPath: String
    /// Its stream's node.
    let nodeID: UInt32

    /// Starts it and waits until its node exists and `client` mirrors it
    /// with all its properties (the node's info, not only the registry's).
    init(_ role: Role, sandbox: Sandbox, client: TestClient) throws {
        let outputPath = sandbox.path("screencast-\(UUID().uuidString).out")
        let process = try ChildProcess([TestScreenCast.binary, "-r", sandbox.remote] + role.arguments,
                                             environment: sandbox.environment, input: true,
                                             stdout: outputPath, stderr: outputPath + ".err")
        self.outputPath = outputPath
        self.process = process
        var node: UInt32?
        client.wait(timeout: 10) { _ in
            node = Self.readyNode(in: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
            return node != nil || !process.isRunning
        }
        guard let node, client.wait(until: { $0.nodes[node]?.hasInfo == true && $0.nodes[node]?.props["media.name"] != nil }) else {
            throw RealClientError.notReady("pw-policy-test-screencast \(role.arguments.joined(separator: " "))",
                                           details: ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
                                               + ((try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? ""))
        }
        nodeID = node
    }

    /// What it printed: "ready node ID", then its stream's states.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    private static func readyNode(in output: String) -> UInt32? {
        for line in output.split(separator: "\n") where line.hasPrefix("ready node ") {
            return UInt32(line.dropFirst("ready node ".count))
        }
        return nil
    }

    func stop() { process.stop() }
    deinit { stop() }
}
