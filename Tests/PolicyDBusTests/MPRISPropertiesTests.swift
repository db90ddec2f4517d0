import Glibc
import Testing
import PolicyCore
import PolicyFiles
@testable import PolicyDBus

/// Replies and signals of the wrong shape are skipped property by property
/// and named, never trusted and never fatal (docs/PLAYERS.md).
@Suite struct MPRISPropertiesTests {
    static let player = MediaPlayer(busName: "org.mpris.MediaPlayer2.x", uniqueName: ":1.5")

    static func metadata(_ entries: [(String, BusValue)]) -> BusValue {
        .array(entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    @Test func readsTheSpecifiedTypes() {
        var player = Self.player
        let malformed = MPRISProperties.apply([
            "PlaybackStatus": .string("Playing"), "CanPause": .bool(true), "CanPlay": .bool(false),
            "Metadata": Self.metadata([("mpris:trackid", .objectPath("/t/1")), ("xesam:title", .string("Song")),
                                       ("xesam:url", .string("file:///a.wav")), ("xesam:artist", .array([.string("A")])),
                                       ("mpris:length", .int64(3_000_000)), ("xesam:album", .string("B"))]),
            "CanGoNext": .bool(true), "CanGoPrevious": .bool(false),
        ], of: MPRISProperties.playerInterface, to: &player)
        #expect(malformed == [])
        #expect(player.artist == ["A"] && player.album == "B" && player.length == 3_000_000)
        #expect(player.canGoNext == true && player.canGoPrevious == false)
        #expect(player.status == .playing)
        #expect(player.canPause == true && player.canPlay == false)
        #expect(player.trackID == "/t/1" && player.title == "Song" && player.url == "file:///a.wav")
        #expect(MPRISProperties.apply(["Identity": .string("mpv Media Player")], of: MPRISProperties.rootInterface,
                                      to: &player) == [])
        #expect(player.identity == "mpv Media Player")
    }

    @Test func wrongTypesAreSkippedAndNamed() {
        var player = Self.player
        player.status = .paused
        player.canPause = true
        let malformed = MPRISProperties.apply([
            "PlaybackStatus": .int32(1), "CanPause": .string("yes"),
            "Metadata": Self.metadata([("xesam:title", .int32(3)), ("xesam:url", .string("u"))]),
        ], of: MPRISProperties.playerInterface, to: &player)
        #expect(Set(malformed) == ["PlaybackStatus", "CanPause", "Metadata xesam:title"])
        #expect(player.status == .paused)
        #expect(player.canPause == true)
        #expect(player.title == nil && player.url == "u")
        // Metadata that is not a dictionary at all.
        #expect(MPRISProperties.apply(["Metadata": .string("x")], of: MPRISProperties.playerInterface, to: &player)
                == ["Metadata"])
        #expect(player.url == "u")
    }

    @Test func otherInterfacesAndInvalidation() {
        var player = Self.player
        #expect(MPRISProperties.apply(["PlaybackStatus": .string("Playing")], of: "org.example.Other", to: &player) == [])
        #expect(player.status == .unknown(""))
        player.status = .playing
        player.title = "t"
        MPRISProperties.invalidate(["PlaybackStatus", "Metadata"], of: MPRISProperties.playerInterface, in: &player)
        #expect(player.status == .unknown("") && player.title == nil)
    }

    @Test func busValueAccessorsSeeThroughVariants() {
        #expect(BusValue.variant(.variant(.string("a"))).string == "a")
        #expect(BusValue.variant(.uint32(7)).uint32 == 7)
        #expect(BusValue.int32(-1).uint32 == nil)
        #expect(BusValue.array([.string("a"), .int32(1)]).strings == nil)
        #expect(BusValue.array([.dictEntry(.int32(1), .string("a"))]).stringDictionary == nil)
    }
}

@Suite struct ProcessFilesTests {
    @Test(arguments: [
        ("1234 (mpv) S 1200 1234 1200 0 -1", Int32(1200)),
        ("77 (Web Content) S 70 77 70 0", 70),
        ("88 (a) b) (c) R 9 88", 9),
        ("garbage", nil),
        ("5 (x)", nil),
    ])
    func parentFromStat(line: String, parent: Int32?) {
        #expect(ProcessFiles.parentPID(statLine: line) == parent)
    }

    /// Our own process: its parent is the one the kernel reports, and the
    /// walk reaches pid 1's child; a pid that does not exist adds nothing.
    @Test func tableOfThisProcess() {
        let me = getpid()
        let table = ProcessAncestry.table(for: [me, 999_999_999])
        #expect(table[me] == getppid())
        #expect(table[999_999_999] == nil)
    }

    @Test func flatpakInfo() {
        let text = """
        [Application]
        name=org.mozilla.firefox
        runtime=runtime/org.freedesktop.Platform/x86_64/23.08

        [Instance]
        instance-id=3504463842
        app-path=/var/lib/flatpak/app/org.mozilla.firefox
        """
        #expect(FlatpakInfo.parse(text) == FlatpakInfo(appID: "org.mozilla.firefox", instanceID: "3504463842"))
        #expect(FlatpakInfo.parse("[Instance]\ninstance-id=1\n") == nil)
        #expect(FlatpakInfo.parse("[Application]\nname=a.b\n") == FlatpakInfo(appID: "a.b"))
        #expect(FlatpakInfo.read(pid: getpid()) == nil)
    }
}
