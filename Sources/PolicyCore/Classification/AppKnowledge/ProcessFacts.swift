/// What the adapter reads about the process behind a stream, as plain values
/// (docs/CLASSIFICATION.md, "App knowledge"). The pure core decides what they mean.
public struct ProcessFacts: Sendable, Equatable, Hashable {
    /// The basename of the program it runs (`/proc/PID/exe`'s target, else
    /// `/proc/PID/comm`): `retroarch`, `wine64-preloader`, `python3.11`.
    public var executable: String?
    /// Its command line (`/proc/PID/cmdline`, `ProcessText.arguments`),
    /// `argv[0]` first.
    public var arguments: [String]
    /// The variables of its environment (`/proc/PID/environ`) that the core
    /// reads, `ProcessText.environment(_:keeping: ProcessFacts.environmentKeys)`.
    public var environment: [String: String]
    /// The text of `/proc/PID/cgroup`, for `LaunchUnit.parse(cgroupFile:)`.
    public var cgroup: String?

    public init(executable: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
                cgroup: String? = nil) {
        self.executable = executable; self.arguments = arguments; self.environment = environment
        self.cgroup = cgroup
    }

    /// The names this process goes by: its executable, `argv[0]`'s basename,
    /// and for an interpreter (`python3`, `gjs`) the script it runs, which is
    /// what a desktop entry's `Exec` names.
    public var names: [String] {
        var candidates = [executable, arguments.first.map(DesktopExec.basename)].compactMap { $0 }
        if candidates.contains(where: InterpreterBinary.runsManyApps),
           let script = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }) {
            candidates.append(DesktopExec.basename(script))
        }
        var names: [String] = []
        for name in candidates where !name.isEmpty && !names.contains(name) { names.append(name) }
        return names
    }

    /// The environment variables the core reads, and nothing else (an
    /// environment holds secrets: the adapter keeps only these):
    /// Steam's, Lutris's, Heroic's and Bottles' marks on a game they launched
    /// (`LauncherMark`).
    public static let environmentKeys: Set<String> = [
        "SteamAppId", "SteamGameId", "STEAM_COMPAT_APP_ID",
        "LUTRIS_GAME_UUID", "GAME_NAME",
        "HEROIC_APP_NAME", "HEROIC_APP_SOURCE", "HEROIC_APP_RUNNER",
        "BOTTLE", "BOTTLE_NAME",
    ]
}

/// An ancestor of the stream's process: who started it.
public struct AncestorFacts: Sendable, Equatable, Hashable {
    /// The basename of the program it runs.
    public var executable: String?
    /// Its command line, `argv[0]` first.
    public var arguments: [String]

    public init(executable: String? = nil, arguments: [String] = []) {
        self.executable = executable; self.arguments = arguments
    }

    /// Its executable, else `argv[0]`'s basename.
    public var name: String? {
        executable ?? arguments.first.map(DesktopExec.basename)
    }

    /// The names it goes by, its script's too (`/bin/sh /usr/games/0ad` is
    /// `dash` and `0ad`), as `ProcessFacts.names`.
    public var names: [String] {
        ProcessFacts(executable: executable, arguments: arguments).names
    }
}
