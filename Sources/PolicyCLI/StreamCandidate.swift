import PolicyCore

/// An audio stream as the CLI can name it: what the graph says about it,
/// plus what the agent published if it runs. Streams come from the graph, so
/// `status`, `explain` and name resolution work without the agent.
public struct StreamCandidate: Sendable, Equatable {
    public var id: UInt32
    /// The name people see: the agent's, else `AppIdentity.displayName`.
    public var app: String
    /// The key app overrides are stored under (`AppIdentity.overrideKey`).
    public var appKey: String
    public var direction: StreamDirection
    public var state: String
    /// Node properties over client properties: what rules match against.
    public var props: [String: String]
    /// What the agent decided, nil when it is not running or has not published yet.
    public var status: StreamStatus?

    public init(id: UInt32, app: String, appKey: String, direction: StreamDirection, state: String,
                props: [String: String], status: StreamStatus? = nil) {
        self.id = id; self.app = app; self.appKey = appKey; self.direction = direction
        self.state = state; self.props = props; self.status = status
    }

    /// Every audio stream of the graph, by id.
    public static func all(in graph: Graph, snapshot: AgentSnapshot) -> [StreamCandidate] {
        graph.streams.compactMap { node in
            guard let direction = node.streamDirection else { return nil }
            let clientProps = node.clientID.flatMap { graph.clients[$0]?.props } ?? [:]
            let status = snapshot.streams[node.id]
            return StreamCandidate(
                id: node.id,
                app: status?.app ?? AppIdentity.displayName(nodeProps: node.props, clientProps: clientProps),
                appKey: status?.appKey ?? AppIdentity.overrideKey(nodeProps: node.props, clientProps: clientProps),
                direction: direction, state: node.state.rawValue,
                props: clientProps.merging(node.props) { _, node in node }, status: status)
        }
    }

    /// The names a user may call this stream by, most telling first.
    public var names: [String] {
        var result = [app]
        for key in ["application.name", "node.name", "application.process.binary", "media.name"] {
            if let value = props[key], !value.isEmpty { result.append(value) }
        }
        result.append(appKey)
        var seen = Set<String>()
        return result.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The names an app override may be given by.
    public var appNames: [String] {
        var result = [appKey, app]
        for key in ["application.name", "application.process.binary", "application.id", "pipewire.access.portal.app_id"] {
            if let value = props[key], !value.isEmpty { result.append(value) }
        }
        return result
    }

    /// `57 (Spotify, playback, running)`, for lists in messages.
    public var shortDescription: String {
        "\(id) (\(app), \(direction.rawValue), \(state))"
    }
}
