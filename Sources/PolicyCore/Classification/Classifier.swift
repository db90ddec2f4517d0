/// Gives every stream its category with the precedence of docs/CLASSIFICATION.md:
/// runtime override → what the app declared (its audio session, then its
/// stream's own `policy.*` properties) → config rules
/// → what the desktop knows about the app → built-in inference → the configured default.
///
/// The first step that names a category decides it, with its own options and
/// mode. A step above it that names no category (a rule with only `options`,
/// an app setting only `policy.options`) still contributes the fields it
/// sets, on top. A matched rule's `exempt` and `prefer-target` apply whatever
/// decided the category: they are the config's, and no other step has them.
public struct Classifier: Sendable {
    private struct CompiledRule: Sendable {
        var number: Int
        var rule: ClassificationRule
        var matcher: PropertyMatcher
    }

    private let rules: [CompiledRule]
    private let settings: Settings

    public init(config: PolicyConfig) throws(POSIXRegex.CompileError) {
        var rules: [CompiledRule] = []
        for (index, rule) in config.rules.enumerated() {
            rules.append(CompiledRule(number: index + 1, rule: rule, matcher: try PropertyMatcher(rule.matches)))
        }
        self.rules = rules
        self.settings = config.settings
    }

    public func classify(_ facts: StreamFacts) -> Classification {
        classify(facts, overrideScope: nil)
    }

    /// `overrideScope` names what the override in `facts` was set on, for the reason.
    public func classify(_ facts: StreamFacts, overrideScope: OverrideScope?) -> Classification {
        let streamPolicy = StreamPropertyPolicy(nodeProps: facts.nodeProps)
        let matched = matchingRules(facts.mergedProps)

        var steps: [Step] = []
        if let override = facts.override {
            let subject = overrideScope.map { "override for \($0)" } ?? "runtime override"
            steps.append(Step(source: .override, category: override.category, options: override.options,
                              mode: override.mode, label: "\(subject) (pw-policy set)"))
        }
        // The app's own word: its audio session, then its stream's properties.
        if let declared = facts.declared {
            steps.append(Step(source: .audioSession, category: declared.category, options: declared.options,
                              mode: declared.mode, label: declared.label))
        }
        if !streamPolicy.isEmpty {
            steps.append(Step(source: .streamProperties, category: streamPolicy.category,
                              options: streamPolicy.options, mode: streamPolicy.mode,
                              label: "\(streamPolicy.evidence.joined(separator: ", ")) (set by the app)"))
        }
        if let merged = matched.merged {
            steps.append(Step(source: .rule, category: merged.category, options: merged.options,
                              mode: merged.mode, label: matched.label(for: \.category) ?? matched.labels.joined(separator: " + ")))
        }
        if !steps.contains(where: { $0.category != nil }) {
            steps.append(fallback(facts))
        }

        var classification = compose(steps)
        classification.warnings = streamPolicy.warnings
        if let merged = matched.merged {
            if merged.exempt == true, let label = matched.label(for: \.exempt) {
                classification.exempt = true
                classification.reason += "; \(label) exempts it from the policy"
            }
            if let target = merged.preferTarget, let label = matched.label(for: \.preferTarget) {
                classification.preferredTarget = target
                classification.reason += "; \(label) prefers the output matching \(Self.describe(target.matches))"
            }
        }
        return classification
    }

    // MARK: steps

    /// One step of the precedence that had something to say.
    private struct Step {
        var source: ClassificationSource
        var category: Category?
        var options: Set<PolicyOption>?
        var mode: AudioMode?
        /// What it was, e.g. `media.role = "Music"`.
        var label: String
        /// A complete reason replacing `label → outcome` (the default's).
        var fixedReason: String? = nil
    }

    /// Every rule that matches, in order. As in WirePlumber, all of their
    /// actions apply and a later rule overrides what an earlier one set, so a
    /// user's drop-in (merged after the shipped file) has the last word.
    private struct MatchedRules {
        var rules: [(rule: CompiledRule, label: String)] = []
        var labels: [String] { rules.map(\.label) }

        var merged: RuleActions? {
            guard !rules.isEmpty else { return nil }
            var actions = RuleActions()
            for (rule, _) in rules {
                let next = rule.rule.actions
                if let category = next.category { actions.category = category }
                if let options = next.options { actions.options = options }
                if let mode = next.mode { actions.mode = mode }
                if let exempt = next.exempt { actions.exempt = exempt }
                if let target = next.preferTarget { actions.preferTarget = target }
            }
            return actions
        }

