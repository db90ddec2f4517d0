/// What the desktop knows about the app behind a stream (docs/CLASSIFICATION.md,
/// "App knowledge"): its desktop entry and how it was found, the launcher that
/// started it, its command line, and who started it. The adapter fills it,
/// usually with `AppFacts.resolve`; nil in `StreamFacts.app` when nothing was
/// found, and classification is then as without it.
public struct AppFacts: Sendable, Equatable, Hashable {
    /// The process's own desktop entry, and how it was found.
    public var entry: FoundDesktopEntry?
    /// A game launcher's or Wine's mark on the process.
    public var launcher: LauncherMark?
    /// The basename of the program the process runs.
    public var executable: String?
    /// Its command line, `argv[0]` first.
    public var arguments: [String]
    /// The nearest ancestor that is not a shell or interpreter: who started
    /// the process (a notification daemon running `paplay`), with its desktop
    /// entry if it has one.
    public var starter: Starter?

    public init(entry: FoundDesktopEntry? = nil, launcher: LauncherMark? = nil, executable: String? = nil,
                arguments: [String] = [], starter: Starter? = nil) {
        self.entry = entry; self.launcher = launcher; self.executable = executable
        self.arguments = arguments; self.starter = starter
    }

    public struct Starter: Sendable, Equatable, Hashable {
        /// Its program's basename: `dunst`, `telegram-desktop`.
        public var name: String
        public var entry: DesktopEntry?
        public init(name: String, entry: DesktopEntry? = nil) { self.name = name; self.entry = entry }
    }

    /// Everything the core can learn from the graph's properties of a stream,
    /// what the adapter read about its process (nil if nothing: the stream's
    /// pid unknown, the process gone) and its ancestors (parent first), and the
    /// installed desktop entries. Nil when it found nothing at all.
    ///
    /// The process is found by the adapter from the pid the daemon sets on a
    /// native client (`pipewire.sec.pid`), or the one a PulseAudio client
    /// claims (`application.process.id`), which docs/CLASSIFICATION.md weighs.
    public static func resolve(nodeProps: [String: String], clientProps: [String: String],
                               process: ProcessFacts?, ancestors: [AncestorFacts] = [],
                               entries: DesktopEntryIndex) -> AppFacts? {
        let props = StreamProperties(node: nodeProps, client: clientProps)
        var names = process?.names ?? []
        if names.isEmpty, let binary = props["application.process.binary"] ?? ALSAPluginName.program(props) {
            names = [binary]
        }
        let unit = process?.cgroup.flatMap(LaunchUnit.parse(cgroupFile:))
        var facts = AppFacts(
            entry: findEntry(props, names: names, commandLines: [process?.arguments ?? []] + ancestors.map(\.arguments),
                             starters: ancestors.flatMap(\.names), unit: unit, entries: entries),
            launcher: process.flatMap { LauncherMark.find(process: $0, ancestors: ancestors, unit: unit) },
            executable: process?.executable, arguments: process?.arguments ?? [])
        if let starter = ancestors.lazy.compactMap(\.name).first(where: { !InterpreterBinary.runsManyApps($0) }) {
            facts.starter = Starter(name: starter, entry: entries.entry(program: starter))
        }
        if facts.entry == nil && facts.launcher == nil && facts.starter == nil && facts.arguments.isEmpty
            && facts.executable == nil {
            return nil
        }
        return facts
    }

