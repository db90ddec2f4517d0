/// Why a stream is held (unlinked, gain 0).
public enum HoldReason: Sendable, Equatable, Hashable {
    /// Another session interrupted this one; `resumable`: it should resume when that ends.
    case interrupted(by: SessionKey, app: String, resumable: Bool)
    /// This session waits until an active one ends (hold-incoming).
    case waiting(for: SessionKey, app: String)
    /// The private output it played on went away (headphones unplugged);
    /// held until the user resumes it or moves it.
    case routeLost(output: String)
}

extension HoldReason {
    public enum Kind: String, Sendable, Equatable, Codable { case interrupted, waiting, routeLost = "route-lost" }
    public var kind: Kind {
        switch self {
        case .interrupted: .interrupted
        case .waiting: .waiting
        case .routeLost: .routeLost
        }
    }
}
