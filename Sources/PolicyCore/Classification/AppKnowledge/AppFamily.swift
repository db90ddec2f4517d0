/// What kind of app a desktop entry's `Categories` say it is (freedesktop.org
/// Desktop Menu Specification, "Registered Categories"), as far as its audio
/// is concerned. docs/CLASSIFICATION.md, "App knowledge", gives each its why.
public enum AppFamily: String, Sendable, Equatable, Hashable, CaseIterable {
    /// `TerminalEmulator`: it runs whatever the user types; its entry says
    /// nothing about the programs in it.
    case terminal
    /// `Game` of a program that launches games (Steam, Lutris, Minigalaxy
    /// file themselves under Game): its own sounds are a store's and a chat's.
    case gameLauncher = "game launcher"
    /// `Game` (emulators are `Game;Emulator`).
    case game
    /// `Telephony`, `VideoConference`: SIP phones, video calls.
    case callApp = "call app"
    /// `Accessibility`: a screen reader speaking.
    case accessibility
    /// `Clock`: alarms and timers the user set.
    case clock
    /// `AudioVideoEditing` (and Ardour's `X-AudioEditing`): a DAW or editor
    /// plays and records the user's project.
    case editor
    /// `Recorder`: sound recorders, screen recorders.
    case recorder
    /// `Player`: music and video players.
    case player
    /// `WebBrowser`.
    case browser
    /// `InstantMessaging`, `Chat`, `IRCClient`: messengers and voice chat.
    case messenger
    /// `Settings`, `Mixer`: sound settings and mixers, whose capture is a level meter.
    case settings

    /// The families an entry belongs to, most telling first.
    public static func families(of entry: DesktopEntry, isGameLauncher: Bool) -> [AppFamily] {
        var families: [AppFamily] = []
        func add(_ family: AppFamily, if present: Bool) { if present { families.append(family) } }
        add(.terminal, if: entry.has("TerminalEmulator"))
        add(isGameLauncher ? .gameLauncher : .game, if: entry.has("Game"))
        add(.callApp, if: entry.has("Telephony") || entry.has("VideoConference"))
        add(.accessibility, if: entry.has("Accessibility"))
        add(.clock, if: entry.has("Clock"))
        add(.editor, if: entry.has("AudioVideoEditing") || entry.has("X-AudioEditing"))
        add(.recorder, if: entry.has("Recorder"))
        add(.player, if: entry.has("Player"))
        add(.browser, if: entry.has("WebBrowser"))
        add(.messenger, if: entry.has("InstantMessaging") || entry.has("Chat") || entry.has("IRCClient"))
        add(.settings, if: entry.has("Settings") || entry.has("Mixer"))
        return families
    }
}
