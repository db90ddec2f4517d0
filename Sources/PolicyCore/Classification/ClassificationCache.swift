/// `classifyAll` for an agent that classifies on every graph change:
/// classifying (rules, regexes, inference) is the costly part of a
/// reconcile, and a stream whose facts and override did not change keeps
/// its classification. A new config means a new cache.
public struct ClassificationCache: Sendable {
    private let classifier: Classifier
    private var last: [UInt32: (scope: OverrideScope?, stream: ClassifiedStream)] = [:]
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
        var next: [UInt32: (scope: OverrideScope?, stream: ClassifiedStream)] = [:]
        for facts in makeStreamFacts(graph: graph, overrides: overrides, known: &properties, apps: apps,
                                     declarations: declarations) {
            if let known = last[facts.nodeID], known.stream.facts == facts,
               known.scope == overrides.lookup(nodeID: facts.nodeID, appKey: known.stream.appKey)?.scope {
                next[facts.nodeID] = known
                continue
            }
            let appKey = AppIdentity.overrideKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps)
            let scope = overrides.lookup(nodeID: facts.nodeID, appKey: appKey)?.scope
            let classification = classifier.classify(facts, overrideScope: scope)
            next[facts.nodeID] = (scope, ClassifiedStream(
                facts: facts, classification: classification,
                session: facts.declared.map { SessionKey("\($0.instance)/\(classification.category.rawValue)") }
                    ?? AppIdentity.sessionKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps,
                                              category: classification.category),
                appKey: appKey,
                appName: AppIdentity.displayName(nodeProps: facts.nodeProps, clientProps: facts.clientProps)))
        }
        last = next
        return next.mapValues(\.stream)
    }
}
