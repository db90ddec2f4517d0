import Foundation
import Testing
@testable import PolicyCore

/// One stream of an app whose desktop knowledge is given: properties as the
/// graph shows them, the process as the adapter reads it, the expected category.
struct AppKnowledgeCase: Sendable, CustomTestStringConvertible {
    var name: String
    var node: [String: String]
    var client: [String: String] = [:]
    var direction: StreamDirection = .playback
    var process: ProcessFacts?
    var ancestors: [AncestorFacts] = []
    var duplex = false
    /// What the other streams of its process do, when more than `duplex` says.
    var instance: InstanceFacts? = nil
    var category: Category
    var options: Set<PolicyOption> = []
    var mode: AudioMode = .default
    /// What the reason must contain.
    var reason: String
    var source: ClassificationSource = .app
    var testDescription: String { name }

    func classify(_ index: DesktopEntryIndex) throws -> Classification {
        var props = node
        props["media.class"] = direction == .playback ? "Stream/Output/Audio" : "Stream/Input/Audio"
        let app = AppFacts.resolve(nodeProps: props, clientProps: client, process: process, ancestors: ancestors,
                                   entries: index)
        return try Classifier(config: classifierTestConfig()).classify(StreamFacts(
            nodeID: 7, direction: direction, nodeProps: props, clientProps: client,
            instance: instance ?? StreamFacts(nodeID: 7, direction: direction, nodeProps: [:],
                                              appAlsoStreamsOtherDirection: duplex).instance,
            app: app))
    }
}

private func process(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:],
                     cgroup: String? = nil) -> ProcessFacts {
    ProcessFacts(executable: executable, arguments: arguments.isEmpty ? [executable] : arguments,
                 environment: environment, cgroup: cgroup)
}

private let unit = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
/// Chrome's browser process started by Google Meet's entry, its command line as Chromium rewrites it (one string).
private let meetMain = "/opt/google/chrome/chrome --profile-directory=Default --app-id=kjgfgldnnfoeklkmfkjfagphfepbbdan"

