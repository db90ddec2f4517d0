@testable import PolicyCore

/// A classified stream as `classifyAll` would produce it.
func testClassified(_ id: UInt32, category: Category = .playback, direction: StreamDirection = .playback,
                    exempt: Bool = false, app: String = "app", options: Set<PolicyOption> = [],
                    warnings: [String] = []) -> ClassifiedStream {
    ClassifiedStream(
        facts: StreamFacts(nodeID: id, direction: direction, nodeProps: [:]),
        classification: Classification(category: category, options: options, exempt: exempt, source: .rule,
                                       reason: "test rule", warnings: warnings),
        session: SessionKey("\(app):\(category.rawValue)"), appKey: "app:\(app)", appName: app)
}
