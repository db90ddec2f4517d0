/// Evaluates PipeWire-style `matches` lists against a property dictionary,
/// compiling each regex once.
public struct PropertyMatcher: Sendable {
    private enum Condition: Sendable {
        case equals(String)
        case regex(POSIXRegex)
        case absent
    }
    private let alternatives: [[(key: String, condition: Condition)]]

    /// Fails on the first pattern that does not compile.
    public init(_ matches: [[String: PropertyMatch]]) throws(POSIXRegex.CompileError) {
        var alternatives: [[(key: String, condition: Condition)]] = []
        for entry in matches {
            var conditions: [(key: String, condition: Condition)] = []
            for (key, match) in entry.sorted(by: { $0.key < $1.key }) {
                switch match {
                case .equals(let value): conditions.append((key, .equals(value)))
                case .absent: conditions.append((key, .absent))
                case .regex(let pattern): conditions.append((key, .regex(try POSIXRegex(pattern))))
                }
            }
            alternatives.append(conditions)
        }
        self.alternatives = alternatives
    }

    /// True when any entry matches; an entry matches when all its keys do.
    public func matches(_ props: [String: String]) -> Bool {
        firstMatchingEntry(props) != nil
    }

    /// The first entry that matched, rendered as `key = "value"` pairs, for explanations.
    public func describeMatch(_ props: [String: String]) -> String? {
        firstMatchingEntry(props)?.map { key, condition in
            if case .absent = condition { return "\(key) = null" }
            return "\(key) = \"\(props[key] ?? "")\""
        }.joined(separator: ", ")
    }

    private func firstMatchingEntry(_ props: [String: String]) -> [(key: String, condition: Condition)]? {
        alternatives.first { entry in
            entry.allSatisfy { key, condition in
                let value = props[key]
                switch condition {
                case .absent: return value == nil
                case .equals(let expected): return value == expected
                case .regex(let regex): return value.map(regex.matches) ?? false
                }
            }
        }
    }
}