@Suite struct AppKnowledgeTests {
    /// The families the app step knows, each decided from the Debian 12 desktop
    /// entries of Corpus/desktop-entries and the launcher's marks.
    static let families: [AppKnowledgeCase] = [
        .init(name: "RetroArch by its program", node: ["media.name": "RetroArch"], process: process("retroarch"),
              category: .soloAmbient, reason: "desktop entry retroarch (Categories=Game;Emulator;), runs retroarch: a game → solo-ambient"),
        .init(name: "Dolphin, named like KDE's file manager", node: ["media.name": "Dolphin Audio Output"],
              client: ["application.name": "Dolphin"], process: process("dolphin-emu"),
              category: .soloAmbient, reason: "desktop entry dolphin-emu (Categories=Game;Emulator;)"),
        .init(name: "SuperTuxKart by its launch unit", node: ["application.name": "supertuxkart"],
              process: process("supertuxkart", cgroup: unit + "app-gnome-supertuxkart-4242.scope\n"),
              category: .soloAmbient, reason: "launched in app-gnome-supertuxkart-4242.scope"),
        .init(name: "a game's voice chat", node: ["application.name": "supertuxkart"], direction: .capture,
              process: process("supertuxkart"), category: .playAndRecord, reason: "capturing: voice chat"),
        .init(name: "a game with its voice chat running is one call (inference)", node: ["application.name": "supertuxkart"],
              process: process("supertuxkart"), duplex: true, category: .playAndRecord, reason: "also has a running capture",
              source: .inference),
        .init(name: "Steam game by SteamAppId", node: ["application.name": "Cyberpunk2077.exe"],
              client: ["application.process.binary": "Cyberpunk2077.exe"],
              process: process("wine64-preloader", ["Z:\\Cyberpunk 2077\\bin\\x64\\Cyberpunk2077.exe"],
                               environment: ["SteamAppId": "1091500"]),
              category: .soloAmbient, reason: "Steam game (SteamAppId=1091500) → solo-ambient"),
        .init(name: "Heroic game", node: ["application.name": "Hades"], process: process("Hades.exe",
              environment: ["HEROIC_APP_NAME": "Min", "HEROIC_APP_SOURCE": "epic", "SteamAppId": "0"]),
              category: .soloAmbient, reason: "Heroic game (HEROIC_APP_NAME=Min, HEROIC_APP_SOURCE=epic)"),
        .init(name: "Lutris game", node: ["media.name": "Playback Stream"], process: process("game.x86_64",
              environment: ["LUTRIS_GAME_UUID": "f00", "GAME_NAME": "Celeste"]),
              category: .soloAmbient, reason: "Lutris game (LUTRIS_GAME_UUID, GAME_NAME=Celeste)"),
        .init(name: "Steam's own client sounds", node: ["application.name": "steam"],
              process: process("steam"), category: .ambient, reason: "(known game launcher), its own sounds",
              source: .inference),
        .init(name: "Minigalaxy, a launcher filed under Game", node: ["application.name": "Minigalaxy"],
              process: process("python3", ["/usr/bin/python3", "/usr/bin/minigalaxy"]),
              category: .ambient, reason: "desktop entry io.github.sharkwouter.Minigalaxy (Categories=Game;), runs minigalaxy: a game launcher's own sounds"),
        // pw-play and paplay play for whoever called them: the role given counts,
        // the file says nothing; with no role, inference and the default decide.
        .init(name: "pw-play told it is a game", node: ["media.role": "Game", "media.name": "tone.wav"],
              client: ["application.process.binary": "pw-cat"],
              process: process("pw-cat", ["pw-play", "--media-role", "Game", "/tmp/tone.wav"]),
              category: .soloAmbient, reason: "media.role = \"Game\"", source: .inference),
        .init(name: "paplay with no role, run by a script", node: ["media.name": "bell.oga"],
              client: ["application.process.binary": "pacat"],
              process: process("pacat", ["paplay", "/usr/share/sounds/bell.oga"]),
              ancestors: [AncestorFacts(executable: "bash", arguments: ["bash", "notify.sh"])],
              category: .playback, options: [.mixWithOthers], reason: "default", source: .default),
        // ffplay: SDL's "Audio Stream" from a program the user chose to play media.
        .init(name: "ffplay via SDL's pulse backend", node: ["media.name": "Audio Stream", "application.name": "ffplay"],
              process: process("ffplay", ["ffplay", "-nodisp", "/home/u/Music/song.ogg"]),
              category: .playback, reason: "ffplay was given a media file (song.ogg) to play"),
        .init(name: "an unknown SDL player given a stream", node: ["media.name": "Audio Stream", "media.role": "Game"],
              client: ["application.name": "SDL Application"],
              process: process("tinyplay", ["tinyplay", "https://radio.example.org/live.ogg"]),
              category: .playback, reason: "was given a stream (https://radio.example.org/live.ogg) to play"),
        .init(name: "an SDL game given nothing stays a game (inference)", node: ["media.name": "Audio Stream"],
              process: process("sdlgame", ["sdlgame", "--level", "3"]), category: .soloAmbient,
              reason: "a game audio library's name", source: .inference),
        .init(name: "Linphone's call", node: ["media.name": "Speaker"], process: process("linphone"),
              category: .playAndRecord, reason: "desktop entry linphone (Categories=Network;Telephony;), runs linphone: a call app"),
        .init(name: "GNOME Calls by its application.id", node: ["media.name": "audio"],
              client: ["application.id": "org.gnome.Calls"], category: .playAndRecord,
              reason: "application.id = \"org.gnome.Calls\": a call app"),
        .init(name: "Telegram's ping", node: ["media.name": "OpenAL Soft"], process: process("telegram-desktop"),
              category: .systemSound, reason: "a messenger playing alone, rings and pings"),
        .init(name: "Telegram in a call", node: ["media.name": "OpenAL Soft"], process: process("telegram-desktop"),
              duplex: true, category: .playAndRecord, reason: "a messenger in a call"),
        .init(name: "Mumble's microphone", node: ["media.name": "Mumble"], direction: .capture, process: process("mumble"),
              category: .playAndRecord, reason: "a messenger capturing, a call"),
        .init(name: "pavucontrol's meter that names nothing", node: ["media.name": "input"],
              client: ["application.name": "PulseAudio Volume Control"], direction: .capture, process: process("pavucontrol"),
              category: .audioProcessing, reason: "(known level meter/visualizer", source: .inference),
        .init(name: "GNOME Settings' input meter", node: ["media.name": "Microphone"], direction: .capture,
              process: process("gnome-control-center", cgroup: unit + "app-gnome-org.gnome.Settings-4242.scope\n"),
              category: .audioProcessing, reason: "desktop entry org.gnome.Settings (Categories=GNOME;GTK;Settings;), launched in app-gnome-org.gnome.Settings-4242.scope: sound settings capturing, a level meter"),
        .init(name: "GNOME Clocks' alarm", node: ["media.name": "Alarm"], client: ["application.id": "org.gnome.clocks"],
              category: .playback, reason: "desktop entry org.gnome.clocks (Categories=GNOME;GTK;Utility;Clock;), application.id = \"org.gnome.clocks\": an alarm the user set"),
        .init(name: "a screen reader with an Accessibility entry", node: ["media.name": "speech"],
              process: process("reader", cgroup: unit + "app-gnome-org.example.Reader-1.scope\n"),
              category: .playback, options: [.duckOthers], mode: .spokenAudio, reason: "assistive technology speaking"),
        // Its entry (Audio;AudioVideo) names no family: a capture nothing else classified records.
        .init(name: "GNOME Sound Recorder (a gjs script)", node: ["media.name": "record"], direction: .capture,
              process: process("gjs-console", ["/usr/bin/gjs", "/usr/bin/gnome-sound-recorder"]),
              category: .record, reason: "nothing else classified", source: .inference),
        .init(name: "OBS by its KDE launch unit", node: ["media.name": "Mic/Aux"], direction: .capture,
              process: process("obs", cgroup: unit + "app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope\n"),
              category: .record, reason: "launched in app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope: a recorder recording"),
        .init(name: "Audacity playing while recording is no call", node: ["media.name": "Audacity"],
              process: process("audacity"), duplex: true, category: .playback,
              reason: "an audio/video editor playing the user's work"),
        .init(name: "Ardour capturing", node: ["media.name": "ardour"], direction: .capture,
              process: process("ardour", ["/usr/bin/ardour", "session.ardour"]), category: .record,
              reason: "desktop entry ardour (Categories=AudioVideo;X-AudioEditing;Audio;Recorder;), runs ardour: an audio/video editor recording"),
        .init(name: "Rhythmbox by its GNOME scope", node: ["media.name": "Playback"],
              process: process("rhythmbox", cgroup: unit + "app-gnome-org.gnome.Rhythmbox3-12345.scope\n"),
              category: .playback, reason: "desktop entry org.gnome.Rhythmbox3 (Categories=GNOME;GTK;AudioVideo;Audio;Player;), launched in app-gnome-org.gnome.Rhythmbox3-12345.scope: a media player"),
        .init(name: "a player's notification sound stays an event sound", node: ["media.name": "ding", "event.id": "message"],
              process: process("rhythmbox"), category: .systemSound, reason: "event.id", source: .inference),
        .init(name: "mpv's stream with pw-cat's role Music", node: ["media.role": "Music"], process: process("mpv"),
              category: .playback, reason: "a media player"),
        .init(name: "Chromium", node: ["application.name": "Chromium"], process: process("chromium"),
              category: .playback, options: [.mixWithOthers], reason: "a web browser"),
        // Notification helpers.
        .init(name: "paplay run by dunst's script", node: ["media.name": "message.oga"],
              client: ["application.name": "paplay"],
              process: process("paplay", ["paplay", "/usr/share/sounds/freedesktop/stereo/message.oga"]),
              ancestors: [AncestorFacts(executable: "dash", arguments: ["/bin/sh", "/home/u/.config/dunst/sound.sh"]),
                          AncestorFacts(executable: "dunst", arguments: ["/usr/bin/dunst"])],
              category: .systemSound, reason: "notification helper: paplay started by dunst, a notification daemon"),
        .init(name: "pw-play run by a messenger", node: ["media.name": "incoming"],
              process: process("pw-play", ["pw-play", "/usr/share/sounds/ping.ogg"]),
              ancestors: [AncestorFacts(executable: "pidgin", arguments: ["pidgin"])],
              category: .systemSound, reason: "notification helper: pw-play started by pidgin, a messenger"),
        // A program with its own desktop entry started by a messenger is that
        // program (a link opening the browser), not a notification.
        .init(name: "mpv opened from a messenger", node: ["media.name": "clip.webm"],
              process: process("mpv", ["mpv", "/tmp/clip.webm"]),
              ancestors: [AncestorFacts(executable: "telegram-desktop", arguments: ["telegram-desktop"])],
              category: .playback, reason: "a media player"),
        .init(name: "paplay run from a terminal plays what the user chose", node: ["media.name": "song.flac"],
              process: process("paplay", ["paplay", "song.flac"],
                               cgroup: unit + "app-org.gnome.Terminal.slice/vte-spawn-8a3864e7-404c-47a6-b149-f333c63228a5.scope\n"),
              ancestors: [AncestorFacts(executable: "bash", arguments: ["bash"]),
                          AncestorFacts(executable: "gnome-terminal-server", arguments: ["/usr/libexec/gnome-terminal-server"])],
              category: .playback, reason: "paplay was given a media file (song.flac) to play"),
        // The scope of a panel that launched a program describes the panel, not the program.
        .init(name: "a program launched from a COSMIC panel", node: ["media.name": "Audio Stream"],
              process: process("sdlgame", cgroup: unit + "app-cosmic-org.gnome.Settings-4376.scope\n"),
              category: .soloAmbient, reason: "a game audio library's name", source: .inference),
        // Nothing found: classification as without app knowledge.
        .init(name: "no facts", node: ["media.name": "Playback Stream"], category: .playback,
              options: [.mixWithOthers], reason: "default", source: .default),
    ]

