/// How explanations write interaction rules, close to the config's own syntax:
/// `rule 15 at pw-policy.conf:88: active * / incoming { options = [duck-others] } → duck: <why>`.
public enum InteractionNotation {
    /// `*` for any session, a bare category name for a plain category, else the fields in braces.
    public static func selector(_ selector: SessionSelector) -> String {
        var fields: [String] = []
        if let categories = selector.categories {
            let names = categories.sorted().map(\.rawValue)
            if names.count == 1, selector == SessionSelector(categories: categories) { return names[0] }
            fields.append("category = " + (names.count == 1 ? names[0] : "[" + names.joined(separator: ", ") + "]"))
        }
        if !selector.options.isEmpty { fields.append("options = " + list(selector.options)) }
        if !selector.withoutOptions.isEmpty { fields.append("without-options = " + list(selector.withoutOptions)) }
        if let mixable = selector.mixable { fields.append("mixable = \(mixable)") }
        if let mode = selector.mode { fields.append("mode = \(mode.rawValue)") }
        return fields.isEmpty ? "*" : "{ " + fields.joined(separator: ", ") + " }"
    }

    public static func action(_ action: InteractionAction) -> String {
        switch action {
        case .mix: "mix"
        case .duck(let level): level.map { "duck \(formatLevel($0))" } ?? "duck"
        case .duckIncoming(let level): level.map { "duck-incoming \(formatLevel($0))" } ?? "duck-incoming"
        case .interrupt(let resumable): resumable ? "interrupt resumable" : "interrupt non-resumable"
        case .holdIncoming: "hold-incoming"
        case .silenceIncoming: "silence-incoming"
        }
    }

    /// `rule N at origin: active … / incoming … → action: why`, N counted from 1.
    public static func rule(_ rule: InteractionRule, index: Int) -> String {
        var text = "rule \(index + 1)"
        if !rule.origin.isEmpty { text += " at \(rule.origin)" }
        text += ": active \(selector(rule.active)) / incoming \(selector(rule.incoming)) → \(action(rule.action))"
        if !rule.why.isEmpty { text += ": \(rule.why)" }
        return text
    }

    /// A gain with two decimals ("0.20"), without Foundation.
    public static func formatLevel(_ level: Double) -> String {
        guard level.isFinite else { return "\(level)" }
        let hundredths = Int((max(level, 0) * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    private static func list(_ options: Set<PolicyOption>) -> String {
        "[" + options.sorted().map(\.rawValue).joined(separator: ", ") + "]"
    }
}
