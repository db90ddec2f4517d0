import Testing
@testable import PolicyCore

/// Families a stream's properties alone tell (docs/CLASSIFICATION.md,
/// "Sound-theme files", "Telephony roles", "The ALSA plug-in's name").
@Suite struct PropertyFamiliesTests {
    static func infer(_ node: [String: String], _ direction: StreamDirection = .playback) -> InferredCategory? {
        var props = node
        props["media.class"] = direction == .playback ? "Stream/Output/Audio" : "Stream/Input/Audio"
        return RoleInference.infer(StreamFacts(nodeID: 1, direction: direction, nodeProps: props))
    }

    /// The XDG sound theme's files, as paplay and pw-play name their
    /// streams (`media.name`, `media.filename`: the file as given).
    @Test func soundThemeFilesAreSystemSounds() {
        let cases: [([String: String], Category?)] = [
            (["media.name": "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"], .systemSound),
            (["media.filename": "/home/u/.local/share/sounds/ocean/stereo/bell.ogg"], .systemSound),
            // pw-play's default role is a library default: the file says more.
            (["media.role": "Music", "media.name": "/usr/share/sounds/freedesktop/stereo/complete.oga"], .systemSound),
            // A role that says more keeps its word: an alarm sounds in silent mode.
            (["media.role": "alarm", "media.filename": "/usr/share/sounds/gnome/default/alerts/bark.ogg"], .playback),
            (["event.id": "alarm-clock-elapsed", "media.filename": "/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga"], .playback),
            // Not a theme: a file directly in sounds/, a user's music.
            (["media.name": "/usr/share/sounds/bell.oga"], nil),
            (["media.name": "/home/u/Music/share/song.ogg"], nil),
        ]
        for (node, expected) in cases {
            let got = Self.infer(node)
            print("\(node): \(got?.category.rawValue ?? "nil") — \(got?.evidence ?? "")")
            #expect(got?.category == expected, "\(node): \(got?.evidence ?? "nil")")
        }
        #expect(Self.infer(["media.name": "/usr/share/sounds/freedesktop/stereo/bell.oga"], .capture)?.category == .record,
                "a capture is no sound")
    }

    /// Telephony stacks' roles (Tizen's PulseAudio stream roles,
    /// `src/sound_manager_private.c` of its sound-manager API; PulseAudio's
    /// `phone`; WirePlumber 0.5's Alert and GPS).
    @Test func telephonyRolesNameTheCallAndTheRing() {
        let cases: [(String, StreamDirection, Category)] = [
            ("call-voice", .playback, .playAndRecord), ("call-video", .capture, .playAndRecord),
            ("voip", .playback, .playAndRecord), ("ringbacktone-call", .playback, .playAndRecord),
            ("ringtone-call", .playback, .systemSound), ("ringtone-voip", .playback, .systemSound),
            ("phone", .capture, .playAndRecord), ("Alert", .playback, .playback), ("GPS", .playback, .playback),
        ]
        for (role, direction, expected) in cases {
            let got = Self.infer(["media.role": role], direction)
            print("media.role = \(role) (\(direction)): \(got?.category.rawValue ?? "nil")")
            #expect(got?.category == expected, "\(role)")
        }
        #expect(RoleInference.meaning(ofRole: "gps")?.options == [.duckOthers])
        #expect(RoleInference.meaning(ofRole: "voice-recognition") == nil, "no word of a call or a ring")
        #expect(RoleInference.meaning(ofRole: "recall") == nil, "a word, not a part of one")
    }

    /// The plug-ins name the client after the program: PulseAudio's
    /// (alsa-plugins `pulse/pulse.c`) and PipeWire's, old and new.
    @Test func theALSAPlugInNamesItsProgram() {
        #expect(ALSAPluginName.program(ofApplicationName: "ALSA plug-in [baresip]") == "baresip")
        #expect(ALSAPluginName.program(ofApplicationName: "PipeWire ALSA [vrserver]") == "vrserver")
        #expect(ALSAPluginName.program(ofApplicationName: "ALSA plug-in") == nil)
        #expect(ALSAPluginName.program(ofApplicationName: "ALSA plug-in []") == nil)
        let firefox = KnownApps.match(nodeProps: ["application.name": "ALSA plug-in [firefox-esr]"], clientProps: [:])
        #expect(firefox?.kind == .browser && firefox?.evidence == #"application.name = "ALSA plug-in [firefox-esr]" (known browser: firefox)"#,
                "\(firefox?.evidence ?? "nil")")
        // PipeWire's own plug-in is no PipeWire stream: the app is the program.
        #expect(KnownApps.match(nodeProps: ["application.name": "PipeWire ALSA [aplay]"], clientProps: [:]) == nil)
        #expect(Self.infer(["media.name": "ALSA Playback", "application.name": "ALSA plug-in [mpv]"])?.category == .playback)
    }
}

/// A browser's web apps are known by the marks the browser writes in the
/// entry and on its command line (docs/CLASSIFICATION.md, "Web apps").
@Suite struct WebAppTests {
    @Test func entriesAreKnownByTheirMarks() throws {
        let meet = try DesktopEntryFixtures.entry("chrome-kjgfgldnnfoeklkmfkjfagphfepbbdan-Default.desktop")
        #expect(meet.isWebApp && meet.webAppKeys == ["crx_kjgfgldnnfoeklkmfkjfagphfepbbdan"])
        #expect(meet.program == "google-chrome")
        let chromium = try DesktopEntryFixtures.entry("chromium.desktop")
        #expect(!chromium.isWebApp, "a browser's own entry is no web app")
        let mint = DesktopEntry(id: "webapp-YouTube4512", name: "YouTube",
                                exec: "sh -c 'firefox --class WebApp-YouTube4512 --name WebApp-YouTube4512 --no-remote https://youtube.com'",
                                startupWMClass: "WebApp-YouTube4512")
        #expect(mint.webAppKeys.contains("WebApp-YouTube4512"))
    }

    @Test func commandLinesShowTheWebApp() {
        #expect(WebApp.keys(ofCommandLine: ["/opt/google/chrome/chrome --profile-directory=Default --app-id=kjgfgldnnfoeklkmfkjfagphfepbbdan"])
            == ["crx_kjgfgldnnfoeklkmfkjfagphfepbbdan"], "Chromium's command line rewritten as one string")
        #expect(WebApp.keys(ofCommandLine: ["firefox", "--class", "FFPWA-01HQ9", "--name", "FFPWA-01HQ9"]) == ["FFPWA-01HQ9"])
        #expect(WebApp.keys(ofCommandLine: ["firefoxpwa", "site", "launch", "01HQ9"]) == ["FFPWA-01HQ9"])
        #expect(WebApp.keys(ofCommandLine: ["epiphany", "--application-mode",
                                            "--profile=/home/u/.local/share/org.gnome.Epiphany.WebApp_3fa8d4"])
            == ["org.gnome.Epiphany.WebApp_3fa8d4"])
        #expect(WebApp.keys(ofCommandLine: ["chromium", "--class=WebApp-Mail1"]) == ["WebApp-Mail1"])
        #expect(WebApp.keys(ofCommandLine: ["/usr/lib/chromium/chromium", "--type=renderer"]).isEmpty)
        #expect(WebApp.keys(ofCommandLine: ["firefox", "--class", "Navigator"]).isEmpty, "a class that is no web app's")
    }
}
