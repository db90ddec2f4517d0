/// The config in the control loop: read again after a SIGHUP or a file
/// change, in force from the next reconcile (docs/CONFIG.md, "Checking and
/// reloading").
extension AgentCore {
    static func planner(for config: PolicyConfig, dryRun: Bool) -> ReconcilePlanner {
        // In a dry run nothing is ever confirmed; don't "resend" every second.
        ReconcilePlanner(settings: config.settings, confirmTimeout: dryRun ? .infinity : 1.0)
    }

    /// What made the agent reload: said in its log line and in the event's
    /// `reason` (docs/CONFIG.md, "Checking and reloading").
    public enum ReloadTrigger: String, Sendable {
        case signal = "SIGHUP", fileChanged = "file-changed"
        var logged: String { self == .signal ? "SIGHUP" : "file changed" }
    }

    /// A config read after a SIGHUP or a file change: in force from the next
    /// reconcile, unless it is the one in force or the classifier refuses it.
    public mutating func reload(_ loaded: LoadedConfig, trigger: ReloadTrigger, graph: Graph) -> [AgentEffect] {
        guard loaded.config != config.config || loaded.files != config.files else {
            configError = nil
            return []
        }
        let classifier: Classifier
        do {
            classifier = try Classifier(config: loaded.config)
        } catch {
            return reloadFailed("\(error)", trigger: trigger, graph: graph)
        }
        config = loaded
        configError = nil
        classifications = ClassificationCache(classifier: classifier)
        engine = PolicyEngine(config: loaded.config)
        planner = Self.planner(for: loaded.config, dryRun: identity.dryRun)
        let text = "config reloaded (\(trigger.logged)): \(loaded.files.joined(separator: ", "))"
        return publishing.emit(EventRecord(seq: 0, type: .configReloaded, text: text, reason: trigger.rawValue),
                    graph: graph, level: .notice)
    }

    /// A reload that could not be read or validated: the previous config stays.
    public mutating func reloadFailed(_ error: String, trigger: ReloadTrigger, graph: Graph) -> [AgentEffect] {
        configError = error
        let text = "config reload rejected (\(trigger.logged)); keeping the previous config"
        return [.log(.error, "\(text):\n\(error)")]
            + publishing.emit(EventRecord(seq: 0, type: .configRejected, text: text, reason: trigger.rawValue),
                   graph: graph, level: nil)
    }
}
