import Foundation
import Testing
@testable import PolicyCore

/// The real desktop entries of Debian 12 packages (Corpus/desktop-entries,
/// packages.json names each file's package and version).
enum DesktopEntryFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Corpus/desktop-entries")

    static func text(_ file: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
    }

    static func entry(_ file: String) throws -> DesktopEntry {
        try #require(DesktopEntry.parse(try text(file), id: DesktopEntry.desktopID(relativePath: file)))
    }

    /// Every `applications` entry of the fixtures (autostart entries are not
    /// in the directories the adapter indexes), in one index.
    static func index() throws -> DesktopEntryIndex {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".desktop") && !$0.contains("autostart") && $0 != "xfce4-notifyd.desktop" }
        return DesktopEntryIndex(try files.sorted().map(entry))
    }
}

struct DesktopEntryCase: Sendable, CustomTestStringConvertible {
    var file: String
    var id: String
    var categories: [String]
    var program: String?
    var tryExec: String? = nil
    var noDisplay = false
    var testDescription: String { file }
}

@Suite struct DesktopEntryTests {
    static let debian: [DesktopEntryCase] = [
        .init(file: "retroarch.desktop", id: "retroarch", categories: ["Game", "Emulator"], program: "retroarch"),
        // Exec=env QT_QPA_PLATFORM=xcb dolphin-emu
        .init(file: "dolphin-emu.desktop", id: "dolphin-emu", categories: ["Game", "Emulator"], program: "dolphin-emu"),
        .init(file: "supertuxkart.desktop", id: "supertuxkart", categories: ["Game", "ArcadeGame"], program: "supertuxkart"),
        .init(file: "linphone.desktop", id: "linphone", categories: ["Network", "Telephony"], program: "linphone"),
        .init(file: "mumble.desktop", id: "mumble", categories: ["Network", "Chat", "Qt"], program: "mumble"),
        .init(file: "org.gnome.Rhythmbox3.desktop", id: "org.gnome.Rhythmbox3",
              categories: ["GNOME", "GTK", "AudioVideo", "Audio", "Player"], program: "rhythmbox"),
        .init(file: "org.gnome.Rhythmbox3.device.desktop", id: "org.gnome.Rhythmbox3.device",
              categories: ["GNOME", "GTK", "AudioVideo"], program: "rhythmbox-client", noDisplay: true),
        .init(file: "org.gnome.clocks.desktop", id: "org.gnome.clocks", categories: ["GNOME", "GTK", "Utility", "Clock"],
              program: "gnome-clocks"),
        .init(file: "com.obsproject.Studio.desktop", id: "com.obsproject.Studio", categories: ["AudioVideo", "Recorder"],
              program: "obs"),
        // Exec=env GDK_BACKEND=x11 audacity %F
        .init(file: "audacity.desktop", id: "audacity", categories: ["AudioVideo", "Audio", "AudioVideoEditing"],
              program: "audacity"),
        .init(file: "org.gnome.SoundRecorder.desktop", id: "org.gnome.SoundRecorder",
              categories: ["GNOME", "GTK", "Audio", "AudioVideo"], program: "gnome-sound-recorder"),
        // TryExec=mpv, Exec=mpv --player-operation-mode=pseudo-gui -- %U
        .init(file: "mpv.desktop", id: "mpv", categories: ["AudioVideo", "Audio", "Video", "Player", "TV"],
              program: "mpv", tryExec: "mpv"),
        .init(file: "vlc.desktop", id: "vlc", categories: ["AudioVideo", "Player", "Recorder"], program: "vlc",
              tryExec: "/usr/bin/vlc"),
        .init(file: "vlc-openbd.desktop", id: "vlc-openbd", categories: [], program: "vlc", noDisplay: true),
        .init(file: "firefox-esr.desktop", id: "firefox-esr", categories: ["Network", "WebBrowser"], program: "firefox-esr"),
        .init(file: "chromium.desktop", id: "chromium", categories: ["Network", "WebBrowser"], program: "chromium"),
        .init(file: "pavucontrol.desktop", id: "pavucontrol",
              categories: ["AudioVideo", "Audio", "Mixer", "GTK", "Settings", "X-XFCE-SettingsDialog",
                           "X-XFCE-HardwareSettings"], program: "pavucontrol"),
        // Orca's only entry in Debian 12 is its autostart file, with no Categories.
        .init(file: "orca-autostart.desktop", id: "orca-autostart", categories: [], program: "orca", noDisplay: true),
        .init(file: "ardour.desktop", id: "ardour", categories: ["AudioVideo", "X-AudioEditing", "Audio", "Recorder"],
              program: "ardour"),
        .init(file: "org.telegram.desktop.desktop", id: "org.telegram.desktop",
              categories: ["Chat", "Network", "InstantMessaging", "Qt"], program: "telegram-desktop",
              tryExec: "/usr/bin/telegram-desktop"),
        .init(file: "io.github.qtox.qTox.desktop", id: "io.github.qtox.qTox",
              categories: ["Network", "InstantMessaging", "Chat", "Telephony", "VideoConference"], program: "qtox",
              tryExec: "qtox"),
        .init(file: "org.gnome.Settings.desktop", id: "org.gnome.Settings", categories: ["GNOME", "GTK", "Settings"],
              program: "gnome-control-center"),
        // Exec=/usr/bin/gpodder: a Python script, named by its own path.
        .init(file: "gpodder.desktop", id: "gpodder",
              categories: ["AudioVideo", "Audio", "Network", "FileTransfer", "News", "GTK"], program: "gpodder"),
        .init(file: "io.github.sharkwouter.Minigalaxy.desktop", id: "io.github.sharkwouter.Minigalaxy",
              categories: ["Game"], program: "minigalaxy"),
    ]