        /// The label of the last matching rule that set `field`.
        func label<T>(for field: KeyPath<RuleActions, T?>) -> String? {
            rules.last { $0.rule.rule.actions[keyPath: field] != nil }?.label
        }
    }

    private func matchingRules(_ props: [String: String]) -> MatchedRules {
        var matched = MatchedRules()
        for rule in rules {
            guard let match = rule.matcher.describeMatch(props) else { continue }
            let origin = rule.rule.origin.isEmpty ? "" : " at \(rule.rule.origin)"
            let condition = match.isEmpty ? "matches any stream" : match
            matched.rules.append((rule, "rule #\(rule.number)\(origin) (\(condition))"))
        }
        return matched
    }

    /// App knowledge, then built-in inference, or the default when they find
    /// nothing or are off (app knowledge is inference from the desktop: the
    /// same setting switches it off).
    private func fallback(_ facts: StreamFacts) -> Step {
        if settings.inference, let known = AppKnowledge.decide(facts) {
            return Step(source: .app, category: known.category, options: known.options,
                        mode: known.mode, label: known.evidence)
        }
        if settings.inference, let inferred = RoleInference.infer(facts) {
            return Step(source: .inference, category: inferred.category, options: inferred.options,
                        mode: inferred.mode, label: inferred.evidence)
        }
        let outcome = ([settings.defaultCategory.rawValue] + settings.defaultOptions.sorted().map(\.rawValue))
            .joined(separator: " + ")
        let nothing = settings.inference
            ? "no rule, property or inference applied"
            : "no rule or property applied and built-in inference is off"
        return Step(source: .default, category: settings.defaultCategory, options: settings.defaultOptions,
                    mode: .default, label: "default", fixedReason: "\(nothing): default \(outcome)")
    }

    /// The first step with a category decides; the steps before it contribute
    /// the options and mode they set (the earliest wins each field).
    private func compose(_ steps: [Step]) -> Classification {
        guard let decidingIndex = steps.firstIndex(where: { $0.category != nil }),
              let category = steps[decidingIndex].category else {
            preconditionFailure("the fallback step always names a category")
        }
        let decider = steps[decidingIndex]
        var options: Set<PolicyOption>?
        var mode: AudioMode?
        var contributions: [String] = []
        for step in steps[..<decidingIndex] {
            var parts: [String] = []
            if options == nil, let stepOptions = step.options {
                options = stepOptions
                parts.append("options \(Self.describe(stepOptions))")
            }
            if mode == nil, let stepMode = step.mode {
                mode = stepMode
                parts.append("mode \(stepMode.rawValue)")
            }
            if !parts.isEmpty { contributions.append("\(step.label) sets \(parts.joined(separator: " and "))") }
        }
        let decided = decider.fixedReason
            ?? "\(decider.label) → \(Self.describe(category, decider.options ?? [], decider.mode ?? .default))"
        return Classification(
            category: category, options: options ?? decider.options ?? [], mode: mode ?? decider.mode ?? .default,
            source: decider.source, reason: ([decided] + contributions).joined(separator: "; "))
    }

    // MARK: wording

    /// `playback [duck-others] (spoken-audio)`.
    static func describe(_ category: Category, _ options: Set<PolicyOption>, _ mode: AudioMode) -> String {
        var text = category.rawValue
        if !options.isEmpty { text += " \(describe(options))" }
        if mode != .default { text += " (\(mode.rawValue))" }
        return text
    }

    static func describe(_ options: Set<PolicyOption>) -> String {
        options.isEmpty ? "[] (none)" : "[\(options.sorted().map(\.rawValue).joined(separator: ", "))]"
    }

    /// `node.name = "speakers"` / `device.bus ~ "usb"`, entries joined by "or".
    static func describe(_ matches: [[String: PropertyMatch]]) -> String {
        let entries = matches.map { entry in
            entry.sorted { $0.key < $1.key }.map { key, match in
                switch match {
                case .equals(let value): "\(key) = \"\(value)\""
                case .regex(let pattern): "\(key) ~ \"\(pattern)\""
                case .absent: "\(key) = null"
                }
            }.joined(separator: ", ")
        }
        return entries.isEmpty ? "(nothing)" : entries.joined(separator: " or ")
    }
}
