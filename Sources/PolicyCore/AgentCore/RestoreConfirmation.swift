/// After `AgentCore.restoreAll`, before the agent exits: the restored
/// streams are checked until every one reports gain 1 at two checks in a
/// row, a few graph cycles apart, or `limit` seconds passed. A plain
/// `volume` that reaches a client while a native ramp of ours still runs
/// there is overwritten by that ramp (docs/POLICY.md, "Fades"), so a
/// straggler is sent 1 again at each check.
public struct RestoreConfirmation: Sendable, Equatable {
    public static let limit = 2.0
    /// How long to wait before restoring at all: a ramp we sent may still
    /// run, bounded (a stream that stopped mid-ramp may never finish it).
    public static func wait(before rampsRunUntil: Double?, now: Double) -> Double {
        rampsRunUntil.map { max(0, min($0 - now, 1)) } ?? 0
    }

    public enum Next: Sendable, Equatable {
        /// Everything reported gain 1 twice: done.
        case confirmed
        /// Check again after the next graph cycles, sending these first.
        case checkAgain(resend: [AgentAction])
        /// Out of time: these are sent once more, and the warning logged.
        case gaveUp(resend: [AgentAction], warning: String)

        /// The gains to send again before going on.
        public var resend: [AgentAction] {
            switch self {
            case .confirmed: []
            case .checkAgain(let resend), .gaveUp(let resend, _): resend
            }
        }
    }

    private let deadline: Double
    private var quietChecks = 0

    public init(startedAt now: Double) { deadline = now + Self.limit }

    /// One check: `stragglers` are the streams that do not report gain 1
    /// now (`AgentCore.restoreStragglers`).
    public mutating func checked(stragglers: [AgentAction], now: Double) -> Next {
        quietChecks = stragglers.isEmpty ? quietChecks + 1 : 0
        if quietChecks >= 2 { return .confirmed }
        guard now >= deadline else { return .checkAgain(resend: stragglers) }
        return .gaveUp(resend: stragglers, warning: stragglers.isEmpty
            ? "could not confirm every stream's gain within \(Int(Self.limit)) s"
            : "\(stragglers.count) streams did not report gain 1 again; they may keep a policy gain")
    }
}
