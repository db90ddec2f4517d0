import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// One headphones sink disappearing under a playing stream, as the observer
/// saw it (monotonic seconds).
struct HoldSample {
    /// The sink started going away: the first global_remove of the sink,
    /// its ports or the stream's links to it (the daemon removes the links
    /// and ports first, the node up to a graph cycle later).
    var removed: Double?
    /// The stream's Props volume reached 0: our hold, silence first.
    var silenced: Double?
    /// WirePlumber linked the stream elsewhere (the speakers): its reaction.
    var relinked: Double?
    /// That link went active: from here audio could leak to the speakers.
    var relinkActive: Double?
    /// The agent destroyed WirePlumber's new link.
    var unlinked: Double?
    /// The first of the stream's links to the sink went: what WirePlumber
    /// relinks on. And the first of the sink's ports (or the sink) went:
    /// what the agent holds on (an output without ports is gone).
    var streamUnlinked: Double?
    var sinkPortsGoing: Double?

    var ours: Double? { diff(silenced, removed) }
    var wirePlumber: Double? { diff(relinked, removed) }
    var unlinkedAfter: Double? { diff(unlinked, removed) }
    /// How long after the stream's link the sink's ports started to go.
    var portsAfterLink: Double? { diff(sinkPortsGoing, streamUnlinked) }
    /// Whether WirePlumber's link went active before the gain was 0.
    var leaked: Bool {
        guard let relinkActive else { return false }
        return silenced.map { relinkActive < $0 } ?? true
    }
}

/// A stream plays on a private sink ("headphones"); the sink goes away.
/// WirePlumber moves the stream to the default sink; the agent holds it.
enum HoldRun {
    static func run(scene: Scene, events: Int, label: String, progress: (Int) -> Void) -> [HoldSample] {
        let observer = scene.observer
        var samples: [HoldSample] = []
        for event in 0..<events {
            let sinkName = "hp-\(label)-\(event)"
            let id = "hold-\(label)-\(event)"
            let name = Scene.nodeName(id)
            scene.load.send([
                "sink \(sinkName) device.form-factor=headphones device.bus=usb priority.session=100 priority.driver=100",
                // One app name per event: WirePlumber's restore-stream would
                // give the next stream of the same app the held one's gain 0.
                "play \(id) application.name=bench-holder-\(event) application.process.id=\(4_000_000 + event) "
                    + "target.object=\(sinkName)",
            ])
            // Ready once the agent has seen it play there (its published
            // status says so): only a stream that was playing is held.
            let ready = observer.wait(timeout: 10) {
                guard let stream = observer.node(named: name), let node = observer.graph.nodes[stream],
                      node.state == .running, node.volume == 1,
                      let json = observer.graph.metadata(named: AgentProtocol.metadataName)?
                        .value(subject: stream, key: AgentProtocol.streamKey),
                      let status = try? JSONDecoder().decode(StreamStatus.self, from: Data(json.utf8))
                else { return false }
                return status.state == "running" && status.output == sinkName
            }
            guard ready, let sink = observer.node(named: sinkName), let stream = observer.node(named: name) else {
                scene.load.send(["stop \(id)", "unsink \(sinkName)"])
                continue
            }
            var sample = HoldSample()
            var newLink: UInt32?
            var sinkPorts = Set(observer.graph.ports.values.filter { $0.nodeID == sink }.map(\.id))
            sinkPorts.insert(sink)
            let streamLinks = Set(observer.graph.links(from: stream).map(\.id))
            let sinkObjects = sinkPorts.union(streamLinks)
            observer.onEvent = { change, time in
                let graph = observer.graph
                switch change {
                case .removed(let object):
                    if sample.removed == nil, sinkObjects.contains(object) { sample.removed = time }
                    if sample.streamUnlinked == nil, streamLinks.contains(object) { sample.streamUnlinked = time }
                    if sample.sinkPortsGoing == nil, sinkPorts.contains(object) { sample.sinkPortsGoing = time }
                    if object == newLink, sample.unlinked == nil { sample.unlinked = time }
                case .added(let object):
                    if sample.removed != nil, newLink == nil, graph.links[object]?.outputNode == stream {
                        newLink = object
                        sample.relinked = time
                    }
                case .linkState(let object, _, let state):
                    if object == newLink, sample.relinkActive == nil, state == .active {
                        sample.relinkActive = time
                    }
                case .props(let object):
                    if object == stream, sample.removed != nil, sample.silenced == nil,
                       (graph.nodes[object]?.volume ?? 1) < 0.001 {
                        sample.silenced = time
                    }
                case .info, .metadata:
                    break
                }
            }
            scene.load.send(["unsink \(sinkName)"])
            // Done once silenced and WirePlumber's link (if any came) is gone again.
            observer.wait(timeout: 5) {
                sample.silenced != nil && sample.relinked != nil && sample.unlinked != nil
            }
            observer.onEvent = nil
            scene.load.send(["stop \(id)"])
            observer.wait(timeout: 10) { observer.node(named: name) == nil }
            samples.append(sample)
            progress(event + 1)
        }
        return samples
    }
}
