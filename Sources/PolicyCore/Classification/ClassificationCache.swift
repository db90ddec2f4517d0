/// `classifyAll` for an agent that classifies on every graph change:
/// classifying (rules, regexes, inference) is the costly part of a
/// reconcile, and a stream whose facts and override did not change keeps
/// its classification. A new config means a new cache.
public struct ClassificationCache: Sendable {
    private let classifier: Classifier
    /// What the last call returned: handed out as it is, so the caller's
    /// copy and the cache's are one storage (a ClassifiedStream is 0.7 KB).
    private var last: [UInt32: ClassifiedStream] = [:]
    /// The override scope each stream of `last` was classified under, when
    /// it had one.
    private var scopes: [UInt32: OverrideScope] = [:]
    private var properties: [UInt32: StreamPropertyFacts] = [:]

    public init(classifier: Classifier) {
        self.classifier = classifier
    }

    /// Every audio stream of the graph classified, by node id; `apps` is
    /// what the desktop knows of each client's app, by client id.
    /// `declarations`: what apps declared for their streams through their
    /// audio sessions, by node id (docs/API.md).
    public mutating func classifyAll(graph: Graph, overrides: OverrideTable, apps: [UInt32: AppFacts] = [:],
                                     declarations: [UInt32: AppDeclaration] = [:]) -> [UInt32: ClassifiedStream] {
        var next: [UInt32: ClassifiedStream] = [:], nextScopes: [UInt32: OverrideScope] = [:]
        next.reserveCapacity(last.count)
        for facts in makeStreamFacts(graph: graph, overrides: overrides, known: &properties, apps: apps,
                                     declarations: declarations) {
            let id = facts.nodeID
            if let known = last[id], known.facts == facts,
               scopes[id] == overrides.lookup(nodeID: id, appKey: known.appKey)?.scope {
                next[id] = known
                nextScopes[id] = scopes[id]
                continue
            }
            let appKey = AppIdentity.overrideKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps)
            let scope = overrides.lookup(nodeID: id, appKey: appKey)?.scope
            let classification = classifier.classify(facts, overrideScope: scope)
            next[id] = ClassifiedStream(
                facts: facts, classification: classification,
                session: facts.declared.map { SessionKey("\($0.instance)/\(classification.category.rawValue)") }
                    ?? AppIdentity.sessionKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps,
                                              category: classification.category),
                appKey: appKey,
                appName: AppIdentity.displayName(nodeProps: facts.nodeProps, clientProps: facts.clientProps))
            nextScopes[id] = scope
        }
        last = next
        scopes = nextScopes
        return next
    }
}
