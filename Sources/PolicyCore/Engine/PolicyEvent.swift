/// Something that happened, for the log and `pw-policy monitor`.
public enum PolicyEvent: Sendable, Equatable, Hashable {
    case interruptionBegan(session: SessionKey, by: SessionKey, resumable: Bool)
    case interruptionEnded(session: SessionKey, shouldResume: Bool)
    case duckBegan(session: SessionKey, by: SessionKey, level: Double)
    case duckEnded(session: SessionKey)
    case silenced(session: SessionKey)
    case unsilenced(session: SessionKey)
    case routeChanged(reason: RouteChangeReason, output: String)
    case heldForRoute(stream: UInt32, output: String)
    case resumed(stream: UInt32)
}

public enum RouteChangeReason: String, Sendable, Equatable, Hashable, Codable {
    case newDeviceAvailable = "new-device-available"
    case oldDeviceUnavailable = "old-device-unavailable"
    case userChoice = "user-choice"
}
