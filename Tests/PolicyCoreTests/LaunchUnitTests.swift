import Testing
@testable import PolicyCore

struct CgroupCase: Sendable, CustomTestStringConvertible {
    /// A `/proc/PID/cgroup` text, or a cgroup path, as the source shows it.
    var cgroup: String
    var launcher: String?
    var appID: String?
    /// Where the sample was seen.
    var source: String
    var testDescription: String { cgroup }
}

@Suite struct LaunchUnitTests {
    /// Real cgroup paths and unit names from public reports.
    static let samples: [CgroupCase] = [
        .init(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Recipes-273822986.scope\n",
              launcher: "flatpak", appID: "org.gnome.Recipes", source: "https://github.com/flatpak/flatpak/issues/6676"),
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-com.discordapp.Discord-820257.scope",
              launcher: "flatpak", appID: "com.discordapp.Discord", source: "https://github.com/flatpak/flatpak/issues/5923"),
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Nautilus-1205153.scope",
              launcher: "gnome", appID: "org.gnome.Nautilus", source: "https://github.com/SlyFabi/WSysMon/issues/7"),
        // KDE Plasma names no launcher and a long RANDOM.
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope",
              launcher: nil, appID: "com.obsproject.Studio", source: "https://github.com/flatpak/xdg-desktop-portal/issues/745"),
        .init(cgroup: "app-gnome-org.gnome.Terminal-92502.slice", launcher: "gnome", appID: "org.gnome.Terminal",
              source: "https://github.com/flatpak/xdg-desktop-portal/issues/745"),
        .init(cgroup: "app-sublime_merge-4209712a89fc4745a6d99409acf49c82.scope", launcher: nil, appID: "sublime_merge",
              source: "https://github.com/sublimehq/sublime_text/issues/5544"),
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-cosmic-com.system76.CosmicAppList-4376.scope",
              launcher: "cosmic", appID: "com.system76.CosmicAppList", source: "https://github.com/pop-os/cosmic-app-library/issues/242"),
        // systemd's XDG autostart generator; `\x2d` is an escaped `-`.
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-at\\x2dspi\\x2ddbus\\x2dbus@autostart.service",
              launcher: "autostart", appID: "at-spi-dbus-bus", source: "https://github.com/pop-os/cosmic-app-library/issues/242"),
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-geoclue\\x2ddemo\\x2dagent@autostart.service",
              launcher: "autostart", appID: "geoclue-demo-agent", source: "https://github.com/pop-os/cosmic-app-library/issues/242"),
        // A D-Bus activated service.
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-dbus\\x2d:1.37\\x2dorg.a11y.atspi.Registry.slice",
              launcher: "dbus", appID: "org.a11y.atspi.Registry", source: "https://github.com/pop-os/cosmic-app-library/issues/242"),
        // GNOME Terminal's shells: the leaf scope names no app, its slice names the terminal.
        .init(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-8a3864e7-404c-47a6-b149-f333c63228a5.scope\n",
              launcher: nil, appID: "org.gnome.Terminal", source: "a kernel OOM report's task_memcg (public code index)"),
        // No app unit: a login session's scope, a portal's service, a podman scope.
        .init(cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n", launcher: nil, appID: nil,
              source: "https://github.com/linuxmint/cinnamon-desktop/pull/275"),
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/session.slice/xdg-desktop-portal.service",
              launcher: nil, appID: nil, source: "https://github.com/flatpak/xdg-desktop-portal-gtk/issues/497"),
        .init(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/user.slice/podman-6696.scope\n",
              launcher: nil, appID: nil, source: "https://github.com/containers/crun/issues/376"),
        // cgroup v1 (hybrid): the unified line is `0::/`, systemd's own hierarchy has the path.
        .init(cgroup: "12:cpuset:/\n11:cpu,cpuacct:/user.slice/user-0.slice/session-1.scope\n1:name=systemd:/user.slice/user-0.slice/session-1.scope\n0::/\n",
              launcher: nil, appID: nil, source: "https://github.com/canonical/snapd/pull/9128"),
    ]

    /// The forms of systemd's "Desktop Environment Integration" document
    /// (its examples) and of Flatpak and snapd.
    static let documented: [CgroupCase] = [
        .init(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Rhythmbox3-12345.scope",
              launcher: "gnome", appID: "org.gnome.Rhythmbox3", source: "the brief's example"),
        .init(cgroup: "app-gnome-org.gnome.Evince@12345.service", launcher: "gnome", appID: "org.gnome.Evince",
              source: "https://systemd.io/DESKTOP_ENVIRONMENTS/"),
        .init(cgroup: "app-flatpak-org.telegram.desktop@12345.service", launcher: "flatpak", appID: "org.telegram.desktop",
              source: "https://systemd.io/DESKTOP_ENVIRONMENTS/"),
        .init(cgroup: "app-KDE-org.kde.okular@12345.service", launcher: "KDE", appID: "org.kde.okular",
              source: "https://systemd.io/DESKTOP_ENVIRONMENTS/"),
        .init(cgroup: "app-org.kde.amarok.service", launcher: nil, appID: "org.kde.amarok",
              source: "https://systemd.io/DESKTOP_ENVIRONMENTS/"),
        .init(cgroup: "app-org.gnome.Evince-12345.scope", launcher: nil, appID: "org.gnome.Evince",
              source: "https://systemd.io/DESKTOP_ENVIRONMENTS/"),
        .init(cgroup: "app-org.kde.kwrite@7e0d5a.service", launcher: nil, appID: "org.kde.kwrite", source: "the brief's example"),
        .init(cgroup: "app-flatpak-com.spotify.Client-4242.scope", launcher: "flatpak", appID: "com.spotify.Client",
              source: "the brief's example"),
        .init(cgroup: "app-gnome-gnome\\x2dterminal-4242.scope", launcher: "gnome", appID: "gnome-terminal",
              source: "systemd-escape(1)"),
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-2d3b76b3-6c0a-4d2b-9f35-3a3a3c8f2b1e.scope",
              launcher: "snap", appID: "firefox_firefox", source: "snapd's snap.<snap>.<app>-<uuid>.scope"),
        .init(cgroup: "app-steam-app1091500-4242.scope", launcher: "steam", appID: "app1091500",
              source: "Steam's game scopes as public tools read them"),
    ]

    /// Unit names of every shape, as launchers really write them: escaped
    /// ids, ids that look like a RANDOM, services with a RANDOM after a
    /// dash, launchers that name themselves and ones that do not, a
    /// launcher that leaves the id unescaped. `appID` is the likelier
    /// reading; the entries decide between the readings (`readings`).
    static let shapes: [CgroupCase] = [
        .init(cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-gnome\\x2dsoftware\\x2dservice-13765.scope",
              launcher: "gnome", appID: "gnome-software-service", source: "https://github.com/flatpak/xdg-desktop-portal/pull/719"),
        .init(cgroup: "app-rofi-easyeffects-19676.service", launcher: "rofi", appID: "easyeffects",
              source: "https://github.com/flatpak/xdg-desktop-portal-gtk/pull/504"),
        .init(cgroup: "app-rofi-signal\\x2ddesktop\\x20\\x2d\\x2dno\\x2dsandbox-12745.service", launcher: "rofi",
              appID: "signal-desktop --no-sandbox", source: "https://github.com/flatpak/xdg-desktop-portal-gtk/pull/504"),
        .init(cgroup: "app-pop\\x2dflatpak\\x2drepos@autostart.service", launcher: "autostart", appID: "pop-flatpak-repos",
              source: "https://github.com/pop-os/cosmic-applets/issues/960"),
        .init(cgroup: "app-print\\x2dapplet@autostart.service", launcher: "autostart", appID: "print-applet",
              source: "https://github.com/pop-os/cosmic-applets/issues/960"),
        // UWSM names the compositor as the launcher, with a hexadecimal RANDOM.
        .init(cgroup: "app-graphical.slice/app-Hyprland-google\\x2dchrome\\x2dstable-8fdeb60e.scope", launcher: "Hyprland",
              appID: "google-chrome-stable", source: "https://github.com/Vladimir-csp/uwsm/issues/181"),
        // Chrome moves itself into a scope of its own, named after its Flatpak-style id.
        .init(cgroup: "app.slice/app-com.google.Chrome-11254.scope", launcher: nil, appID: "com.google.Chrome",
              source: "https://github.com/Vladimir-csp/uwsm/issues/181"),
        .init(cgroup: "app-sirula-org.codeberg.dnkl.footclient-1234.scope", launcher: "sirula", appID: "org.codeberg.dnkl.footclient",
              source: "https://github.com/DorianRudolph/sirula/issues/42"),
        // A desktop id of digits and hex letters (0 A.D.'s `0ad`): the RANDOM is the last part only.
        .init(cgroup: "app-gnome-0ad-6120.scope", launcher: "gnome", appID: "0ad", source: "the brief's example: Debian's 0ad.desktop in GNOME's scope"),
        .init(cgroup: "app-0ad-d70acc38b5154a3a8b4a60accc4b15f4.scope", launcher: nil, appID: "0ad",
              source: "KDE's form (the OBS sample above) with 0ad.desktop"),
        .init(cgroup: "app-KDE-0ad@4f1e0c.service", launcher: "KDE", appID: "0ad", source: "systemd's KDE example with 0ad.desktop"),
        // A Chrome web app launched by GNOME: its id escaped, `Default` its profile.
        .init(cgroup: "app-gnome-chrome\\x2dboeajhmfdjldchidhphikilcgdacljfm\\x2dDefault-6333.scope", launcher: "gnome",
              appID: "chrome-boeajhmfdjldchidhphikilcgdacljfm-Default",
              source: "https://github.com/jake-phy/WindowIconList/issues/74 (the entry) in GNOME's scope"),
        .init(cgroup: "app-flatpak-com.valvesoftware.Steam-5521.scope", launcher: "flatpak", appID: "com.valvesoftware.Steam",
              source: "Flatpak's app-flatpak-<app id>-<n>.scope"),
    ]

    @Test(arguments: shapes)
    func readsUnitsOfEveryShape(_ example: CgroupCase) {
        let unit = LaunchUnit.parse(cgroupPath: example.cgroup)
        print("\(example.cgroup): \(unit.map { $0.readings.map { "\($0.launcher ?? "-") \($0.appID)" } } ?? [])")
        #expect(unit?.appID == example.appID, "\(example.source)")
        #expect(unit?.launcher == example.launcher, "\(example.source)")
    }

    /// The readings a name allows, the likelier first: the entries decide.
    @Test func ambiguousNamesKeepTheOtherReading() {
        func readings(_ name: String) -> [String] {
            LaunchUnit.parse(unitName: name)?.readings.map { "\($0.launcher ?? "-") \($0.appID)" } ?? []
        }
        // A launcher that leaves `-` unescaped: the whole id first.
        #expect(readings("app-google-chrome-1234.scope") == ["- google-chrome", "google chrome"])
        // A known launcher first.
        #expect(readings("app-gnome-firefox-34054.scope") == ["gnome firefox", "- gnome-firefox"])
        // A service whose last part may be a RANDOM or the id's end.
        #expect(readings("app-rofi-easyeffects-19676.service")
            == ["rofi easyeffects", "- rofi-easyeffects", "rofi easyeffects-19676", "- rofi-easyeffects-19676"])
        #expect(readings("app-org.kde.amarok.service") == ["- org.kde.amarok"])
    }

    @Test(arguments: samples + documented)
    func parsesTheUnit(_ example: CgroupCase) {
        let unit = example.cgroup.contains("\n") || example.cgroup.hasPrefix("0::")
            ? LaunchUnit.parse(cgroupFile: example.cgroup) : LaunchUnit.parse(cgroupPath: example.cgroup)
        #expect(unit?.appID == example.appID, "\(example.source)")
        #expect(unit?.launcher == example.launcher, "\(example.source)")
    }

    @Test func unitNamesThatNameNoApp() {
        for name in ["app.slice", "app-.scope", "session-2.scope", "init.scope", "app-x", "snap.firefox.scope",
                     "vte-spawn-8a3864e7-404c-47a6-b149-f333c63228a5.scope"] {
            #expect(LaunchUnit.parse(unitName: name) == nil, "\(name)")
        }
        #expect(LaunchUnit.parse(cgroupFile: "") == nil)
        #expect(LaunchUnit.parse(cgroupFile: "0::/\n") == nil)
    }
}

