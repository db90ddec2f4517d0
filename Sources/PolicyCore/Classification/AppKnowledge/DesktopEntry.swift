/// What the agent reads from an application's desktop entry (the freedesktop.org
/// Desktop Entry Specification; docs/CLASSIFICATION.md, "App knowledge"): only the
/// keys that say what kind of app it is and how to recognise its process.
public struct DesktopEntry: Sendable, Equatable, Hashable {
    /// The desktop file ID without `.desktop`: `org.gnome.Rhythmbox3`,
    /// `kde4-kate` for `kde4/kate.desktop` (`DesktopEntry.desktopID(relativePath:)`).
    public var id: String
    /// `Name`, unlocalized.
    public var name: String?
    /// `Categories`, in the file's order: `AudioVideo`, `Audio`, `Player`…
    public var categories: [String]
    /// `Exec`, unescaped, as written.
    public var exec: String?
    /// `TryExec`, unescaped.
    public var tryExec: String?
    /// The basename of the program `Exec` runs, past `env VAR=value`
    /// (`env GDK_BACKEND=x11 audacity %F` → `audacity`); nil when unknown.
    public var program: String?
    /// `Hidden=true`: the entry is deleted, as if it did not exist.
    public var hidden: Bool
    /// `NoDisplay=true`: an entry not shown in menus (a helper or a handler
    /// of some URLs); it still describes its program.
    public var noDisplay: Bool
    /// `X-Flatpak`: the Flatpak app id of an exported entry.
    public var flatpakID: String?
    /// `StartupWMClass`: the class of the app's windows (a browser's web
    /// app: `crx_<id>`, `FFPWA-<ULID>`).
    public var startupWMClass: String?
    /// The keys it is known by as a browser's web app (`WebApp.keys(of:)`);
    /// empty for any other app.
    public private(set) var webAppKeys: [String] = []

    public init(id: String, name: String? = nil, categories: [String] = [], exec: String? = nil,
                tryExec: String? = nil, program: String? = nil, hidden: Bool = false, noDisplay: Bool = false,
                flatpakID: String? = nil, startupWMClass: String? = nil) {
        self.id = id; self.name = name; self.categories = categories; self.exec = exec; self.tryExec = tryExec
        self.program = program ?? exec.flatMap(DesktopExec.program(ofExec:))
        self.hidden = hidden; self.noDisplay = noDisplay; self.flatpakID = flatpakID
        self.startupWMClass = startupWMClass
        webAppKeys = WebApp.keys(of: self)
    }

    /// A browser's web app: it has keys (`WebApp`).
    public var isWebApp: Bool { !webAppKeys.isEmpty }

    /// Whether `Categories` has `category` (the specification's names are
    /// case-sensitive; `X-` extensions too).
    public func has(_ category: String) -> Bool { categories.contains(category) }

    /// The programs that identify this entry's process: `TryExec`'s and `Exec`'s basenames.
    public var programs: [String] {
        var names: [String] = []
        for name in [tryExec.map(DesktopExec.basename), program].compactMap({ $0 }) where !names.contains(name) {
            names.append(name)
        }
        return names
    }

    /// The desktop file ID of a file at `relativePath` under an `applications`
    /// directory: subdirectories join with `-`, `.desktop` dropped
    /// (`kde4/kate.desktop` → `kde4-kate`).
    public static func desktopID(relativePath: String) -> String {
        var id = String(relativePath.map { $0 == "/" ? "-" : $0 })
        if id.hasSuffix(".desktop") { id.removeLast(".desktop".count) }
        return id
    }

    /// Parses a desktop file's text; nil when it has no `[Desktop Entry]` group
    /// or its `Type` is not `Application`.
    public static func parse(_ text: String, id: String) -> DesktopEntry? {
        guard let values = DesktopEntryFile.mainGroup(of: text) else { return nil }
        if let type = values["Type"], type != "Application" { return nil }
        return DesktopEntry(
            id: id, name: values["Name"],
            categories: values["Categories"].map(DesktopEntryFile.list) ?? [],
            exec: values["Exec"], tryExec: values["TryExec"],
            hidden: values["Hidden"] == "true", noDisplay: values["NoDisplay"] == "true",
            flatpakID: values["X-Flatpak"], startupWMClass: values["StartupWMClass"])
    }
}
