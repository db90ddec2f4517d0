import PolicyModel
import PolicyStack

/// A screen being shared: a compositor's screen-cast video stream linked to
/// at least one consumer (docs/POLICY.md, "Presenting").
public struct ScreenCast: Sendable, Equatable, Hashable, Codable {
    /// The screen-cast stream's node.
    public var node: UInt32
    /// Who makes it: "GNOME Shell", "KWin", "xdg-desktop-portal-wlr".
    public var implementation: String
    /// The nodes its links lead to (the apps receiving the screen), ascending.
    public var consumers: [UInt32]

    public init(node: UInt32, implementation: String, consumers: [UInt32]) {
        self.node = node; self.implementation = implementation; self.consumers = consumers
    }

    /// `GNOME Shell screen cast, node 42`: how explanations and the status name it.
    public var description: String { "\(implementation) screen cast, node \(node)" }
}
