import Foundation
import PolicyCore

/// A microphone for the sandbox, which has no hardware: a virtual source
/// made the default one the way a person picks it (WirePlumber's
/// `default.configured.audio.source`), so that clients capturing "the
/// microphone" — Chromium's getUserMedia, parecord — capture it. Without
/// it WirePlumber 0.4.13 makes the speakers' monitor the default source.
enum VirtualMicrophone {
    static let name = "mic"

    static func create(in sandbox: Sandbox, client: TestClient) throws {
        let created = try client.run(["pw-cli", "create-node", "adapter",
                                      "{ factory.name=support.null-audio-sink node.name=\(name) node.description=Microphone media.class=Audio/Source/Virtual audio.position=[ FL FR ] audio.rate=48000 object.linger=true }"],
                                     in: sandbox)
        guard created.status == 0 else { throw RealClientError.notReady("the virtual microphone", details: created.stderr) }
        guard client.wait(until: { graph in graph.nodes.values.contains { $0.name == name } }) else {
            throw RealClientError.notReady("the virtual microphone", details: "no node '\(name)' appeared")
        }
        let chosen = try client.run(["pw-metadata", "0", "default.configured.audio.source", "{ \"name\": \"\(name)\" }",
                                     "Spa:String:JSON"], in: sandbox)
        guard chosen.status == 0 else { throw RealClientError.notReady("the virtual microphone", details: chosen.stderr) }
        // Through new clients: WirePlumber exports "default", and the client
        // that stays bound may miss its change (TestClient.freshRead).
        let isDefault = sandbox.wait(timeout: 10) {
            (try? TestClient.freshRead(sandbox) { graph in
                graph.metadata(named: "default")?.value(subject: 0, key: "default.audio.source")?.contains("\"\(name)\"") == true
            }) == true
        }
        guard isDefault else {
            throw RealClientError.notReady("the virtual microphone",
                                           details: "WirePlumber did not make it the default source")
        }
    }
}
