/// Keeps the configuration in force across reloads: a reload that fails
/// leaves the last good configuration in place and says why, so a typo in a
/// fragment never takes the policy down (the agent calls it on SIGHUP or when
/// a watched file changes).
public struct ConfigReloader: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The new configuration is in force; `changed` is false when it
        /// decodes to the same policy (only comments or layout changed).
        case applied(changed: Bool)
        /// The new configuration was refused; the previous one stays.
        case rejected(ConfigError)
    }

    /// The configuration in force.
    public private(set) var current: LoadedConfig
    /// Why the latest reload was refused; nil once one succeeds.
    public private(set) var lastError: ConfigError?

    public init(initial: LoadedConfig) {
        current = initial
    }

    /// Loads with `load` and keeps the result only if it is valid.
    @discardableResult
    public mutating func reload(using load: () throws(ConfigError) -> LoadedConfig) -> Outcome {
        do {
            return apply(.success(try load()))
        } catch {
            return apply(.failure(error))
        }
    }

    @discardableResult
    public mutating func apply(_ result: Result<LoadedConfig, ConfigError>) -> Outcome {
        switch result {
        case .success(let loaded):
            let changed = loaded.config != current.config
            current = loaded
            lastError = nil
            return .applied(changed: changed)
        case .failure(let error):
            lastError = error
            return .rejected(error)
        }
    }
}
