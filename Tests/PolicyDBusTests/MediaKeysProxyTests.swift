import Testing
import PolicyCore
@testable import PolicyDBus

/// What pw-policy's proxy player answers, without a bus: every call with the
/// wrong signature, or for what it does not have, gets a D-Bus error, and a
/// key's method returns at once (docs/PLAYERS.md, "Media keys").
@Suite struct MediaKeysProxyTests {
    static let properties = "org.freedesktop.DBus.Properties"
    static let player = "org.mpris.MediaPlayer2.Player"

    func answer(_ interface: String, _ member: String, _ signature: String, _ arguments: [BusValue] = []) -> MediaKeysProxy.Answer {
        MediaKeysProxy.answer(interface: interface, member: member, signature: signature, arguments: { arguments }, proxy: nil)
    }

    func errorName(_ answer: MediaKeysProxy.Answer) -> String? {
        if case .error(let name, _) = answer { return name }
        return nil
    }

    @Test(arguments: MediaKey.allCases)
    func keysAreKeys(key: MediaKey) {
        #expect(answer(Self.player, key.rawValue, "") == .key(key))
        #expect(errorName(answer(Self.player, key.rawValue, "s", [.string("x")])) == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test(arguments: [
        (properties, "Get", "ss", [BusValue.string(player), .string("Volume")], "org.freedesktop.DBus.Error.UnknownProperty"),
        (properties, "Get", "ss", [.string("org.example.Nothing"), .string("X")], "org.freedesktop.DBus.Error.UnknownInterface"),
        (properties, "Get", "s", [.string(player)], "org.freedesktop.DBus.Error.InvalidArgs"),
        (properties, "GetAll", "", [], "org.freedesktop.DBus.Error.InvalidArgs"),
        (properties, "GetAll", "s", [.string("org.example.Nothing")], "org.freedesktop.DBus.Error.UnknownInterface"),
        (properties, "Set", "ssv", [.string(player), .string("PlaybackStatus"), .variant(.string("Playing"))],
         "org.freedesktop.DBus.Error.PropertyReadOnly"),
        (properties, "Set", "ssv", [.string(player), .string("Volume"), .variant(.double(0))], "org.freedesktop.DBus.Error.UnknownProperty"),
        (player, "OpenUri", "s", [.string("file:///x")], "org.freedesktop.DBus.Error.NotSupported"),
        (player, "Seek", "s", [.string("x")], "org.freedesktop.DBus.Error.InvalidArgs"),
        ("org.freedesktop.DBus.Introspectable", "Introspect", "s", [.string("x")], "org.freedesktop.DBus.Error.InvalidArgs"),
    ])
    func badCallsGetErrors(interface: String, member: String, signature: String, arguments: [BusValue], error: String) {
        #expect(errorName(answer(interface, member, signature, arguments)) == error)
    }

    @Test func unknownMethodsAreLeftToSdBus() {
        #expect(answer(Self.player, "Explode", "") == .unknown)
        #expect(answer("org.example.Nothing", "Get", "ss") == .unknown)
    }

    @Test func propertiesMirrorThePlayer() {
        let mpv = MediaPlayer(busName: "org.mpris.MediaPlayer2.mpv", uniqueName: ":1.5", identity: "mpv", status: .paused,
                              trackID: "/io/mpv/track/1", title: "tone", url: "file:///tone.wav", canPause: true, canPlay: true,
                              canGoNext: true, canGoPrevious: false)
        let mirrored = MediaKeysProxy.playerProperties(mpv)
        #expect(mirrored["PlaybackStatus"] == .string("Paused"))
        #expect(mirrored["CanGoNext"] == .bool(true))
        #expect(mirrored["CanGoPrevious"] == .bool(false))
        #expect(mirrored["CanControl"] == .bool(true))
        #expect(mirrored["CanSeek"] == .bool(false))
        #expect(mirrored["Metadata"] == .propertyDictionary(["mpris:trackid": .objectPath("/io/mpv/track/1"),
                                                             "xesam:title": .string("tone"),
                                                             "xesam:url": .string("file:///tone.wav")]))
        let none = MediaKeysProxy.playerProperties(nil)
        #expect(none["PlaybackStatus"] == .string("Stopped"))
        #expect(none["CanPlay"] == .bool(false))
        #expect(none["Metadata"] == .propertyDictionary([:]))
        var odd = mpv
        odd.trackID = "not a path"
        #expect(MediaKeysProxy.playerProperties(odd)["Metadata"]
                == .propertyDictionary(["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack"),
                                        "xesam:title": .string("tone"), "xesam:url": .string("file:///tone.wav")]))
        #expect(MediaKeysProxy.rootProperties()["Identity"] == .string("pw-policy"))
        #expect(MediaKeysProxy.rootProperties()["SupportedUriSchemes"]?.signature == "as")
    }

    @Test func getAnswersAVariant() {
        #expect(answer(Self.properties, "Get", "ss", [.string("org.mpris.MediaPlayer2"), .string("CanQuit")])
                == .reply([.variant(.bool(false))]))
    }
}
