/// Copies out of the graph what the classifier needs for every audio stream:
/// its properties, its client's, the user's override and whether its app
/// instance streams the other way at the same time. Pure.
public func makeStreamFacts(graph: Graph, overrides: OverrideTable) -> [StreamFacts] {
    let streams = graph.streams.filter(\.hasInfo).map { node in
        let clientProps = node.clientID.flatMap { graph.clients[$0]?.props } ?? [:]
        return (node: node, direction: node.streamDirection ?? .playback, clientProps: clientProps,
                instance: AppIdentity.instanceKey(nodeProps: node.props, clientProps: clientProps))
    }

    // Which instances have a running stream that could be one side of a call,
    // per direction. Event sounds and meters do not count: a recorder that
    // clicks, or a mixer app with a level meter, is not on a call.
    var runningCallSides: [StreamDirection: Set<String>] = [:]
    for stream in streams where stream.node.state == .running {
        let props = StreamProperties(node: stream.node.props, client: stream.clientProps)
        if RoleInference.isStandaloneSound(props, direction: stream.direction) { continue }
        if RoleInference.meterOrPlumbing(props, direction: stream.direction) != nil { continue }
        runningCallSides[stream.direction, default: []].insert(stream.instance)
    }

    return streams.map { stream in
        let other: StreamDirection = stream.direction == .playback ? .capture : .playback
        let appKey = AppIdentity.overrideKey(nodeProps: stream.node.props, clientProps: stream.clientProps)
        return StreamFacts(
            nodeID: stream.node.id, direction: stream.direction, nodeProps: stream.node.props,
            clientProps: stream.clientProps,
            override: overrides.override(nodeID: stream.node.id, appKey: appKey),
            appAlsoStreamsOtherDirection: runningCallSides[other]?.contains(stream.instance) ?? false)
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
    var result: [UInt32: ClassifiedStream] = [:]
    for facts in makeStreamFacts(graph: graph, overrides: overrides) {
        let appKey = AppIdentity.overrideKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps)
        let scope = overrides.lookup(nodeID: facts.nodeID, appKey: appKey)?.scope
        let classification = classifier.classify(facts, overrideScope: scope)
        result[facts.nodeID] = ClassifiedStream(
            facts: facts, classification: classification,
            session: AppIdentity.sessionKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps,
                                            category: classification.category),
            appKey: appKey,
            appName: AppIdentity.displayName(nodeProps: facts.nodeProps, clientProps: facts.clientProps))
    }
    return result
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
}
