import Glibc

/// Why there is no session bus to talk to: a value the agent logs once and
/// shows in `status`, never a crash (docs/PLAYERS.md).
public enum SessionBusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Connecting failed (no address, no socket, refused).
    case unavailable(address: String?, reason: String)
    /// The connection was lost after it worked.
    case disconnected(reason: String)

    public var description: String {
        switch self {
        case .unavailable(let address, let reason):
            "no session bus\(address.map { " at \($0)" } ?? ""): \(reason); players are not paused"
        case .disconnected(let reason):
            "session bus lost: \(reason); players are not paused"
        }
    }
}

/// A method call that failed: the D-Bus error's name and message, or what
/// went wrong locally (the reply could not be read, the bus is gone).
public struct BusCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name; self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// The peer was not on the bus any more, or left before it answered: a
    /// player that quit, not a failure (docs/PLAYERS.md). A NoReply counts
    /// only when the bus says its peer disconnected; one after the call
    /// timed out is a player that hangs.
    public var peerLeft: Bool {
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
             "org.freedesktop.DBus.Error.UnknownObject":
            true
        case "org.freedesktop.DBus.Error.NoReply":
            message.containsText("disconnected")
        default:
            false
        }
    }
}

/// strerror for sd-bus's negative errno results.
func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code < 0 ? -code : code))
}
