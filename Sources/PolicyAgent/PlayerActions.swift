import PolicyCore
import PolicyDBus

/// What the executor sends over the session bus, as `GraphActions` is what
/// it sends to PipeWire: the core's commands to the players, and the player
/// the media-key proxy mirrors. Does nothing while there is no session bus.
final class PlayerActions {
    /// The players' observer, which sends their calls (the agent owns it).
    weak var observer: MPRISObserver?
    /// pw-policy's own MPRIS player for the media keys, while it is on the
    /// bus (docs/PLAYERS.md, "Media keys").
    var mediaKeysProxy: MediaKeysProxy?

    func perform(_ command: PlayerCommand) {
        observer?.perform(command)
    }

    func mirror(_ player: MediaPlayer?) {
        mediaKeysProxy?.mirror(player)
    }
}