    @Test(arguments: debian)
    func parsesDebianEntries(_ example: DesktopEntryCase) throws {
        let entry = try DesktopEntryFixtures.entry(example.file)
        #expect(entry.id == example.id)
        #expect(entry.categories == example.categories)
        #expect(entry.program == example.program, "Exec=\(entry.exec ?? "nil")")
        #expect(entry.tryExec == example.tryExec)
        #expect(entry.noDisplay == example.noDisplay)
        #expect(entry.hidden == false)
        #expect(entry.name?.isEmpty == false)
    }

    /// Localized keys and other groups never overwrite the entry's own keys.
    @Test func localizedKeysAndActionGroupsAreIgnored() throws {
        // Rhythmbox's file has Name[de]… and a [Desktop Action] group with its own Exec.
        let rhythmbox = try DesktopEntryFixtures.entry("org.gnome.Rhythmbox3.desktop")
        #expect(rhythmbox.name == "Rhythmbox")
        #expect(rhythmbox.exec == "rhythmbox %U")
        let kodi = try DesktopEntryFixtures.entry("kodi.desktop")
        #expect(kodi.exec == "kodi")
        let text = """
        # a comment
        [Desktop Entry]
        Name[de]=Spiel
        Name = Game
        Categories=Game\\;Odd;ArcadeGame;;
        Exec="/opt/My Game/run" --flag "%f" %%done
        Hidden=true
        X-Flatpak=org.example.Game

        [Desktop Action new]
        Name=Other
        Exec=other
        Categories=Player;
        """
        let entry = try #require(DesktopEntry.parse(text, id: "org.example.Game"))
        #expect(entry.name == "Game")
        #expect(entry.categories == ["Game;Odd", "ArcadeGame"])
        #expect(entry.program == "run")
        #expect(DesktopExec.arguments(entry.exec ?? "") == ["/opt/My Game/run", "--flag", "%done"])
        #expect(entry.hidden)
        #expect(entry.flatpakID == "org.example.Game")
        #expect(DesktopEntry.parse("[Desktop Action x]\nExec=y\n", id: "x") == nil)
        #expect(DesktopEntry.parse("[Desktop Entry]\nType=Link\nURL=https://example.org\n", id: "x") == nil)
        #expect(DesktopEntry.parse("Exec=before-any-group\n", id: "x") == nil)
    }

