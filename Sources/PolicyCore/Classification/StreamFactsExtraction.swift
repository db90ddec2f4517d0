/// Copies out of the graph what the classifier needs for every audio stream:
/// its properties, its client's, the user's override and whether its app
/// instance streams the other way at the same time. Pure.
public func makeStreamFacts(graph: Graph, overrides: OverrideTable) -> [StreamFacts] {
    var known: [UInt32: StreamPropertyFacts] = [:]
    return makeStreamFacts(graph: graph, overrides: overrides, known: &known)
}

/// What `makeStreamFacts` derives from one stream's properties alone: the
/// costly part (identity and inference lookups), kept while they stay the same.
public struct StreamPropertyFacts: Sendable {
    var nodeProps: [String: String]
    var clientProps: [String: String]
    var direction: StreamDirection
    var instance: String
    var appKey: String
    /// Could be one side of a call while it runs. Event sounds, meters and
    /// captures of what plays cannot: a recorder that clicks, a mixer app
    /// with a level meter, a screen recording is not on a call.
    var mayBeCallSide: Bool
    /// The stream was seen running (kept when its properties change): one
    /// that ran and stopped is no longer its call's side; one that never
    /// ran is opening.
    var ranOnce = false

    init(nodeProps: [String: String], clientProps: [String: String], direction: StreamDirection) {
        self.nodeProps = nodeProps
        self.clientProps = clientProps
        self.direction = direction
        instance = AppIdentity.instanceKey(nodeProps: nodeProps, clientProps: clientProps)
        appKey = AppIdentity.overrideKey(nodeProps: nodeProps, clientProps: clientProps)
        let props = StreamProperties(node: nodeProps, client: clientProps)
        mayBeCallSide = !RoleInference.isStandaloneSound(props, direction: direction)
            && RoleInference.meterOrPlumbing(props, direction: direction) == nil
    }

    func describes(nodeProps: [String: String], clientProps: [String: String], direction: StreamDirection) -> Bool {
        self.direction == direction && self.nodeProps == nodeProps && self.clientProps == clientProps
    }
}

/// `makeStreamFacts` reusing `known` (by node id) where a stream's
/// properties did not change, and leaving there what it found this time
/// (and which streams were seen running). `apps` is what the desktop knows
/// of each client's app, by client id (`AppFacts`, found by the adapter;
/// docs/CLASSIFICATION.md, "App knowledge").
public func makeStreamFacts(graph: Graph, overrides: OverrideTable,
                            known: inout [UInt32: StreamPropertyFacts],
                            apps: [UInt32: AppFacts] = [:], declarations: [UInt32: AppDeclaration] = [:]) -> [StreamFacts] {
    var found: [UInt32: StreamPropertyFacts] = [:]
    let streams = graph.streams.filter(\.hasInfo).map { node -> (node: Graph.Node, facts: StreamPropertyFacts) in
        let clientProps = node.clientID.flatMap { graph.clients[$0]?.props } ?? [:]
        let direction = node.streamDirection ?? .playback
        let before = known[node.id]
        var facts = before.flatMap {
            $0.describes(nodeProps: node.props, clientProps: clientProps, direction: direction) ? $0 : nil
        } ?? StreamPropertyFacts(nodeProps: node.props, clientProps: clientProps, direction: direction)
        facts.ranOnce = (before?.ranOnce ?? false) || node.state == .running
        found[node.id] = facts
        return (node, facts)
    }

    // One judgement per app instance: what its other streams do.
    let members = streams.map { stream in
        InstanceMember(nodeID: stream.node.id, instance: stream.facts.instance, direction: stream.facts.direction,
                       state: stream.node.state, name: stream.node.props["media.name"] ?? stream.node.name,
                       corked: stream.node.props["pulse.corked"] == "true", mayBeCallSide: stream.facts.mayBeCallSide)
    }
    let videoCaptures = graph.nodes.values.filter { $0.mediaClass == "Stream/Input/Video" && !$0.isAgentsOwn }.map { node in
        (nodeID: node.id,
         instance: AppIdentity.instanceKey(nodeProps: node.props,
                                           clientProps: node.clientID.flatMap { graph.clients[$0]?.props } ?? [:]),
         name: node.props["media.name"] ?? node.name)
    }
    let instances = InstanceFacts.of(members, videoCaptures: videoCaptures,
                                     ranBefore: { known[$0]?.ranOnce ?? false })
    known = found

    return streams.map { stream in
        var facts = StreamFacts(
            nodeID: stream.node.id, direction: stream.facts.direction, nodeProps: stream.node.props,
            clientProps: stream.facts.clientProps,
            override: overrides.override(nodeID: stream.node.id, appKey: stream.facts.appKey),
            instance: instances[stream.node.id] ?? .alone,
            app: stream.node.clientID.flatMap { apps[$0] })
        facts.declared = declarations.isEmpty ? nil : declarations[stream.node.id]
        return facts
    }
}

/// A stream with its classification and what the engine needs to group it.
public struct ClassifiedStream: Sendable, Equatable {
    public var facts: StreamFacts
    public var classification: Classification
    /// Its app instance and category (`AppIdentity.sessionKey`).
    public var session: SessionKey
    /// Where per-app overrides of this stream are stored (`AppIdentity.overrideKey`).
    public var appKey: String
    /// A name for people (`AppIdentity.displayName`).
    public var appName: String
}

/// Classifies every audio stream of the graph, by node id.
public func classifyAll(graph: Graph, overrides: OverrideTable, classifier: Classifier) -> [UInt32: ClassifiedStream] {
    var cache = ClassificationCache(classifier: classifier)
    return cache.classifyAll(graph: graph, overrides: overrides)
}

/// A stream's node properties over its client's, as the identity and
/// inference code reads them. Empty values count as absent.
struct StreamProperties {
    var node: [String: String]
    var client: [String: String]

    subscript(key: String) -> String? {
        // The server writes `pipewire.*` on the client; an app can write
        // anything on its own node, so for those keys the client is trusted first.
        let serverSet = key.hasPrefix("pipewire.")
        return Self.present((serverSet ? client : node)[key]) ?? Self.present((serverSet ? node : client)[key])
    }

    private static func present(_ value: String?) -> String? {
        guard let value, !value.classifierTrimmed().isEmpty else { return nil }
        return value
    }

    /// PipeWire's reading of a boolean property (spa_atob): "true" or "1".
    func isTrue(_ key: String) -> Bool {
        guard let value = self[key]?.classifierTrimmed().lowercased() else { return false }
        return value == "true" || value == "1"
    }

    /// All keys, node's and client's, sorted so that reasons are deterministic.
    var keys: [String] { Set(node.keys).union(client.keys).sorted() }

    /// The first key (in `keys` order) that starts with `prefix`, without
    /// sorting every key.
    func firstKey(withPrefix prefix: String) -> String? {
        (node.keys.filter { $0.hasPrefix(prefix) } + client.keys.filter { $0.hasPrefix(prefix) }).min()
    }
}