    /// Apps as they run on a desktop: browsers' web apps, wrapper scripts in
    /// a unit, recorders of what plays, helpers playing the sound theme.
    static let onTheDesktop: [AppKnowledgeCase] = [
        .init(name: "Google Meet's web app by Chrome's command line", node: ["media.name": "Playback"],
              client: ["application.name": "Google Chrome"],
              process: process("chrome", ["/opt/google/chrome/chrome --type=utility --utility-sub-type=audio.mojom.AudioService"],
                               cgroup: unit + "app-com.google.Chrome-11254.scope\n"),
              ancestors: [AncestorFacts(executable: "chrome", arguments: [meetMain])],
              category: .systemSound,
              reason: "web app \"Google Meet\" (desktop entry chrome-kjgfgldnnfoeklkmfkjfagphfepbbdan-Default (Categories=), its browser runs the web app crx_kjgfgldnnfoeklkmfkjfagphfepbbdan), named like a known VoIP app, playback only"),
        .init(name: "Google Meet's web app in a call", node: ["media.name": "Playback"],
              client: ["application.name": "Google Chrome"],
              process: process("chrome", ["/opt/google/chrome/chrome --type=utility"]),
              ancestors: [AncestorFacts(executable: "chrome", arguments: [meetMain])],
              instance: InstanceFacts(otherSide: InstanceStream(nodeID: 51, name: "RecordStream", direction: .capture, activity: .opening)),
              category: .playAndRecord, reason: "its browser runs the web app crx_kjgfgldnnfoeklkmfkjfagphfepbbdan): a web app in a call, its app also has a capture stream 51 \"RecordStream\" still opening"),
        .init(name: "Teams' web app by Edge's GNOME scope", node: ["media.name": "RecordStream"],
              client: ["application.name": "Microsoft Edge input"], direction: .capture,
              process: process("msedge", cgroup: unit + "app-gnome-msedge\\x2dcifhbcnohmdccbgoicgdjpfamggdegmo\\x2dDefault-5120.scope\n"),
              category: .playAndRecord, reason: "web app \"Microsoft Teams\" (desktop entry msedge-cifhbcnohmdccbgoicgdjpfamggdegmo-Default (Categories=), launched in app-gnome-msedge"),
        .init(name: "a plain Chromium tab stays the browser", node: ["media.name": "Playback"],
              client: ["application.name": "Chromium"],
              process: process("chromium", cgroup: unit + "app-org.chromium.Chromium-7702.scope\n"),
              ancestors: [AncestorFacts(executable: "chromium", arguments: ["/usr/lib/chromium/chromium"])],
              category: .playback, options: [.mixWithOthers], reason: "desktop entry chromium (Categories=Network;WebBrowser;), runs chromium: a web browser"),
        .init(name: "a Firefox web app (PWAsForFirefox) filed under WebBrowser", node: ["media.name": "AudioStream"],
              client: ["application.name": "Firefox"],
              process: process("firefox", ["/home/u/.local/share/firefoxpwa/runtime/firefox", "-contentproc"]),
              ancestors: [AncestorFacts(executable: "firefox", arguments: ["/home/u/.local/share/firefoxpwa/runtime/firefox", "--class",
                                                                             "FFPWA-01HQ9ZJ8X1V2B3N4M5K6J7H8G9", "--name",
                                                                             "FFPWA-01HQ9ZJ8X1V2B3N4M5K6J7H8G9", "--pwa",
                                                                             "01HQ9ZJ8X1V2B3N4M5K6J7H8G9"])],
              category: .systemSound, reason: "web app \"Discord\""),
        .init(name: "an Epiphany web app", node: ["media.name": "WebKit"],
              process: process("WebKitWebProcess", ["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/WebKitWebProcess", "7", "41"]),
              ancestors: [AncestorFacts(executable: "bwrap", arguments: ["bwrap", "--args", "40"]),
                          AncestorFacts(executable: "epiphany", arguments: ["epiphany", "--application-mode",
                                        "--profile=/home/u/.local/share/org.gnome.Epiphany.WebApp_3fa8d4b2c6e1f0a7b9c8d7e6f5a4b3c2d1e0f9a8"])],
              category: .playback, options: [.mixWithOthers], reason: "web app \"Mastodon\" (desktop entry org.gnome.Epiphany.WebApp_3fa8d4b2c6e1f0a7b9c8d7e6f5a4b3c2d1e0f9a8 (Categories=GNOME;GTK;), its browser runs the web app org.gnome.Epiphany.WebApp_3fa8d4b2c6e1f0a7b9c8d7e6f5a4b3c2d1e0f9a8): a web app playing"),
        .init(name: "0 A.D.'s engine under its wrapper script in the scope", node: ["media.name": "Playback Stream"],
              process: process("pyrogenesis", ["/usr/games/pyrogenesis"], cgroup: unit + "app-gnome-0ad-6120.scope\n"),
              ancestors: [AncestorFacts(executable: "dash", arguments: ["/bin/sh", "/usr/games/0ad"])],
              category: .soloAmbient, reason: "desktop entry 0ad (Categories=Game;StrategyGame;), launched in app-gnome-0ad-6120.scope by 0ad: a game"),
        .init(name: "SuperTuxKart in rofi's service", node: ["media.name": "Playback Stream"],
              process: process("supertuxkart", cgroup: unit + "app-rofi-supertuxkart-19676.service\n"),
              category: .soloAmbient, reason: "launched in app-rofi-supertuxkart-19676.service: a game"),
        .init(name: "Kazam recording the desktop beside its microphone", node: ["media.name": "Record Stream", "stream.capture.sink": "true"],
              direction: .capture, process: process("python3.11", ["/usr/bin/python3", "/usr/bin/kazam"]),
              instance: InstanceFacts(microphone: InstanceStream(nodeID: 61, name: "Record Stream", direction: .capture, activity: .running)),
              category: .record, reason: "and its app also captures a running capture stream 61", source: .inference),
        .init(name: "OBS recording the desktop: its entry says Recorder", node: ["media.name": "Desktop Audio", "stream.capture.sink": "true"],
              direction: .capture, process: process("obs"),
              category: .record, reason: "by desktop entry com.obsproject.Studio (Categories=AudioVideo;Recorder;), runs obs: a recording of what plays"),
        .init(name: "sound settings metering the speakers beside the microphone", node: ["media.name": "Speakers", "stream.capture.sink": "true"],
              direction: .capture, process: process("gnome-control-center"),
              instance: InstanceFacts(microphone: InstanceStream(nodeID: 61, name: "Microphone", direction: .capture, activity: .running)),
              category: .audioProcessing, reason: "by gnome-control-center (a known level meter/visualizer)"),
        .init(name: "mpv playing the sound theme from a script", node: ["media.name": "bell"],
              process: process("mpv", ["mpv", "--no-video", "/usr/share/sounds/freedesktop/stereo/bell.oga"]),
              ancestors: [AncestorFacts(executable: "bash", arguments: ["bash", "/home/u/bin/remind"])],
              category: .systemSound, reason: "mpv plays /usr/share/sounds/freedesktop/stereo/bell.oga, a file of the desktop's sound themes"),
        .init(name: "paplay started by a daemon whose unit has an entry", node: ["media.name": "alert"],
              process: process("pacat", ["paplay", "/home/u/alert.wav"], cgroup: unit + "app-dunst@autostart.service\n"),
              ancestors: [AncestorFacts(executable: "dash", arguments: ["/bin/sh", "-c", "paplay /home/u/alert.wav"]),
                          AncestorFacts(executable: "dunst", arguments: ["/usr/bin/dunst"])],
              category: .systemSound, reason: "notification helper: pacat started by dunst, a notification daemon"),
        .init(name: "baresip's microphone through the ALSA plug-in", node: ["media.name": "ALSA Capture"],
              client: ["application.name": "ALSA plug-in [baresip]"], direction: .capture, process: process("baresip"),
              category: .playAndRecord, reason: "application.name = \"ALSA plug-in [baresip]\" (known VoIP app: baresip)", source: .inference),
    ]

