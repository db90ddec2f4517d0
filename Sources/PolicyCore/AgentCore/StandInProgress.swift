/// One stand-in stream resetting WirePlumber's saved volume of a key
/// (docs/POLICY.md, "WirePlumber's memory"): what the adapter does at each
/// look at its node. WirePlumber saves every Props change of a stream, the
/// stand-in's own defaults too, and may restore its saved values on it
/// meanwhile: the user's values are sent until the node has reported
/// exactly them for `settle`; a node that does not take them is replaced.
public struct StandInProgress: Sendable, Equatable {
    /// Longer than WirePlumber takes to restore saved values on a new node.
    public static let settle = 0.3
    /// How often a stand-in that does not report them is sent them again.
    public static let resend = 0.1
    /// How long a stand-in may go without reporting them before a new one
    /// takes its place: on WirePlumber 0.5.8 about one in five kept
    /// reporting its defaults through every resend, and WirePlumber saved
    /// those; a new node took the values at once.
    public static let replaceAfter = 0.8

    public let key: String
    public let user: WirePlumberStreamState.UserVolumes
    private let createdAt: Double
    private var keptSince: Double?
    private var sentAt: Double?

    public init(key: String, user: WirePlumberStreamState.UserVolumes, createdAt: Double) {
        self.key = key; self.user = user; self.createdAt = createdAt
    }

    public enum Next: Sendable, Equatable {
        /// Not there yet, or reporting them for less than `settle`: look again.
        case wait
        /// Set its Props to volume 1 with the user's channel volumes and mute.
        case send
        /// A new stand-in in its place (`StandInProgress` starts afresh).
        case replace
    }

    /// Whether it has reported the user's values for `settle` by `now`.
    public func isKept(now: Double) -> Bool { keptSince.map { now - $0 >= Self.settle } == true }

    /// One look at its node (nil before it appears, or before it reported Props).
    public mutating func looked(at node: Graph.Node?, now: Double) -> Next {
        let overdue = now - createdAt >= Self.replaceAfter
        guard let node, node.volume != nil else { return overdue ? .replace : .wait }
        if reports(node) {
            keptSince = keptSince ?? now
            return .wait
        }
        keptSince = nil
        if overdue { return .replace }
        guard sentAt.map({ now - $0 >= Self.resend }) ?? true else { return .wait }
        sentAt = now
        return .send
    }

    /// Volume 1 and the user's values, exactly.
    private func reports(_ node: Graph.Node) -> Bool {
        node.volume.map { ReconcilePlanner.reports($0, 1) } == true && (node.mute ?? false) == user.mute
            && node.channelVolumes == user.channelVolumes
    }
}
