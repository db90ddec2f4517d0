import Testing
@testable import PolicyDBus

/// A player that quits while (or before) it is paused is not an
/// error in the log: it left the bus (docs/PLAYERS.md).
@Suite struct PlayerCommandFailureTests {
    static let mpv = "org.mpris.MediaPlayer2.mpv"

    @Test(arguments: [
        ("org.freedesktop.DBus.Error.NoReply", "Message recipient disconnected from message bus without replying", true),
        ("org.freedesktop.DBus.Error.ServiceUnknown", "The name :1.42 was not provided by any .service files", true),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", "Could not get owner of name 'org.mpris.MediaPlayer2.mpv'", true),
        ("org.freedesktop.DBus.Error.UnknownObject", "Unknown object '/org/mpris/MediaPlayer2'", true),
        // Still there but silent, or refusing: worth a line that says so.
        ("org.freedesktop.DBus.Error.NoReply", "Method call timed out", false),
        ("org.freedesktop.DBus.Error.AccessDenied", "Rejected send message", false),
        ("org.mpris.MediaPlayer2.Player.Error.Failed", "", false),
        ("pw-policy.Disconnected", "session bus lost: Connection reset by peer; players are not paused", false),
    ])
    func aPlayerThatLeftIsNotAFailure(name: String, message: String, left: Bool) {
        let error = BusCallError(name: name, message: message)
        #expect(error.peerLeft == left)
        let line = MPRISObserver.failure(of: "Pause", to: Self.mpv, error)
        if left {
            #expect(line == "player \(Self.mpv) left the bus before it answered Pause")
        } else {
            #expect(line == "player \(Self.mpv): Pause failed (\(error))")
        }
    }
}