    /// Entries written at run time that the fixtures do not hold: a Firefox
    /// web app (PWAsForFirefox's form, `native/src/components/site.rs`), an
    /// Epiphany one, and an autostarted notification daemon.
    static let runTimeEntries = [
        DesktopEntry(id: "FFPWA-01HQ9ZJ8X1V2B3N4M5K6J7H8G9", name: "Discord", categories: ["Network", "WebBrowser"],
                     exec: "firefoxpwa site launch 01HQ9ZJ8X1V2B3N4M5K6J7H8G9 --protocol %u",
                     startupWMClass: "FFPWA-01HQ9ZJ8X1V2B3N4M5K6J7H8G9"),
        DesktopEntry(id: "org.gnome.Epiphany.WebApp_3fa8d4b2c6e1f0a7b9c8d7e6f5a4b3c2d1e0f9a8", name: "Mastodon", categories: ["GNOME", "GTK"],
                     exec: "epiphany --application-mode \"--profile=/home/u/.local/share/org.gnome.Epiphany.WebApp_3fa8d4b2c6e1f0a7b9c8d7e6f5a4b3c2d1e0f9a8\" https://mastodon.social/",
                     startupWMClass: "org.gnome.Epiphany.WebApp_3fa8d4b2c6e1f0a7b9c8d7e6f5a4b3c2d1e0f9a8"),
        DesktopEntry(id: "dunst", exec: "dunst"),
    ]