@Suite struct ProcessTextTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func commandLinesSplitAtNul() {
        #expect(ProcessText.arguments(Self.bytes("reaper\0SteamLaunch\0AppId=440\0--\0tf2\0"))
            == ["reaper", "SteamLaunch", "AppId=440", "--", "tf2"])
        #expect(ProcessText.arguments(Self.bytes("ffplay\0\0song.ogg")) == ["ffplay", "", "song.ogg"])
        #expect(ProcessText.arguments([]) == [])
        // A daemon that rewrote its title has one argument with spaces.
        #expect(ProcessText.arguments(Self.bytes("sshd: user [priv]\0")) == ["sshd: user [priv]"])
        #expect(ProcessText.arguments([0x66, 0xFF, 0]) == ["f\u{FFFD}"])
    }

    @Test func environmentKeepsOnlyTheKeysAsked() {
        let block = Self.bytes("HOME=/home/u\0SteamAppId=1091500\0SteamGameId=1091500\0SECRET_TOKEN=x=y\0SteamAppId=2\0=odd\0noequals\0")
        #expect(ProcessText.environment(block, keeping: ProcessFacts.environmentKeys)
            == ["SteamAppId": "1091500", "SteamGameId": "1091500"])
        #expect(ProcessText.environment(block)["SECRET_TOKEN"] == "x=y")
        #expect(ProcessText.environment(Self.bytes("A=\0"))["A"] == "")
    }
}

