/// What a game launcher or Windows compatibility layer left on the process it
/// started (docs/CLASSIFICATION.md, "App knowledge", which cites where each
/// launcher sets it).
public enum LauncherMark: Sendable, Equatable, Hashable {
    /// Steam started it for a game: `SteamAppId`/`SteamGameId` in its
    /// environment, or an ancestor `reaper SteamLaunch AppId=N -- …`.
    case steam(appID: String, via: String)
    /// Lutris started it: `LUTRIS_GAME_UUID` (which Lutris itself reads back
    /// from `/proc/PID/environ` to find a game's processes), `GAME_NAME`.
    case lutris(game: String?)
    /// Heroic Games Launcher started it: `HEROIC_APP_NAME`, `HEROIC_APP_SOURCE`.
    case heroic(app: String, store: String?)
    /// A program run by Bottles in a Wine prefix (`BOTTLE`, `BOTTLE_NAME`).
    case bottles(bottle: String)
    /// A Windows program under Wine: Wine's loader runs it, or a `.exe` is on its command line.
    case wine(evidence: String)

    /// Said in the classification's reason, e.g. `Steam game (SteamAppId=1091500)`.
    public var evidence: String {
        switch self {
        case .steam(let appID, let via): via == "SteamAppId" || via == "SteamGameId"
            ? "Steam game (\(via)=\(appID))" : "Steam game (\(via))"
        case .lutris(let game): "Lutris game (LUTRIS_GAME_UUID\(game.map { ", GAME_NAME=\($0)" } ?? ""))"
        case .heroic(let app, let store): "Heroic game (HEROIC_APP_NAME=\(app)\(store.map { ", HEROIC_APP_SOURCE=\($0)" } ?? ""))"
        case .bottles(let bottle): "Windows program in a Bottles bottle (\(bottle))"
        case .wine(let evidence): "Windows program under Wine (\(evidence))"
        }
    }

    /// Whether the launcher starts games only: Steam, Lutris and Heroic are
    /// game launchers; Bottles and Wine run any Windows program.
    public var launchesGames: Bool {
        switch self {
        case .steam, .lutris, .heroic: true
        case .bottles, .wine: false
        }
    }

    /// The mark on a process, from its environment, its own command line and
    /// its ancestors' (nearest first). A launcher run inside another (Heroic
    /// added to Steam as a shortcut) leaves both marks: the innermost one
    /// names the game, so Heroic and Lutris are read before Steam.
    public static func find(process: ProcessFacts, ancestors: [AncestorFacts], unit: LaunchUnit? = nil) -> LauncherMark? {
        let environment = process.environment
        if let app = nonEmpty(environment["HEROIC_APP_NAME"]) {
            return .heroic(app: app, store: nonEmpty(environment["HEROIC_APP_SOURCE"]))
        }
        if nonEmpty(environment["LUTRIS_GAME_UUID"]) != nil {
            return .lutris(game: nonEmpty(environment["GAME_NAME"]))
        }
        // Steam sets SteamAppId to the game's id; a non-Steam shortcut gets 0
        // and its own SteamGameId. Heroic sets SteamAppId=0 for Proton.
        for key in ["SteamAppId", "SteamGameId", "STEAM_COMPAT_APP_ID"] {
            if let id = nonEmpty(environment[key]), id != "0", id.allSatisfy(\.isNumber) {
                return .steam(appID: id, via: key)
            }
        }
        for ancestor in ancestors {
            if let id = steamLaunchAppID(ancestor.arguments) {
                return .steam(appID: id, via: "reaper SteamLaunch AppId=\(id)")
            }
        }
        // Newer Steam clients start each game in its own unit, `app-steam-app<id>-<pid>.scope`.
        if let unit, unit.launcher == "steam", unit.appID.hasPrefix("app") {
            let id = unit.appID.dropFirst("app".count)
            if !id.isEmpty && id != "0" && id.allSatisfy(\.isNumber) {
                return .steam(appID: String(id), via: "launched in \(unit.name)")
            }
        }
        if let bottle = nonEmpty(environment["BOTTLE_NAME"]) ?? nonEmpty(environment["BOTTLE"]) {
            return .bottles(bottle: bottle)
        }
        if let wine = wineEvidence(process) { return .wine(evidence: wine) }
        return nil
    }

    /// The `AppId` of Steam's `reaper SteamLaunch AppId=N -- <game>` command
    /// line (the wrapper Steam runs every game under); nil for another
    /// command line or `AppId=0`.
    public static func steamLaunchAppID(_ arguments: [String]) -> String? {
        let options = arguments.prefix { $0 != "--" }
        // Steam's install-script evaluator runs the same way before a game,
        // with `Install=1`: not the game.
        guard options.contains("SteamLaunch"), !options.contains(where: { $0.hasPrefix("Install=") }) else { return nil }
        for option in options where option.hasPrefix("AppId=") {
            let id = String(option.dropFirst("AppId=".count))
            return !id.isEmpty && id != "0" && id.allSatisfy(\.isNumber) ? id : nil
        }
        return nil
    }

    /// Wine's loader running the process, or a Windows executable on its command line.
    static func wineEvidence(_ process: ProcessFacts) -> String? {
        let loaders: Set<String> = ["wine", "wine64", "wine-preloader", "wine64-preloader"]
        let exe = process.arguments.first { $0.lowercased().hasSuffix(".exe") }
        if let loader = process.names.first(where: loaders.contains) {
            return exe.map { "\(loader) running \(DesktopExec.windowsBasename($0))" } ?? loader
        }
        if let exe { return DesktopExec.windowsBasename(exe) }
        return nil
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

extension DesktopExec {
    /// `C:\Games\Hades\Hades.exe` or `/home/u/Game/game.exe` → the file's name.
    static func windowsBasename(_ path: String) -> String {
        if let separator = path.lastIndex(where: { $0 == "/" || $0 == "\\" }) {
            return String(path[path.index(after: separator)...])
        }
        return path
    }
}
