/// What a runtime override (`pw-policy set`) was set on.
public enum OverrideScope: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// One stream node, for as long as it lives.
    case node(UInt32)
    /// Every stream of an application, across restarts: keyed by
    /// `AppIdentity.overrideKey`.
    case app(String)

    public var description: String {
        switch self {
        case .node(let id): "stream \(id)"
        case .app(let key): "app \"\(key)\""
        }
    }
}

/// The user's runtime overrides. A stream's own override beats its app's:
/// the narrower choice is the more deliberate one.
public struct OverrideTable: Sendable, Equatable, Codable {
    public var byNode: [UInt32: ClassificationOverride]
    public var byApp: [String: ClassificationOverride]

    public init(byNode: [UInt32: ClassificationOverride] = [:], byApp: [String: ClassificationOverride] = [:]) {
        self.byNode = byNode; self.byApp = byApp
    }

    public static let empty = OverrideTable()

    public var isEmpty: Bool { byNode.isEmpty && byApp.isEmpty }

    public func override(nodeID: UInt32, appKey: String) -> ClassificationOverride? {
        lookup(nodeID: nodeID, appKey: appKey)?.override
    }

    /// The override that applies and what it was set on.
    public func lookup(nodeID: UInt32, appKey: String) -> (override: ClassificationOverride, scope: OverrideScope)? {
        if let override = byNode[nodeID] { return (override, .node(nodeID)) }
        if let override = byApp[appKey] { return (override, .app(appKey)) }
        return nil
    }

    // Node ids are written as string keys: a JSON object reads better in the
    // persisted state than the flat key/value array Swift uses for UInt32 keys.
    private enum CodingKeys: String, CodingKey { case byNode = "nodes", byApp = "apps" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let nodes = try container.decodeIfPresent([String: ClassificationOverride].self, forKey: .byNode) ?? [:]
        var byNode: [UInt32: ClassificationOverride] = [:]
        for (key, override) in nodes {
            guard let id = UInt32(key) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .byNode, in: container,
                    debugDescription: "override key \"\(key)\" is not a node id (an unsigned 32-bit number)")
            }
            byNode[id] = override
        }
        self.byNode = byNode
        self.byApp = try container.decodeIfPresent([String: ClassificationOverride].self, forKey: .byApp) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let nodes = Dictionary(uniqueKeysWithValues: byNode.map { (String($0.key), $0.value) })
        try container.encode(nodes, forKey: .byNode)
        try container.encode(byApp, forKey: .byApp)
    }
}