struct LauncherCase: Sendable, CustomTestStringConvertible {
    var name: String
    var process: ProcessFacts
    var ancestors: [AncestorFacts] = []
    var unit: LaunchUnit? = nil
    var evidence: String?
    var testDescription: String { name }
}

@Suite struct LauncherMarkTests {
    static let cases: [LauncherCase] = [
        .init(name: "Steam game by SteamAppId", process: ProcessFacts(executable: "Cyberpunk2077.exe",
              environment: ["SteamAppId": "1091500", "SteamGameId": "1091500"]),
              evidence: "Steam game (SteamAppId=1091500)"),
        .init(name: "Steam game by its reaper", process: ProcessFacts(executable: "hl2_linux", arguments: ["hl2_linux"]),
              ancestors: [AncestorFacts(executable: "bash", arguments: ["/bin/bash", "./hl2.sh"]),
                          AncestorFacts(executable: "reaper", arguments: ["/home/u/.steam/steam/ubuntu12_32/reaper",
                                        "SteamLaunch", "AppId=440", "--", "/home/u/.steam/steam/steamapps/common/Team Fortress 2/hl2.sh"])],
              evidence: "Steam game (reaper SteamLaunch AppId=440)"),
        .init(name: "Steam's install-script evaluator", process: ProcessFacts(executable: "wine64-preloader"),
              ancestors: [AncestorFacts(executable: "reaper", arguments: ["reaper", "SteamLaunch", "AppId=440", "Install=1", "--", "x"])],
              evidence: "Windows program under Wine (wine64-preloader)"),
        .init(name: "Steam game scope", process: ProcessFacts(executable: "game"),
              unit: LaunchUnit.parse(unitName: "app-steam-app1091500-4242.scope"),
              evidence: "Steam game (launched in app-steam-app1091500-4242.scope)"),
        // Heroic sets SteamAppId=0 and SteamGameId=heroic-<id> for Proton (launcher.ts).
        .init(name: "Heroic game under Proton", process: ProcessFacts(executable: "wine64-preloader",
              environment: ["SteamAppId": "0", "SteamGameId": "heroic-Fortnite", "STEAM_COMPAT_APP_ID": "0",
                            "HEROIC_APP_NAME": "Fortnite", "HEROIC_APP_SOURCE": "epic"]),
              evidence: "Heroic game (HEROIC_APP_NAME=Fortnite, HEROIC_APP_SOURCE=epic)"),
        .init(name: "Lutris game", process: ProcessFacts(executable: "retroarch",
              environment: ["LUTRIS_GAME_UUID": "7c8e…", "GAME_NAME": "Super Metroid"]),
              evidence: "Lutris game (LUTRIS_GAME_UUID, GAME_NAME=Super Metroid)"),
        .init(name: "Bottles program", process: ProcessFacts(executable: "wine64-preloader",
              environment: ["BOTTLE": "/home/u/.local/share/bottles/bottles/Games"]),
              evidence: "Windows program in a Bottles bottle (/home/u/.local/share/bottles/bottles/Games)"),
        .init(name: "Wine loader with a .exe", process: ProcessFacts(executable: "wine64-preloader",
              arguments: ["C:\\Games\\Hades\\Hades.exe"]), evidence: "Windows program under Wine (wine64-preloader running Hades.exe)"),
        .init(name: "a .exe on the command line", process: ProcessFacts(executable: "Hades2.exe",
              arguments: ["Z:\\home\\u\\Hades II\\Ship\\Hades2.exe", "-vulkan"]), evidence: "Windows program under Wine (Hades2.exe)"),
        .init(name: "a non-Steam shortcut without an id", process: ProcessFacts(executable: "firefox",
              environment: ["SteamAppId": "0"]), evidence: nil),
        .init(name: "nothing", process: ProcessFacts(executable: "rhythmbox", arguments: ["rhythmbox"]), evidence: nil),
    ]

    @Test(arguments: cases)
    func findsTheMark(_ example: LauncherCase) {
        let mark = LauncherMark.find(process: example.process, ancestors: example.ancestors, unit: example.unit)
        #expect(mark?.evidence == example.evidence)
    }

    @Test func reaperCommandLines() {
        #expect(LauncherMark.steamLaunchAppID(["reaper", "SteamLaunch", "AppId=1245620", "--", "/home/u/x"]) == "1245620")
        #expect(LauncherMark.steamLaunchAppID(["reaper", "SteamLaunch", "--", "steamwebhelper"]) == nil)
        #expect(LauncherMark.steamLaunchAppID(["reaper", "SteamLaunch", "AppId=abc", "--", "x"]) == nil)
        #expect(LauncherMark.steamLaunchAppID(["bash", "-c", "reaper SteamLaunch AppId=999"]) == nil)
        #expect(LauncherMark.steamLaunchAppID(["game", "--", "SteamLaunch", "AppId=5"]) == nil)
    }
}
