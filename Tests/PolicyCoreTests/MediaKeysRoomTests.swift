import Testing
@testable import PolicyCore

/// The media keys' room on its own, without the loop around it.
struct MediaKeysRoomTests {
    static let mpv = MediaPlayer(busName: "org.mpris.MediaPlayer2.mpv", uniqueName: ":1.5", pid: 500, identity: "mpv",
                                 status: .playing, title: "tone", canPause: true, canPlay: true)
    static let decision = PolicyDecision(streams: [:], memory: EngineMemory(), events: [], nextWakeup: nil)
    static let noPauses = PlayerPauses.Plan(commands: [], paused: [:], reasons: [])

    private func follow(_ room: inout MediaKeysRoom, players: PlayerSet?, enabled: Bool = true,
                        unavailable: String? = nil) -> MediaPlayer?? {
        room.follow(players: players, now: 10, enabled: enabled, unavailable: unavailable, matches: [:], sessions: [:],
                    graph: Graph(), decision: Self.decision, paused: Self.noPauses)
    }

    @Test func theMirrorIsToldOnlyWhenItChanges() {
        var room = MediaKeysRoom()
        #expect(follow(&room, players: PlayerSet([Self.mpv])) == .some(Self.mpv))
        #expect(follow(&room, players: PlayerSet([Self.mpv])) == .none)
        #expect(follow(&room, players: nil) == .some(nil))
        #expect(room.status.reason == "off" && room.status.text == "players are not watched")
    }

    @Test func turnedOffTheKeysGoNowhereAndStatusSaysWhy() {
        var room = MediaKeysRoom()
        #expect(follow(&room, players: PlayerSet([Self.mpv]), enabled: false) == .none)
        #expect(room.status == MediaKeysStatus(target: nil, reason: "off", text: "off (players.media-keys = false)", lastKey: nil))
    }

    @Test func aKeyIsSentToTheAudiblePlayerAndRemembered() {
        var room = MediaKeysRoom()
        _ = follow(&room, players: PlayerSet([Self.mpv]))
        let (outcome, text) = room.press(.pause, pausedPlayers: [:])
        #expect(outcome.busName == Self.mpv.busName && outcome.command == .pause, "\(outcome)")
        #expect(text == "media key Pause to org.mpris.MediaPlayer2.mpv: sent Pause")
        #expect(room.status.lastKey == "Pause to org.mpris.MediaPlayer2.mpv: sent Pause")
        #expect(room.takeResumes().isEmpty)
    }

    @Test func aKeyWithNoPlayerIsRefused() {
        var room = MediaKeysRoom()
        let (outcome, text) = room.press(.playPause, pausedPlayers: [:])
        #expect(outcome.refusal != nil && text.hasPrefix("media key PlayPause: nothing: "), "\(text)")
    }
}
