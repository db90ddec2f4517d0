import Foundation
import PolicyCore

/// Renders the mirrored graph for `pw-policy dump`.
enum GraphDump {
    static func text(_ graph: Graph) -> String {
        var out = "Sinks:\n"
        for sink in graph.sinks {
            out += "  \(sink.id). \(sink.name ?? "?") [\(sink.state.rawValue)]\n"
        }
        out += "Streams:\n"
        for stream in graph.streams {
            let direction = stream.streamDirection == .playback ? "playback" : "capture"
            let app = stream.props["application.name"] ?? stream.name ?? "?"
            out += "  \(stream.id). \(app) (\(direction)) [\(stream.state.rawValue)]"
            if let role = stream.props["media.role"] { out += " role=\(role)" }
            out += "\n"
            let volume = stream.volume.map { String(format: "%.3f", $0) } ?? "?"
            let channels = stream.channelVolumes.map { String(format: "%.3f", $0) }.joined(separator: " ")
            out += "      volume \(volume)  channelVolumes [\(channels)]  mute \(stream.mute.map(String.init) ?? "?")\n"
            let peers = linkedPeers(graph, stream)
            out += "      linked to: \(peers.isEmpty ? "nothing" : peers.map { "\($0.id). \($0.name ?? "?")" }.joined(separator: ", "))\n"
            for key in stream.props.keys.sorted() {
                out += "      \(key) = \"\(stream.props[key]!)\"\n"
            }
        }
        return out
    }

    static func json(_ graph: Graph) -> String {
        var objects: [[String: Any]] = []
        for sink in graph.sinks {
            objects.append(["id": sink.id, "type": "PipeWire:Interface:Node",
                            "info": ["state": sink.state.rawValue, "props": sink.props]])
        }
        for stream in graph.streams {
            var params: [String: Any] = ["channelVolumes": stream.channelVolumes.map(Double.init)]
            if let volume = stream.volume { params["volume"] = Double(volume) }
            if let mute = stream.mute { params["mute"] = mute }
            objects.append([
                "id": stream.id, "type": "PipeWire:Interface:Node",
                "info": ["state": stream.state.rawValue, "props": stream.props, "params": ["Props": [params]]],
                "links": linkedPeers(graph, stream).map { ["id": $0.id, "name": $0.name ?? ""] as [String: Any] },
            ])
        }
        let data = try! JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The nodes on the other end of a stream's links.
    private static func linkedPeers(_ graph: Graph, _ node: Graph.Node) -> [Graph.Node] {
        let peerIDs = Set(graph.links(from: node.id).map(\.inputNode)).union(graph.links(to: node.id).map(\.outputNode))
        return peerIDs.sorted().compactMap { graph.nodes[$0] }
    }
}
