/// The desktop entries installed, by desktop id and by the program they run:
/// what the adapter builds from the data directories (XDG_DATA_HOME,
/// XDG_DATA_DIRS, Flatpak's and Snap's exports) and rebuilds when they change.
public struct DesktopEntryIndex: Sendable, Equatable {
    private var byID: [String: DesktopEntry] = [:]
    private var byLowercasedID: [String: DesktopEntry] = [:]
    private var byFlatpakID: [String: DesktopEntry] = [:]
    private var byProgram: [String: DesktopEntry] = [:]
    private var byWebAppKey: [String: DesktopEntry] = [:]

    /// `entries` in the order of the search path: the first entry with an id
    /// wins (a user's copy in XDG_DATA_HOME hides the system's). Hidden
    /// entries hide that id and are not listed.
    public init(_ entries: [DesktopEntry]) {
        var hidden: Set<String> = []
        for entry in entries where byID[entry.id] == nil && !hidden.contains(entry.id) {
            if entry.hidden { hidden.insert(entry.id); continue }
            byID[entry.id] = entry
        }
        for entry in byID.values.sorted(by: Self.preferred) {
            if byLowercasedID[entry.id.lowercased()] == nil { byLowercasedID[entry.id.lowercased()] = entry }
            if let flatpak = entry.flatpakID, byFlatpakID[flatpak] == nil { byFlatpakID[flatpak] = entry }
            // A web app's entry runs its browser: the browser's process is
            // the web app's only when its command line or unit says so.
            if entry.isWebApp {
                for key in entry.webAppKeys where byWebAppKey[key] == nil { byWebAppKey[key] = entry }
                continue
            }
            for program in entry.programs where byProgram[program] == nil { byProgram[program] = entry }
        }
    }

    /// The entry of a desktop id (an exact match first, then ignoring case:
    /// GNOME Clocks' `application.id` is `org.gnome.clocks`, as is its file).
    public func entry(id: String) -> DesktopEntry? {
        byID[id] ?? byLowercasedID[id.lowercased()]
    }

    /// The entry a Flatpak app exports: its id is the app id, or it says so in `X-Flatpak`.
    public func entry(flatpakID: String) -> DesktopEntry? {
        byFlatpakID[flatpakID] ?? entry(id: flatpakID)
    }

    /// The entry whose `Exec` or `TryExec` runs `program`: one shown in menus
    /// and with categories before a helper entry (VLC's `vlc-openbd` handler,
    /// GNOME Settings' panels), then the shortest id.
    public func entry(program: String) -> DesktopEntry? {
        byProgram[program]
    }

    /// The web app entry known by `key` (`WebApp.keys(ofCommandLine:)`).
    public func entry(webAppKey key: String) -> DesktopEntry? {
        byWebAppKey[key]
    }

    public var count: Int { byID.count }

    /// Which of two entries describes a program better.
    static func preferred(_ a: DesktopEntry, _ b: DesktopEntry) -> Bool {
        if a.noDisplay != b.noDisplay { return !a.noDisplay }
        if a.categories.isEmpty != b.categories.isEmpty { return !a.categories.isEmpty }
        if a.id.count != b.id.count { return a.id.count < b.id.count }
        return a.id < b.id
    }
}
