import Foundation
import PolicyCore

/// What the policy does to a stream, in the few words `status` shows in
/// brackets: `gain 0.20 DUCKED by "Maps"`, `HELD: interrupted by "Zoom", resumes`,
/// `SILENCED`. Nil when the stream plays untouched.
public struct PolicyEffect: Sendable, Equatable {
    /// How bad it is for the stream, for colour.
    public enum Severity: Sendable, Equatable { case held, silenced, ducked, note }

    public var text: String
    public var severity: Severity

    public init(text: String, severity: Severity) {
        self.text = text; self.severity = severity
    }

    public static func of(_ status: StreamStatus) -> PolicyEffect? {
        if status.exempt { return PolicyEffect(text: "exempt", severity: .note) }
        if let hold = status.hold { return PolicyEffect(text: "HELD: " + describe(hold, stream: status.id), severity: .held) }
        if status.silenced { return PolicyEffect(text: "SILENCED", severity: .silenced) }
        if !status.duckedBy.isEmpty {
            let names = status.duckedBy.prefix(3).map(\.name.description).joined(separator: ", ")
            let more = status.duckedBy.count > 3 ? " and \(status.duckedBy.count - 3) more" : ""
            return PolicyEffect(text: "gain \(formatGain(status.gain)) DUCKED by \(names)\(more)", severity: .ducked)
        }
        if abs(status.gain - 1) > 0.0005 {
            return PolicyEffect(text: "gain \(formatGain(status.gain))", severity: .note)
        }
        return nil
    }

    static func describe(_ hold: StreamStatus.Hold, stream: UInt32) -> String {
        let by = (hold.byName ?? SessionName.unknown).description
        switch hold.kind {
        case "interrupted":
            return "interrupted by \(by), " + (hold.resumable ? "resumes" : "does not resume")
        case "waiting":
            return "waiting for \(by) to end"
        case "route-lost":
            let output = hold.output.map { "output \"\($0)\"" } ?? "its output"
            return "\(output) went away; 'pw-policy resume \(stream)' continues it"
        default:
            return hold.kind + (hold.by != nil ? " by \(by)" : "")
        }
    }

    /// Two decimals, as wpctl shows volumes.
    public static func formatGain(_ gain: Double) -> String {
        guard gain.isFinite else { return "\(gain)" }
        return String(format: "%.2f", gain)
    }
}
