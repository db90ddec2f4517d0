import Foundation

/// What the agent must remember across restarts and crashes, written
/// atomically under `$XDG_STATE_HOME/pw-policy/` whenever it changes:
/// the user's settings (silent mode, persistent app overrides) and every
/// change it made to a stream, so the next start can undo or re-apply them
/// even after SIGKILL.
public struct AgentJournal: Codable, Sendable, Equatable {
    public var version: Int = 1
    public var silentMode: Bool = false
    /// `pw-policy set --app … --persist`, by app key.
    public var appOverrides: [String: AppOverrideRequest] = [:]
    /// Streams we changed, by node id (with their serial, ids are reused).
    public var applied: [UInt32: AppliedStream] = [:]
    /// The engine's memory (interruptions in progress, where streams played).
    public var memory: EngineMemory = .empty

    public init() {}

    /// `$XDG_STATE_HOME/pw-policy/state.json`, else `~/.local/state/pw-policy/state.json`.
    /// Empty or relative values count as unset (the XDG base directory spec).
    public static func path(environment: [String: String]) -> String {
        func absolute(_ key: String) -> String? { environment[key].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let base = absolute("XDG_STATE_HOME") ?? ((absolute("HOME") ?? "/tmp") + "/.local/state")
        return base + "/pw-policy/state.json"
    }

    public static func load(from path: String) throws -> AgentJournal? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(AgentJournal.self, from: data)
    }

    /// Writes to a temporary file and renames it over the old one, so a crash
    /// leaves either the old or the new journal, never half of one.
    public func save(to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