    @Test(arguments: onTheDesktop)
    func judgesAppsAsTheyRunOnTheDesktop(_ example: AppKnowledgeCase) throws {
        let got = try example.classify(DesktopEntryIndex(Self.runTimeEntries + (try DesktopEntryFixtures.indexEntries())))
        print("\(example.name): \(got.category.rawValue) — \(got.reason)")
        #expect(got.category == example.category, "\(got.reason)")
        #expect(got.options == example.options, "\(got.reason)")
        #expect(got.source == example.source, "\(got.reason)")
        #expect(got.reason.contains(example.reason), "\(got.reason)")
        #expect(!got.reason.contains("web browser") || example.name.contains("plain"), "no web app judged as its browser: \(got.reason)")
    }

    @Test(arguments: families)
    func decidesTheFamily(_ example: AppKnowledgeCase) throws {
        let accessibility = DesktopEntry(id: "org.example.Reader", categories: ["Utility", "Accessibility"], exec: "reader")
        let got = try example.classify(DesktopEntryIndex(
            [accessibility] + (try DesktopEntryFixtures.indexEntries())))
        #expect(got.category == example.category, "\(got.reason)")
        #expect(got.options == example.options, "\(got.reason)")
        #expect(got.mode == example.mode, "\(got.reason)")
        #expect(got.source == example.source, "\(got.reason)")
        #expect(got.reason.contains(example.reason), "\(got.reason)")
    }

