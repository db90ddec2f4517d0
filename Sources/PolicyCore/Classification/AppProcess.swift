/// Which process is behind a client, and how far that can be trusted
/// (docs/CLASSIFICATION.md, "App knowledge", "What it reads"): the adapter
/// reads /proc for these pids only, and the core resolves each client's
/// `AppFacts` from what it read.
public enum AppProcess {
    /// The client's process: `pipewire.sec.pid` on a native client (the
    /// daemon's, from the socket's credentials); on a pipewire-pulse client
    /// that is pipewire-pulse's own pid, and the app's is the
    /// `application.process.id` it claims, with the `application.process.binary`
    /// it claims to run, which the adapter checks against the process.
    public struct Claim: Sendable, Equatable, Hashable {
        public var pid: Int32
        /// The binary the process must run for the claim to hold; nil: the
        /// daemon's word, nothing to check.
        public var binary: String?
    }

    public static func claim(of client: Graph.Client) -> Claim? {
        let props = client.props
        if props["client.api"] == "pipewire-pulse" {
            guard let pid = props["application.process.id"].flatMap({ Int32($0) }), pid > 1 else { return nil }
            return Claim(pid: pid, binary: props["application.process.binary"].flatMap { $0.isEmpty ? nil : $0 })
        }
        guard let pid = props["pipewire.sec.pid"].flatMap({ Int32($0) }), pid > 1 else { return nil }
        return Claim(pid: pid, binary: nil)
    }

    /// The claims of the clients that play or record streams: what the
    /// adapter reads.
    public static func claims(in graph: Graph) -> Set<Claim> {
        Set(graph.streams.compactMap { $0.clientID.flatMap { graph.clients[$0] }.flatMap(claim(of:)) })
    }

    /// Whether a process the adapter read runs the binary a claim names:
    /// its executable or its `argv[0]` (pacat runs as paplay).
    public static func runs(_ process: ProcessFacts, _ claim: Claim) -> Bool {
        guard let binary = claim.binary else { return true }
        return process.executable == binary || process.arguments.first.map(DesktopExec.basename) == binary
    }

    /// What the adapter read of one process: the process and its ancestors,
    /// parent first.
    public struct Read: Sendable, Equatable {
        public var process: ProcessFacts
        public var ancestors: [AncestorFacts]
        public init(process: ProcessFacts, ancestors: [AncestorFacts]) {
            self.process = process; self.ancestors = ancestors
        }
    }

    /// Every client's `AppFacts`, by client id, from what was read of the
    /// processes (by pid; a claim whose process runs another binary counts as
    /// not read) and the installed desktop entries. The node properties are
    /// the client's lowest stream's: what a client's streams share.
    public static func apps(in graph: Graph, processes: [Int32: Read],
                            entries: DesktopEntryIndex) -> [UInt32: AppFacts] {
        var apps: [UInt32: AppFacts] = [:]
        for (clientID, node) in firstStreams(in: graph) {
            guard let client = graph.clients[clientID] else { continue }
            apps[clientID] = app(of: client, node: node, processes: processes, entries: entries)
        }
        return apps
    }

    /// One client's facts (its lowest stream's properties: what a client's
    /// streams share).
    public static func app(of client: Graph.Client, node: Graph.Node, processes: [Int32: Read],
                           entries: DesktopEntryIndex) -> AppFacts? {
        let read = claim(of: client).flatMap { claim in processes[claim.pid].flatMap { runs($0.process, claim) ? $0 : nil } }
        return AppFacts.resolve(nodeProps: node.props, clientProps: client.props, process: read?.process,
                                ancestors: read?.ancestors ?? [], entries: entries)
    }

    /// Each client's lowest stream, by client id.
    public static func firstStreams(in graph: Graph) -> [UInt32: Graph.Node] {
        var first: [UInt32: Graph.Node] = [:]
        for node in graph.streams {
            guard let client = node.clientID, first[client] == nil else { continue }
            first[client] = node
        }
        return first
    }
}
