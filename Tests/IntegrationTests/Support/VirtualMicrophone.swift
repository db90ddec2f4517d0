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
        // Read through a new client each time: WirePlumber exports "default",
        // and PipeWire does not forward an exported metadata's changes to a
        // client already bound while another one binds it (pw-metadata just
        // did), so a client that stays bound may never see the new default.
        let isDefault = sandbox.wait(timeout: 10) {
            guard let reader = try? TestClient(sandbox: sandbox) else { return false }
            defer { reader.mirror.finishMetadataBinds(roundTripTimeout: 2) }
            return reader.graph.metadata(named: "default")?.value(subject: 0, key: "default.audio.source")?
                .contains("\"\(name)\"") == true
        }
        guard isDefault else {
            throw RealClientError.notReady("the virtual microphone",
                                           details: "WirePlumber did not make it the default source")
        }
    }
}
