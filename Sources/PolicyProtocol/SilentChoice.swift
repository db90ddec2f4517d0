import PolicyModel
import PolicyStack

/// The user's silent switch: on, off, or following the desktop's Do Not
/// Disturb (docs/POLICY.md, "Do Not Disturb").
public enum SilentChoice: String, Sendable, Equatable, Codable, CaseIterable {
    case on, off, follow
}
