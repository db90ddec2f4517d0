import PolicyCore
import PolicyPipeWire
import PolicyFiles

/// What the desktop knows about the apps behind the streams, for the core's
/// app-knowledge step (docs/CLASSIFICATION.md, "App knowledge"): the
/// installed desktop entries, read at start and again when their
/// directories change, and /proc read for each process a client names,
/// once, when it first appears. The core decides which process to read
/// (`AppProcess`) and what it all means; this only reads, and keeps each
/// client's answer while its properties and the entries stay the same
/// (beside hundreds of streams, resolving every client on every graph
/// change would cost more than the decision).
final class AppKnowledgeObserver {
    let directories: [String]
    private(set) var entries: DesktopEntryIndex
    /// What was read of each process still behind a client, by pid.
    private var processes: [Int32: AppProcess.Read] = [:]
    /// Each client's facts with the properties they came from.
    private var known: [UInt32: (client: [String: String], node: [String: String], app: AppFacts?)] = [:]
    /// The last answer, until clients, nodes or entries change.
    private var apps: [UInt32: AppFacts]?

    init(environment: [String: String]) {
        directories = DesktopEntryFiles.directories(environment: environment)
        entries = DesktopEntryFiles.index(directories: directories)
    }

    /// The desktop entries changed on disk.
    func reloadEntries() {
        entries = DesktopEntryFiles.index(directories: directories)
        known = [:]
        apps = nil
    }

    /// A client or node appeared, went, or changed its properties.
    func graphChanged() { apps = nil }

    /// Every client's app facts, by client id.
    func apps(in graph: Graph) -> [UInt32: AppFacts] {
        if let apps { return apps }
        let pids = Set(AppProcess.claims(in: graph).map(\.pid))
        processes = processes.filter { pids.contains($0.key) }
        for pid in pids where processes[pid] == nil {
            guard let facts = ProcessFiles.facts(of: pid) else { continue }
            processes[pid] = AppProcess.Read(process: facts, ancestors: ProcessFiles.ancestors(of: pid))
        }
        var next: [UInt32: (client: [String: String], node: [String: String], app: AppFacts?)] = [:]
        var found: [UInt32: AppFacts] = [:]
        for (clientID, node) in AppProcess.firstStreams(in: graph) {
            guard let client = graph.clients[clientID] else { continue }
            let app: AppFacts?
            if let cached = known[clientID], cached.client == client.props, cached.node == node.props {
                app = cached.app
            } else {
                app = AppProcess.app(of: client, node: node, processes: processes, entries: entries)
            }
            next[clientID] = (client.props, node.props, app)
            found[clientID] = app
        }
        known = next
        apps = found
        return found
    }
}
