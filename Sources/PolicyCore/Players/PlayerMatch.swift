/// Which player controls a stream, and by what evidence.
public struct PlayerMatch: Sendable, Equatable {
    /// The player's well-known bus name.
    public var busName: String
    public var reason: Reason

    public init(busName: String, reason: Reason) {
        self.busName = busName; self.reason = reason
    }

    public enum Reason: Sendable, Equatable {
        /// The stream's `application.process.id` is the player's bus connection's process.
        case sameProcess(pid: Int32)
        /// The stream comes from a process `generations` below the player's
        /// (a browser plays from a child of the process on the bus).
        case descendant(streamPID: Int32, playerPID: Int32, generations: Int)
        /// Both are the Flatpak app `appID` (and the same instance, when both
        /// name one).
        case flatpakApp(appID: String, instanceID: String?)
    }
}
