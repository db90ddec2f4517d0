import Foundation
import Testing
@testable import PolicyCore

@Suite struct KnownAppsTests {
    /// Streams of real desktop apps (props as pipewire-pulse or the native client shows them).
    static let apps: [InferenceCase] = [
        InferenceCase(name: "Firefox", node: playbackStreamClass.merging(
            ["application.name": "Firefox", "application.process.binary": "firefox", "media.name": "AudioStream",
             "node.name": "Firefox", "application.process.id": "3312"]) { $1 },
            category: .playback, options: [.mixWithOthers],
            evidence: #"application.process.binary = "firefox" (known browser)"#),
        InferenceCase(name: "Firefox ESR", node: playbackStreamClass.merging(
            ["application.name": "Firefox", "application.process.binary": "firefox-esr"]) { $1 },
            category: .playback, options: [.mixWithOthers], evidence: #""firefox-esr" (known browser: firefox)"#),
        InferenceCase(name: "Google Chrome", node: playbackStreamClass.merging(
            ["application.name": "Google Chrome", "application.process.binary": "chrome",
             "media.name": "Playback"]) { $1 }, category: .playback, options: [.mixWithOthers]),
        InferenceCase(name: "Firefox Flatpak by app id", node: playbackStreamClass.merging(
            ["media.name": "AudioStream"]) { $1 },
            client: ["pipewire.access.portal.app_id": "org.mozilla.firefox", "pipewire.access": "flatpak"],
            category: .playback, options: [.mixWithOthers], evidence: "pipewire.access.portal.app_id"),
        InferenceCase(name: "Spotify Flatpak", node: playbackStreamClass.merging(
            ["application.name": "spotify", "application.process.binary": "spotify", "media.name": "Spotify"]) { $1 },
            client: ["pipewire.access.portal.app_id": "com.spotify.Client", "pipewire.access": "flatpak"],
            category: .playback, evidence: #"application.process.binary = "spotify" (known music player)"#),
        InferenceCase(name: "Spotify id only", node: playbackStreamClass,
            client: ["pipewire.access.portal.app_id": "com.spotify.Client"],
            category: .playback, evidence: #""com.spotify.Client" (known music player: spotify)"#),
        InferenceCase(name: "Rhythmbox", node: playbackStreamClass.merging(
            ["application.name": "Rhythmbox", "application.id": "org.gnome.Rhythmbox3",
             "application.process.binary": "rhythmbox", "media.role": ""]) { $1 }, category: .playback),
        InferenceCase(name: "GNOME Music under python", node: playbackStreamClass.merging(
            ["application.name": "Music", "application.id": "org.gnome.Music",
             "application.process.binary": "python3.11"]) { $1 }, category: .playback,
            evidence: #"application.id = "org.gnome.Music""#),
        InferenceCase(name: "VLC", node: playbackStreamClass.merging(
            ["application.name": "VLC media player (LibVLC 3.0.18)", "application.process.binary": "vlc",
             "media.name": "audio stream"]) { $1 }, category: .playback),
        InferenceCase(name: "VLC by name only", node: playbackStreamClass.merging(
            ["application.name": "VLC media player (LibVLC 3.0.18)"]) { $1 }, category: .playback,
            evidence: "(known video player: vlc)"),
        InferenceCase(name: "mpv native", node: playbackStreamClass.merging(
            ["application.name": "mpv", "node.name": "mpv", "media.name": "holiday.mkv"]) { $1 },
            category: .playback),
        InferenceCase(name: "Kodi", node: playbackStreamClass.merging(
            ["application.process.binary": "kodi.bin", "application.name": "Kodi"]) { $1 }, category: .playback),
        InferenceCase(name: "Celluloid Flatpak", node: playbackStreamClass,
            client: ["pipewire.access.portal.app_id": "io.github.celluloid_player.Celluloid"], category: .playback),
        InferenceCase(name: "gPodder", node: playbackStreamClass.merging(
            ["application.name": "gPodder", "application.process.binary": "python3"]) { $1 },
            category: .playback, mode: .spokenAudio),
        InferenceCase(name: "Cozy", node: playbackStreamClass,
            client: ["pipewire.access.portal.app_id": "com.github.geigi.cozy"], category: .playback, mode: .spokenAudio),
        // VoIP: rings and pings when only playing.
        InferenceCase(name: "Discord ping", node: playbackStreamClass.merging(
            ["application.name": "WEBRTC VoiceEngine", "application.process.binary": "Discord",
             "media.name": "playStream"]) { $1 }, category: .systemSound, evidence: "rings and pings"),
        InferenceCase(name: "Zoom ring", node: playbackStreamClass.merging(
            ["application.name": "ZOOM VoiceEngine", "application.process.binary": "zoom"]) { $1 },
            category: .systemSound),
        InferenceCase(name: "Signal", node: playbackStreamClass.merging(
            ["application.name": "Signal", "application.process.binary": "signal-desktop"]) { $1 },
            category: .systemSound),
        InferenceCase(name: "Telegram Flatpak", node: playbackStreamClass,
            client: ["pipewire.access.portal.app_id": "org.telegram.desktop"], category: .systemSound),
        InferenceCase(name: "Teams for Linux", node: playbackStreamClass.merging(
            ["application.name": "Chromium", "application.process.binary": "teams-for-linux"]) { $1 },
            category: .systemSound),
        // A call engine that names its client after the call plays the far end.
        InferenceCase(name: "Signal's call client", node: playbackStreamClass.merging(
            ["application.name": "Signal Calling", "application.process.binary": "signal-desktop"]) { $1 },
            category: .playAndRecord, evidence: #"application.name = "Signal Calling" names a call"#),
        InferenceCase(name: "a VoIP app's recall sound is no call", node: playbackStreamClass.merging(
            ["application.name": "Element", "media.name": "recall-notification"]) { $1 },
            category: .systemSound),
        // A VoIP app's microphone is the call, even before the far end plays.
        InferenceCase(name: "Mumble mic", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "Mumble", "application.process.binary": "mumble"]) { $1 },
            category: .playAndRecord, evidence: "the microphone side of a call"),
        // ... and while both run, the plays-and-captures step makes it a call.
        InferenceCase(name: "Zoom in a call", node: playbackStreamClass.merging(
            ["application.name": "ZOOM VoiceEngine", "application.process.binary": "zoom"]) { $1 }, duplex: true,
            category: .playAndRecord, evidence: "also has a running capture stream"),
        // Recorders.
        InferenceCase(name: "OBS mic", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "OBS", "application.process.binary": "obs", "media.name": "Mic/Aux"]) { $1 },
            category: .record, evidence: "known recorder"),
        InferenceCase(name: "OBS Flatpak", direction: .capture, node: captureStreamClass,
            client: ["pipewire.access.portal.app_id": "com.obsproject.Studio"], category: .record),
        InferenceCase(name: "Sound Recorder", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "Sound Recorder", "application.id": "org.gnome.SoundRecorder",
             "application.process.binary": "gjs-console"]) { $1 }, category: .record),
        // A DAW under pipewire-jack: the node's DSP role is the JACK layer's.
        InferenceCase(name: "Ardour under pw-jack", direction: .capture, node: captureStreamClass.merging(
            ["client.api": "jack", "media.role": "DSP", "media.category": "Duplex", "node.name": "ardour"]) { $1 },
            category: .record, evidence: "every JACK client's role"),
        InferenceCase(name: "an unknown JACK client stays processing", direction: .capture,
            node: captureStreamClass.merging(
                ["client.api": "jack", "media.role": "DSP", "node.name": "jack_capture_meter"]) { $1 },
            category: .audioProcessing),
        InferenceCase(name: "a DAW's DSP role outside JACK stays processing", direction: .capture,
            node: captureStreamClass.merging(["media.role": "DSP", "node.name": "ardour"]) { $1 },
            category: .audioProcessing),
        InferenceCase(name: "Audacity playback", node: playbackStreamClass.merging(
            ["application.name": "Audacity", "application.process.binary": "audacity"]) { $1 }, category: nil),
        // Screen readers and speech.
        InferenceCase(name: "speech-dispatcher espeak-ng", node: playbackStreamClass.merging(
            ["application.name": "speech-dispatcher-espeak-ng", "application.process.binary": "sd_espeak-ng",
             "node.name": "speech-dispatcher-espeak-ng"]) { $1 },
            category: .playback, options: [.duckOthers], mode: .spokenAudio,
            evidence: #"application.process.binary = "sd_espeak-ng" (known screen reader/speech synthesizer: sd_*)"#),
        InferenceCase(name: "speech-dispatcher by name", node: playbackStreamClass.merging(
            ["application.name": "speech-dispatcher-dummy"]) { $1 },
            category: .playback, options: [.duckOthers], mode: .spokenAudio),
        InferenceCase(name: "espeak-ng", node: playbackStreamClass.merging(
            ["application.name": "eSpeak", "application.process.binary": "espeak-ng"]) { $1 },
            category: .playback, options: [.duckOthers], mode: .spokenAudio),
        // Desktop shells and alarm clocks.
        InferenceCase(name: "gnome-shell", node: playbackStreamClass.merging(
            ["application.name": "GNOME Shell", "application.process.binary": "gnome-shell"]) { $1 },
            category: .systemSound),
        InferenceCase(name: "GNOME Clocks", node: playbackStreamClass.merging(
            ["application.name": "Clocks", "application.id": "org.gnome.clocks",
             "application.process.binary": "gnome-clocks"]) { $1 }, category: .playback),
        // The audio server's own streams.
        InferenceCase(name: "pipewire module stream", direction: .capture, node: captureStreamClass.merging(
            ["node.name": "rtp-sink"]) { $1 }, client: ["application.process.binary": "pipewire",
                                                        "application.name": "pipewire"],
            category: .audioProcessing),
        // Unknown apps are left to the default; a generic vendor in an id is no match.
        InferenceCase(name: "a game", node: playbackStreamClass.merging(
            ["application.name": "Hades II", "application.process.binary": "Hades2.exe"]) { $1 }, category: nil),
        InferenceCase(name: "a KDE app", node: playbackStreamClass,
            client: ["pipewire.access.portal.app_id": "org.kde.kdenlive"], category: nil),
        InferenceCase(name: "a Python tool", node: playbackStreamClass.merging(
            ["application.process.binary": "python3"]) { $1 }, category: nil),
        InferenceCase(name: "wireplumber is not wire", node: playbackStreamClass.merging(
            ["application.name": "wireless-notes"]) { $1 }, category: nil),
    ]

    @Test(arguments: apps)
    func classifiesRealApps(_ example: InferenceCase) {
        let result = example.infer()
        #expect(result?.category == example.category)
        guard let result, example.category != nil else { return }
        #expect(result.options == example.options)
        #expect(result.mode == example.mode)
        #expect(example.reasonIsRight(result.evidence), "evidence: \(result.evidence)")
    }

    @Test func binaryIsTrustedBeforeTheApplicationName() {
        // Electron apps report application.name "Chromium".
        let match = KnownApps.match(nodeProps: ["application.name": "Chromium", "application.process.binary": "slack"],
                                    clientProps: [:])
        #expect(match?.kind == .voip)
        #expect(match?.property == "application.process.binary")
    }

    @Test func namesAreUniqueAndLowerCase() {
        var seen: [String: KnownAppKind] = [:]
        for (kind, names) in KnownApps.table {
            for name in names {
                #expect(name == name.lowercased(), "\(name)")
                #expect(!name.contains(" "), "\(name)")
                #expect(seen[name] == nil, "\(name) is both \(seen[name]?.rawValue ?? "") and \(kind.rawValue)")
                seen[name] = kind
            }
        }
    }

    /// Parts of reverse-DNS ids that name vendors or hosts, never an app:
    /// a table entry spelled like one would misclassify whole families of apps.
    @Test func noGenericWordsInTheTable() {
        let generic: Set = ["org", "com", "io", "github", "gitlab", "gnome", "kde", "freedesktop", "desktop", "client",
                            "app", "studio", "player", "browser", "music", "videos", "media", "audio", "sound"]
        for (_, names) in KnownApps.table {
            for name in names { #expect(!generic.contains(name), "\(name)") }
        }
    }

    @Test(arguments: ["firefox", "Firefox", "firefox-esr", "Firefox Developer Edition", "firefox.real"])
    func separatorSpellings(value: String) {
        #expect(KnownApps.kind(of: value) == .browser)
    }

    @Test(arguments: ["firefoxy", "xfirefox", "wireplumber-helper", "signalling"])
    func noMatchInsideAWord(value: String) {
        #expect(KnownApps.kind(of: value) != .browser)
        #expect(KnownApps.kind(of: value) != .voip)
    }

    @Test func reverseDNSPartsOnlyForAppIDs() {
        #expect(KnownApps.kind(of: "com.spotify.Client", isAppID: true) == .musicPlayer)
        #expect(KnownApps.kind(of: "com.spotify.Client") == nil)
    }

    /// docs/CLASSIFICATION.md lists the whole table: a name added here without
    /// documenting it fails.
    @Test func everyNameIsDocumented() throws {
        let docs = try classificationDocs()
        for (_, names) in KnownApps.table {
            for name in names { #expect(docs.contains("`\(name)`"), "\(name) missing from docs/CLASSIFICATION.md") }
        }
        for role in RoleInference.roles.keys { #expect(docs.contains("`\(role)`"), "role \(role) undocumented") }
    }
}

/// Reads docs/CLASSIFICATION.md next to the package.
func classificationDocs() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return try String(contentsOf: root.appendingPathComponent("docs/CLASSIFICATION.md"), encoding: .utf8)
}
