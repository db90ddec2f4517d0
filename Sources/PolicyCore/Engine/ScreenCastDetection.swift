/// Which nodes are screen casts, read off the graph. A screen cast is a
/// video stream a compositor (or its portal backend) offers: a node of media
/// class `Stream/Output/Video` (a pw_stream output of video with no class of
/// its own: mutter, KWin) or `Video/Source` (xdg-desktop-portal-wlr sets it),
/// that belongs to no device (cameras do), whose stream name (`media.name`,
/// the name given to pw_stream_new) or `node.name` begins with the name a
/// known implementation gives it. It is shared while at least one link
/// leads from it to another node: a cast whose consumer is gone, or not yet
/// there, shares nothing. A link in error, or to one of the agent's own
/// nodes, does not count.
public enum ScreenCastDetection {
    /// The names the compositors give their screen-cast streams, as their
    /// sources set them (docs/POLICY.md, "Presenting", has where).
    public static let knownStreams: [(prefix: String, implementation: String)] = [
        ("meta-screen-cast-src", "GNOME Shell"),
        ("kwin-screencast-", "KWin"),
        ("xdpw-stream", "xdg-desktop-portal-wlr"),
    ]

    static let videoSourceClasses: Set<String> = ["Stream/Output/Video", "Video/Source"]

    /// Who makes the node's screen cast, or nil when it is none.
    public static func implementation(of node: Graph.Node) -> String? {
        guard let mediaClass = node.mediaClass, videoSourceClasses.contains(mediaClass),
              node.deviceID == nil, !node.isAgentsOwn else { return nil }
        let names = [node.props["media.name"], node.name].compactMap { $0 }
        for known in knownStreams where names.contains(where: { $0.hasPrefix(known.prefix) }) {
            return known.implementation
        }
        return nil
    }

    /// Every screen cast that is shared now, by node id.
    public static func casts(in graph: Graph) -> [ScreenCast] {
        var casts: [ScreenCast] = []
        for (id, node) in graph.nodes {
            guard let implementation = implementation(of: node) else { continue }
            var consumers = Set<UInt32>()
            for link in graph.links.values where link.outputNode == id && !link.state.failed {
                guard link.inputNode != id, let consumer = graph.nodes[link.inputNode], !consumer.isAgentsOwn else { continue }
                consumers.insert(link.inputNode)
            }
            if !consumers.isEmpty {
                casts.append(ScreenCast(node: id, implementation: implementation, consumers: consumers.sorted()))
            }
        }
        return casts.sorted { $0.node < $1.node }
    }
}
