import Foundation
import PolicyCore

/// The `--json` output: like pw-dump, an array of objects with `id`, `type`
/// and `info`. `info` holds the AgentProtocol struct as the agent publishes
/// it, so scripts can rely on docs/PROTOCOL.md and docs/CLI.md.
public enum CLIJSON {
    public static let agentType = "PwPolicy:Agent"
    public static let outputType = "PwPolicy:Output"
    public static let streamType = "PwPolicy:Stream"
    public static let eventType = "PwPolicy:Event"
    public static let overrideType = "PwPolicy:AppOverride"

    /// One object of the array.
    public struct Entry: Encodable {
        public var id: UInt32
        public var type: String
        public var info: any Encodable

        public init(id: UInt32, type: String, info: any Encodable) {
            self.id = id; self.type = type; self.info = info
        }

        enum CodingKeys: String, CodingKey { case id, type, info }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(type, forKey: .type)
            try container.encode(info, forKey: .info)
        }
    }

    /// Pretty, with sorted keys: stable output that diffs well.
    public static func render(_ value: some Encodable) -> String {
        JSONLayout.pretty(line(value))
    }

    /// One line per value (JSON Lines), for `monitor --json`.
    public static func line(_ value: some Encodable) -> String {
        encode(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func encode(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            // Only non-encodable values could fail, and all of ours encode.
            return "{\"error\": \"cannot encode: \(error)\"}"
        }
    }
}

/// A stream's `info`: the agent's `StreamStatus` plus `effect` (the bracket
/// text of `status`) and, for `explain`, the properties rules see. Without
/// the agent only what the graph knows: id, app, appKey, direction, state.
struct StreamInfo: Encodable {
    var candidate: StreamCandidate
    var includeProps: Bool

    enum Keys: String, CodingKey { case id, app, appKey, direction, state, effect, props, overrides }

    func encode(to encoder: Encoder) throws {
        if let status = candidate.status {
            try status.encode(to: encoder)
        }
        var container = encoder.container(keyedBy: Keys.self)
        if candidate.status == nil {
            try container.encode(candidate.id, forKey: .id)
            try container.encode(candidate.app, forKey: .app)
            try container.encode(candidate.appKey, forKey: .appKey)
            try container.encode(candidate.direction.rawValue, forKey: .direction)
            try container.encode(candidate.state, forKey: .state)
        } else {
            try container.encode(candidate.status.flatMap(PolicyEffect.of)?.text, forKey: .effect)
        }
        if includeProps { try container.encode(candidate.props, forKey: .props) }
    }
}

/// The agent's `info`: whether it runs and on which remote, with its
/// published `AgentStatus` fields when it does. `stack` always: the agent's,
/// else what the CLI found.
struct AgentInfo: Encodable {
    var remote: String
    var snapshot: AgentSnapshot
    var stack: StackStatus?

    enum Keys: String, CodingKey { case running, remote, problems, stack }

    func encode(to encoder: Encoder) throws {
        if let agent = snapshot.agent { try agent.encode(to: encoder) }
        var container = encoder.container(keyedBy: Keys.self)
        if snapshot.agent?.stack == nil, let stack { try container.encode(stack, forKey: .stack) }
        try container.encode(snapshot.isRunning, forKey: .running)
        try container.encode(remote, forKey: .remote)
        try container.encode(snapshot.problems, forKey: .problems)
    }
}