    struct ExecCase: Sendable, CustomTestStringConvertible {
        var exec: String
        var program: String?
        var testDescription: String { exec }
    }

    static let execs: [ExecCase] = [
        .init(exec: "env GDK_BACKEND=x11 audacity %F", program: "audacity"),
        .init(exec: "env QT_QPA_PLATFORM=xcb dolphin-emu", program: "dolphin-emu"),
        .init(exec: "/usr/bin/env -u WAYLAND_DISPLAY A=1 B=2 game --fullscreen", program: "game"),
        .init(exec: "/usr/lib/firefox-esr/firefox-esr %u", program: "firefox-esr"),
        .init(exec: "mpv --player-operation-mode=pseudo-gui -- %U", program: "mpv"),
        // The form `flatpak build-export` writes; X-Flatpak names the app.
        .init(exec: "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=spotify --file-forwarding com.spotify.Client @@u %U @@",
              program: "flatpak"),
        .init(exec: "env BAMF_DESKTOP_FILE_HINT=/var/lib/snapd/desktop/applications/firefox_firefox.desktop /snap/bin/firefox %u",
              program: "firefox"),
        .init(exec: "python3 /usr/share/foo/foo.py %f", program: "foo.py"),
        .init(exec: "\"/opt/quoted dir/app\" \"a \\\"b\\\"\"", program: "app"),
        .init(exec: "env", program: nil),
        .init(exec: "%U", program: nil),
        .init(exec: "", program: nil),
    ]

    @Test(arguments: execs)
    func programOfExec(_ example: ExecCase) {
        #expect(DesktopExec.program(ofExec: example.exec) == example.program)
    }

    @Test func desktopIDsOfSubdirectories() {
        #expect(DesktopEntry.desktopID(relativePath: "kde4/kate.desktop") == "kde4-kate")
        #expect(DesktopEntry.desktopID(relativePath: "org.gnome.clocks.desktop") == "org.gnome.clocks")
    }

    /// The index finds an entry by id (any case), by Flatpak id and by
    /// program, preferring the entry shown in menus over a helper entry.
    @Test func indexFindsTheEntryThatDescribesTheProgram() throws {
        let index = try DesktopEntryFixtures.index()
        #expect(index.count >= 40)
        #expect(index.entry(program: "vlc")?.id == "vlc")
        #expect(index.entry(program: "rhythmbox")?.id == "org.gnome.Rhythmbox3")
        #expect(index.entry(program: "gnome-control-center")?.id == "org.gnome.Settings")
        #expect(index.entry(program: "gnome-calls")?.id == "org.gnome.Calls")
        #expect(index.entry(program: "ffplay") == nil)
        #expect(index.entry(id: "org.gnome.Clocks")?.id == "org.gnome.clocks")
        let user = DesktopEntry(id: "mpv", categories: ["Game"], exec: "mpv")
        let hidden = DesktopEntry(id: "vlc", exec: "vlc", hidden: true)
        let layered = DesktopEntryIndex([user, hidden] + [try DesktopEntryFixtures.entry("mpv.desktop"),
                                                           try DesktopEntryFixtures.entry("vlc.desktop")])
        #expect(layered.entry(id: "mpv")?.categories == ["Game"], "the first directory's entry wins")
        #expect(layered.entry(id: "vlc") == nil, "Hidden=true deletes the id")
        let flatpak = DesktopEntry(id: "com.spotify.Client", categories: ["Audio", "Music", "Player", "AudioVideo"],
                                   exec: "/usr/bin/flatpak run com.spotify.Client", flatpakID: "com.spotify.Client")
        #expect(DesktopEntryIndex([flatpak]).entry(flatpakID: "com.spotify.Client")?.id == "com.spotify.Client")
    }
}
