import PolicyCore
import PolicyDBus

/// What the executor sends over the session bus, as `GraphActions` is what
/// it sends to PipeWire: the core's commands to the players, the player
/// the media-key proxy mirrors, and what the audio sessions are told. Does
/// nothing while there is no session bus.
final class PlayerActions {
    /// The players' observer, which sends their calls (the agent owns it).
    weak var observer: MPRISObserver?
    /// pw-policy's own MPRIS player for the media keys, while it is on the
    /// bus (docs/PLAYERS.md, "Media keys").
    var mediaKeysProxy: MediaKeysProxy?
    /// The audio-session service, while it is on the bus (docs/API.md).
    var audioSessions: AudioSessionService?

    func perform(_ command: PlayerCommand) {
        observer?.perform(command)
    }

    func mirror(_ player: MediaPlayer?) {
        mediaKeysProxy?.mirror(player)
    }

    func tell(_ messages: [AudioSessionNews.Message]) {
        audioSessions?.tell(messages)
    }
}