    /// What the stream says of itself or the user and the config said comes
    /// first: the app step only decides what they leave open.
    @Test func explicitDeclarationsComeFirst() throws {
        let index = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let retroarch = AppFacts.resolve(nodeProps: [:], clientProps: [:], process: process("retroarch"), entries: index)
        func classify(_ props: [String: String], rules: [ClassificationRule] = [], inference: Bool = true) throws -> Classification {
            try Classifier(config: classifierTestConfig(rules: rules, inference: inference)).classify(StreamFacts(
                nodeID: 1, direction: .playback, nodeProps: props, app: retroarch))
        }
        #expect(try classify(["policy.category": "playback"]).source == .streamProperties)
        let rule = ClassificationRule(matches: [["media.name": .equals("RetroArch")]],
                                      actions: RuleActions(category: .ambient), origin: "test:1")
        #expect(try classify(["media.name": "RetroArch"], rules: [rule]).category == .ambient)
        #expect(try classify(["media.role": "Notification"]).category == .systemSound)
        #expect(try classify(["media.role": "Navigation"]).options == [.duckOthers])
        #expect(try classify(["media.role": "Game"]).source == .app, "a library's generic role says less than the app")
        #expect(try classify([:], inference: false).source == .default, "inference off switches app knowledge off too")
        let options = ClassificationRule(matches: [["media.name": .equals("RetroArch")]],
                                         actions: RuleActions(options: [.mixWithOthers]), origin: "test:2")
        let withOptions = try classify(["media.name": "RetroArch"], rules: [options])
        #expect(withOptions.category == .soloAmbient && withOptions.options == [.mixWithOthers])
    }

