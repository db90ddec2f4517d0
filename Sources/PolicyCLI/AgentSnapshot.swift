import Foundation
import PolicyCore

/// Everything the agent publishes in its `pw-policy` metadata, decoded. Built
/// from the metadata as the CLI's graph mirror sees it; `nil` metadata means
/// the agent is not running. Values that do not decode are reported in
/// `problems` rather than failing the command: a newer agent must not make
/// `status` unusable.
public struct AgentSnapshot: Sendable, Equatable {
    public var isRunning: Bool
    public var agent: AgentStatus?
    public var outputs: [OutputStatus]?
    /// By stream node id.
    public var streams: [UInt32: StreamStatus]
    /// The value at `pw-policy.silent-mode` (the agent echoes the effective one).
    public var silentModeRequest: Bool?
    /// By app key.
    public var appOverrides: [String: AppOverrideRequest]
    /// Streams that carry their own override (`policy.category` at their subject).
    public var nodeOverrides: [UInt32: NodeOverride]
    /// Streams with a resume request the agent has not handled yet.
    public var pendingResumes: Set<UInt32>
    public var lastEvent: EventRecord?
    public var problems: [String]

    /// The raw values of a per-stream override.
    public struct NodeOverride: Sendable, Equatable {
        public var category: String?
        public var options: String?
        public var mode: String?
        public init(category: String? = nil, options: String? = nil, mode: String? = nil) {
            self.category = category; self.options = options; self.mode = mode
        }
    }

    public init(metadata: Graph.Metadata?) {
        isRunning = metadata != nil
        agent = nil; outputs = nil; streams = [:]; silentModeRequest = nil
        appOverrides = [:]; nodeOverrides = [:]; pendingResumes = []; lastEvent = nil; problems = []
        guard let metadata else { return }
        for (subject, entries) in metadata.entries.sorted(by: { $0.key < $1.key }) {
            if subject == 0 {
                readGlobal(entries)
            } else {
                readStream(subject, entries)
            }
        }
    }

    /// Silent mode as the agent applies it.
    public var silentMode: Bool? { agent?.silentMode ?? silentModeRequest }

    private mutating func readGlobal(_ entries: [String: Graph.MetadataEntry]) {
        for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
            switch key {
            case AgentProtocol.agentKey: agent = decode(AgentStatus.self, entry)
            case AgentProtocol.outputsKey: outputs = decode([OutputStatus].self, entry)
            case AgentProtocol.eventKey: lastEvent = decode(EventRecord.self, entry)
            case AgentProtocol.silentModeKey: silentModeRequest = AgentSnapshot.parseBool(entry.value)
            default:
                guard key.hasPrefix(AgentProtocol.appOverridePrefix) else { continue }
                let appKey = String(key.dropFirst(AgentProtocol.appOverridePrefix.count))
                if let request = decode(AppOverrideRequest.self, entry) { appOverrides[appKey] = request }
            }
        }
    }

    private mutating func readStream(_ id: UInt32, _ entries: [String: Graph.MetadataEntry]) {
        if let entry = entries[AgentProtocol.streamKey], var status = decode(StreamStatus.self, entry) {
            status.id = id
            streams[id] = status
        }
        let override = NodeOverride(category: entries[AgentProtocol.categoryKey]?.value,
                                    options: entries[AgentProtocol.optionsKey]?.value,
                                    mode: entries[AgentProtocol.modeKey]?.value)
        if override != NodeOverride() { nodeOverrides[id] = override }
        if entries[AgentProtocol.resumeKey] != nil { pendingResumes.insert(id) }
    }

    private mutating func decode<T: Decodable>(_ type: T.Type, _ entry: Graph.MetadataEntry) -> T? {
        do {
            return try JSONDecoder().decode(T.self, from: Data(entry.value.utf8))
        } catch {
            problems.append("cannot read \(entry.key) of subject \(entry.subject): \(Self.describe(error))")
            return nil
        }
    }

    static func parseBool(_ raw: String) -> Bool? {
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "on", "1": true
        case "false", "off", "0": false
        default: nil
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted: "not JSON"
        default: "\(error)"
        }
    }
}
