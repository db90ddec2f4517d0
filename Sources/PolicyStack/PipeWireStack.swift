import PolicyModel

/// Which PipeWire daemon and which WirePlumber the agent runs beside, as the
/// graph shows them: the daemon's core info and WirePlumber's client. Both
/// generations must work (Debian 12's PipeWire 0.3.65 + WirePlumber 0.4.13,
/// and PipeWire 1.x + WirePlumber 0.5.x); `capabilities` says which
/// mechanisms this one offers (docs/PROTOCOL.md, `stack`).
public struct PipeWireStack: Sendable, Equatable {
    /// The daemon's version exactly as its core info reports it (`pw-cli info 0`);
    /// nil before the info arrived.
    public var pipewire: String?
    /// The running WirePlumber; nil when none is connected.
    public var wirePlumber: WirePlumber?

    public init(pipewire: String?, wirePlumber: WirePlumber?) {
        self.pipewire = pipewire; self.wirePlumber = wirePlumber
    }

    public struct WirePlumber: Sendable, Equatable {
        /// Its main client (not the `[export]` one).
        public var client: UInt32
        /// Its process, as the daemon saw it connect.
        public var pid: Int32?
        /// Its version as found; nil when it could not be found out.
        public var version: String?
        public var versionSource: VersionSource?

        public init(client: UInt32, pid: Int32? = nil, version: String? = nil, versionSource: VersionSource? = nil) {
            self.client = client; self.pid = pid; self.version = version; self.versionSource = versionSource
        }
    }

    /// Where WirePlumber's version came from.
    public enum VersionSource: String, Sendable, Equatable, Codable {
        /// Its client's `application.version`, which WirePlumber sets from 0.5.0 on.
        case applicationVersion = "application.version"
        /// The file name of the libwireplumber its process has loaded:
        /// 0.4.x publishes no version of its own.
        case linkedLibrary = "linked-library"
    }

    public var pipewireVersion: SemanticVersion? { pipewire.flatMap(SemanticVersion.init(parsing:)) }
    public var wirePlumberVersion: SemanticVersion? { wirePlumber?.version.flatMap(SemanticVersion.init(parsing:)) }
    public var capabilities: StackCapabilities { StackCapabilities(pipewire: pipewireVersion) }

    /// The stack in `graph`. `linkedLibraryVersion` gives the version of the
    /// libwireplumber a process has loaded (nil when unknown); it is asked
    /// only when WirePlumber's client carries no `application.version`.
    public static func observed(in graph: Graph, linkedLibraryVersion: (Int32) -> String? = { _ in nil }) -> PipeWireStack {
        let wirePlumber = mainWirePlumberClient(in: graph).map { client -> WirePlumber in
            let pid = (client.props["pipewire.sec.pid"] ?? client.props["application.process.id"]).flatMap { Int32($0) }
            if let version = client.props["application.version"], !version.isEmpty {
                return WirePlumber(client: client.id, pid: pid, version: version, versionSource: .applicationVersion)
            }
            if let pid, let version = linkedLibraryVersion(pid) {
                return WirePlumber(client: client.id, pid: pid, version: version, versionSource: .linkedLibrary)
            }
            return WirePlumber(client: client.id, pid: pid)
        }
        return PipeWireStack(pipewire: graph.core?.version, wirePlumber: wirePlumber)
    }

    /// WirePlumber's daemon marks its clients `wireplumber.daemon = true`
    /// (0.4 and 0.5; `wpctl` and other library users do not). Besides its
    /// main client each instance has others, named after it with a suffix:
    /// an export-only one (`… [export]`, every generation) and, from 0.5.15,
    /// a client context for its scripts' own objects (`… [client]`, also
    /// marked `wireplumber.client-context`). Several instances can run
    /// (0.5's profiles: `WirePlumber (video-only)`); the `main` profile (0.4
    /// has no profiles) counts, else the oldest.
    /// The name suffixes of WirePlumber's clients that are not its main one.
    static let secondaryClientSuffixes = [" [export]", " [client]"]

    static func mainWirePlumberClient(in graph: Graph) -> Graph.Client? {
        let daemons = graph.clients.values.filter { client in
            let name = client.props["application.name"] ?? ""
            return client.props["wireplumber.daemon"] == "true" && client.props["wireplumber.client-context"] != "true"
                && !secondaryClientSuffixes.contains { name.hasSuffix($0) }
        }
        return daemons.min { a, b in
            let aMain = (a.props["wireplumber.profile"] ?? "main") == "main"
            let bMain = (b.props["wireplumber.profile"] ?? "main") == "main"
            return aMain != bMain ? aMain : a.id < b.id
        }
    }
}
