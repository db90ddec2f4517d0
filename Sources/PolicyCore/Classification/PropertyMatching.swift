#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A compiled POSIX extended regular expression, the dialect PipeWire and
/// WirePlumber use for `~pattern` rule values, so a rule behaves here as it
/// would in their configs.
public final class POSIXRegex: @unchecked Sendable {
    // regex_t is only read by regexec after compilation, which POSIX allows
    // from several threads at once.
    private var compiled = regex_t()
    public let pattern: String

    public struct CompileError: Error, Equatable, CustomStringConvertible {
        public var pattern: String
        public var message: String
        public var description: String { "invalid regular expression '\(pattern)': \(message)" }
    }

    public init(_ pattern: String) throws(CompileError) {
        self.pattern = pattern
        let status = regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB)
        guard status == 0 else {
            var buffer = [CChar](repeating: 0, count: 256)
            regerror(status, &compiled, &buffer, buffer.count)
            let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CompileError(pattern: pattern, message: message)
        }
    }

    deinit { regfree(&compiled) }

    public func matches(_ string: String) -> Bool {
        regexec(&compiled, string, 0, nil, 0) == 0
    }
}

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
