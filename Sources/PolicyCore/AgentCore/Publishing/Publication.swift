/// What the agent last told this connection, so that a reconcile writes and
/// logs only what changed (most reconciles change few streams). A new
/// connection has a fresh agent metadata: it starts empty.
struct Publication: Sendable {
    /// Each stream's status entry as published.
    var streams: [UInt32: StreamStatus] = [:]
    /// The global entries as published: compared as values, so that they
    /// are encoded only when they changed, not on every publish.
    var agent: AgentStatus?
    var outputs: [OutputStatus]?
    /// Each stream's serial and classification as last reported.
    var streamSignatures: [UInt32: StreamSignature] = [:]
    /// What a "stream-classified" event reports: a new one when any of it changes.
    struct StreamSignature: Sendable, Equatable {
        var serial: UInt64
        var category: Category
        var options: Set<PolicyOption>
        var mode: AudioMode
        var exempt: Bool
    }
    /// Per-stream overrides last read: a broken new value keeps the old one.
    var nodeOverrides: [UInt32: ClassificationOverride] = [:]
    var warnings: [String] = []
    /// The stack as last logged and published.
    var stack: StackStatus?

    /// The warnings not logged yet (each is logged once while it lasts).
    mutating func newWarnings(_ current: [String]) -> [String] {
        defer { warnings = current }
        return current.filter { !warnings.contains($0) }
    }

    /// A log line when the stack is first known and whenever it changes:
    /// WirePlumber going away, coming back (restarted, perhaps another version).
    mutating func stackChange(_ status: StackStatus) -> String? {
        guard status != stack else { return nil }
        defer { stack = status }
        let pid = status.wireplumber?.pid.map { " (WirePlumber pid \($0))" } ?? ""
        return "\(stack == nil ? "stack" : "stack changed"): \(status.summary)\(pid)"
    }
}