    /// The facts are found in the order of trust: the sandbox's app id, the
    /// app's application.id, the launch unit, the program.
    @Test func entriesAreFoundInOrderOfTrust() throws {
        let index = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let both = try #require(AppFacts.resolve(
            nodeProps: ["application.id": "org.gnome.Rhythmbox3"], clientProps: [:],
            process: process("mpv", cgroup: unit + "app-gnome-vlc-1.scope\n"), entries: index))
        #expect(both.entry?.entry.id == "org.gnome.Rhythmbox3")
        let flatpak = DesktopEntry(id: "com.spotify.Client", categories: ["Audio", "Player"], exec: "flatpak run com.spotify.Client",
                                   flatpakID: "com.spotify.Client")
        let sandboxed = try #require(AppFacts.resolve(
            nodeProps: ["application.id": "mpv"], clientProps: ["pipewire.access.portal.app_id": "com.spotify.Client"],
            process: process("spotify"), entries: DesktopEntryIndex([flatpak] + (try DesktopEntryFixtures.indexEntries()))))
        #expect(sandboxed.entry?.source == .sandboxAppID("com.spotify.Client"))
        // A terminal's unit says nothing of the program in it; its entry is never the program's.
        let inTerminal = AppFacts.resolve(nodeProps: [:], clientProps: [:],
            process: process("sdlgame", cgroup: unit + "app-org.gnome.Terminal.slice/vte-spawn-1.scope\n"), entries: index)
        #expect(inTerminal?.entry == nil)
        // The binary the stream reports is enough when the adapter read no process.
        let byBinary = AppFacts.resolve(nodeProps: [:], clientProps: ["application.process.binary": "vlc"],
                                        process: nil, entries: index)
        #expect(byBinary?.entry?.entry.id == "vlc")
        #expect(AppFacts.resolve(nodeProps: [:], clientProps: [:], process: nil, entries: index) == nil)
    }
}

extension DesktopEntryFixtures {
    static func indexEntries() throws -> [DesktopEntry] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".desktop") && !$0.contains("autostart") && $0 != "xfce4-notifyd.desktop" }
        return try files.sorted().map(entry)
    }
}

@Suite struct AppFactsInTheGraphTests {
    /// The adapter hands the app facts by client id; a client it found
    /// nothing for is classified as without them.
    @Test func appFactsReachTheirClientsStreams() throws {
        var builder = StreamGraphBuilder()
        builder.client(30, ["application.name": "libretro frontend"])
        builder.client(31, ["application.name": "libretro frontend"])
        builder.stream(40, client: 30, .playback, .running, ["media.name": "Output"])
        builder.stream(41, client: 31, .playback, .running, ["media.name": "Output"])
        let entries = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let app = try #require(AppFacts.resolve(nodeProps: [:], clientProps: [:],
                                                process: ProcessFacts(executable: "retroarch"), entries: entries))
        var cache = ClassificationCache(classifier: try Classifier(config: classifierTestConfig()))
        let classified = cache.classifyAll(graph: builder.graph, overrides: .empty, apps: [30: app])
        #expect(classified[40]?.classification.category == .soloAmbient)
        #expect(classified[40]?.classification.source == .app)
        #expect(classified[41]?.classification.source == .default)
        // New facts for a client reclassify its streams.
        let again = cache.classifyAll(graph: builder.graph, overrides: .empty, apps: [:])
        #expect(again[40]?.classification.source == .default)
    }
}
