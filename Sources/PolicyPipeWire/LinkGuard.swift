import CPipeWire
import PolicyCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Destroys the links the start gate refuses the moment the registry
/// announces them (StartGate; docs/POLICY.md, "The first sample"), on the
/// agent's connection on a thread of its own (`ThreadConnection`).
///
/// WirePlumber's link of a new stream carries its first samples 1.5–2.5 ms
/// after the registry announces it (0.4.13, measured). The agent's own loop
/// may be in the middle of a reconcile then — 2–8 ms in a debug build — and
/// a refusal made there came too late in one run of ten beside other work.
/// That thread does nothing else but start the meters' nodes and link
/// them: it is never busy for long when a link arrives. What it refuses,
/// and where each refused stream was going, the agent's loop reads back
/// (`refused`, `withoutRefusedLinks`).
///
/// Only links of playback streams into something that is not a capture
/// stream are refused: a capture stream reading a playback stream (a
/// recorder of one app) carries nothing to a sink. Nor are the links of a
/// loopback's or filter's playing side (`node.link-group`): it plays what
/// other streams, gated themselves, play into it. Nor are the agent's own
/// links: its main connection's (`trustLinks`) and this thread's (a stream
/// to its peak meter).
public final class LinkGuard: @unchecked Sendable {
    // @unchecked: the registry is touched only on the connection's thread
    // (its events) and under its lock (init, deinit); the state shared
    // with the agent's loop is behind `shared`.

    private struct Shared {
        var gate = StartGate.open
        /// Refused streams not linked since: stream → where it was going.
        var refused: [UInt32: UInt32] = [:]
        /// Links destroyed and not yet gone from the registry.
        var destroying: Set<UInt32> = []
        var refusals = 0
        /// Clients whose links are never refused: the agent's own.
        var trusted: Set<UInt32> = []
        /// The thread's nice level once it tried to raise it (nil: not yet).
        var priority: (nice: Int32, raised: Bool)?
    }

    private let shared = Mutex(Shared())
    private let connection: ThreadConnection

    /// Observes the registry of `connection`'s thread.
    public init(connection: ThreadConnection) {
        self.connection = connection
        connection.withLock {
            connection.registry.observe(by: self) { [unowned self] event in self.observed(event) }
        }
    }

    deinit {
        connection.withLock { connection.registry.stopObserving(self) }
    }

    /// What is refused from now on.
    public var gate: StartGate {
        get { shared.withLock { $0.gate } }
        set { shared.withLock { $0.gate = newValue } }
    }

    /// The streams refused and not linked since: stream → where it was going.
    public var refused: [UInt32: UInt32] { shared.withLock { $0.refused } }

    /// How many links were refused so far (the log says it).
    public var refusals: Int { shared.withLock { $0.refusals } }

    /// Links made by `client` (the agent's own connection) are never refused.
    public func trustLinks(ofClient client: UInt32) { shared.withLock { _ = $0.trusted.insert(client) } }

    /// The agent linked the stream: its refusal is answered (the next
    /// reconcile may come before the link shows in the graph).
    public func linked(_ stream: UInt32) { shared.withLock { _ = $0.refused.removeValue(forKey: stream) } }

    /// `graph` without the links refused and still being destroyed: the core
    /// must not take a stream whose only links are those for linked.
    public func withoutRefusedLinks(_ graph: Graph) -> Graph {
        let destroying = shared.withLock { $0.destroying }
        guard !destroying.isEmpty else { return graph }
        var graph = graph
        for id in destroying { graph.links[id] = nil }
        return graph
    }

    /// The guard thread's nice level and whether raising it worked (nil
    /// until the thread ran); the agent logs it.
    public var priority: (nice: Int32, raised: Bool)? { shared.withLock { $0.priority } }

    /// The nice level the guard's thread asks for: PipeWire's own main
    /// thread's (what RTKit grants it), so that a busy desktop — or the
    /// builds beside a test suite — does not starve the one thread whose
    /// answer must come within a graph cycle. Where the process may not
    /// raise it (no CAP_SYS_NICE, RLIMIT_NICE too low) it stays as it is.
    public static let niceLevel: Int32 = -11

    // MARK: the guard's thread

    private func raisePriorityOnce() {
        guard shared.withLock({ $0.priority == nil }) else { return }
        let thread = id_t(cpw_gettid())
        let raised = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, Self.niceLevel) == 0
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread)
        shared.withLock { $0.priority = (nice, raised) }
    }

    private func observed(_ event: ThreadRegistry.Event) {
        raisePriorityOnce()
        switch event {
        case .link(let link, let creator):
            refuseIfGated(link, creator: creator)
        case .nodeRemoved(let id):
            shared.withLock { _ = $0.refused.removeValue(forKey: id) }
        case .linkRemoved(let link):
            shared.withLock { _ = $0.destroying.remove(link.id) }
        case .port, .portRemoved:
            break
        }
    }

    private func refuseIfGated(_ link: Graph.Link, creator: UInt32?) {
        let nodes = connection.registry.graph.nodes
        // The thread's own links (a meter's) are the agent's.
        let ownThread = creator != nil && creator == connection.clientID
        let refuse = shared.withLock { state -> Bool in
            // The playing side of a loopback or filter (WirePlumber's
            // role loopbacks) carries other streams, gated on their own;
            // refused, it would stay unlinked (docs/POLICY.md, "Beside
            // WirePlumber's role policy").
            guard !state.gate.isOpen, !ownThread, creator.map({ !state.trusted.contains($0) }) ?? true,
                  let stream = nodes[link.outputNode], stream.mediaClass == "Stream/Output/Audio",
                  stream.props["node.link-group"] == nil, nodes[link.inputNode]?.mediaClass != "Stream/Input/Audio",
                  state.gate.refuses(stream: link.outputNode, serial: stream.serial, client: stream.clientID)
            else { return false }
            state.refused[link.outputNode] = link.inputNode
            state.destroying.insert(link.id)
            state.refusals += 1
            return true
        }
        if refuse { connection.registry.destroy(link.id) }
    }
}