    /// The process's own entry, in the order of trust: the sandbox's app id
    /// (set by the daemon), the `application.id` the app gives (GApplication
    /// and most toolkits use the desktop id), a browser's web app named on
    /// the command line of the process or of the browser that started it
    /// (`WebApp`), the unit the desktop launched it in when the process runs
    /// its program, the program it runs against `Exec`/`TryExec`, and last
    /// the unit when a process above it in the unit runs the entry's
    /// program (a wrapper script: `0ad` runs `pyrogenesis`).
    static func findEntry(_ props: StreamProperties, names: [String], commandLines: [[String]], starters: [String],
                          unit: LaunchUnit?, entries: DesktopEntryIndex) -> FoundDesktopEntry? {
        if let appID = AppIdentity.sandboxAppID(props), let entry = entries.entry(flatpakID: appID) {
            return FoundDesktopEntry(entry: entry, source: .sandboxAppID(appID))
        }
        if let appID = props["application.id"], let entry = entries.entry(id: appID) {
            return FoundDesktopEntry(entry: entry, source: .applicationID(appID))
        }
        for key in commandLines.flatMap(WebApp.keys(ofCommandLine:)) {
            if let entry = entries.entry(webAppKey: key) {
                return FoundDesktopEntry(entry: entry, source: .webAppCommandLine(key))
            }
        }
        let unitEntries = unit.map { unit in
            unit.readings.compactMap { reading -> (LaunchUnit, DesktopEntry)? in
                let found = reading.launcher == "flatpak" ? entries.entry(flatpakID: reading.appID) : entries.entry(id: reading.appID)
                var read = unit
                read.launcher = reading.launcher
                read.appID = reading.appID
                read.alternatives = []
                return found.map { (read, $0) }
            }
        } ?? []
        for (unit, entry) in unitEntries where unitDescribesProcess(unit, entry: entry, names: names) {
            return FoundDesktopEntry(entry: entry, source: .launchUnit(unit))
        }
        for name in names {
            if let entry = entries.entry(program: name) {
                return FoundDesktopEntry(entry: entry, source: .program(name))
            }
        }
        for (unit, entry) in unitEntries {
            if let starter = starters.first(where: entry.programs.contains) {
                return FoundDesktopEntry(entry: entry, source: .launchUnitStartedBy(unit, starter))
            }
        }
        return nil
    }

    /// A unit holds the app it is named after and everything that app
    /// starts: a terminal's shells, a panel's launches (COSMIC's app list put
    /// apps in its own scope). A Flatpak's or snap's unit is its sandbox, all
    /// of it the app; otherwise the process must run the entry's program
    /// (or an interpreter, which runs its script), or be a browser running
    /// the web app the entry is (its program is the browser's wrapper
    /// script, `google-chrome`, and the process the browser, `chrome`).
    static func unitDescribesProcess(_ unit: LaunchUnit, entry: DesktopEntry, names: [String]) -> Bool {
        if unit.launcher == "flatpak" || unit.launcher == "snap" || names.isEmpty { return true }
        if names.contains(where: entry.programs.contains) { return true }
        if entry.isWebApp && names.contains(where: { KnownApps.kind(of: $0) == .browser }) { return true }
        return names.allSatisfy(InterpreterBinary.runsManyApps)
    }
}

/// A desktop entry and how it was found for a stream's process.
public struct FoundDesktopEntry: Sendable, Equatable, Hashable {
    public var entry: DesktopEntry
    public var source: Source

    public init(entry: DesktopEntry, source: Source) { self.entry = entry; self.source = source }

    public enum Source: Sendable, Equatable, Hashable {
        /// `pipewire.access.portal.app_id`, which the daemon sets for a sandboxed client.
        case sandboxAppID(String)
        /// `application.id`, as the app gives it.
        case applicationID(String)
        /// The systemd unit the desktop launched it in.
        case launchUnit(LaunchUnit)
        /// The unit, where a process above this one runs the entry's program.
        case launchUnitStartedBy(LaunchUnit, String)
        /// A browser's web app, by its mark on the command line (`WebApp`).
        case webAppCommandLine(String)
        /// Its program against the entry's `Exec`/`TryExec`.
        case program(String)
    }

    /// Found through the unit of a process that started this one: the
    /// entry is its starter's (a wrapper script's, a notification daemon's).
    public var isTheStarters: Bool {
        if case .launchUnitStartedBy = source { return true }
        return false
    }

    /// `found by application.id`, `found by the launch unit app-gnome-…scope`.
    public var how: String {
        switch source {
        case .sandboxAppID(let id): "pipewire.access.portal.app_id = \"\(id)\""
        case .applicationID(let id): "application.id = \"\(id)\""
        case .launchUnit(let unit): "launched in \(unit.name)"
        case .launchUnitStartedBy(let unit, let starter): "launched in \(unit.name) by \(starter)"
        case .webAppCommandLine(let key): "its browser runs the web app \(key)"
        case .program(let name): "runs \(name)"
        }
    }
}
