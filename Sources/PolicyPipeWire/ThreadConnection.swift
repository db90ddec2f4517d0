import CPipeWire
import PolicyCore

/// A second connection of the agent's, on a thread of its own
/// (`pw_thread_loop`), for what must never wait while the agent's loop
/// reconciles: the start gate's registry (`LinkGuard`) and the meters'
/// nodes (`StreamMeters`), whose formats, buffers and start the daemon
/// negotiates with this process at the moment a ducker is linked — the
/// moment the agent's loop is busiest (docs/PERFORMANCE.md, "The first
/// duck step"), and the links from metered streams to those nodes
/// (`MeterLinker`). Owns the thread, the context, the core and its
/// registry (`ThreadRegistry`); what uses them takes `withLock` on any
/// other thread.
public final class ThreadConnection: @unchecked Sendable {
    // @unchecked: the C objects are touched on the thread (callbacks) or
    // under its lock (`withLock`), as pw_thread_loop requires.

    let threadLoop: OpaquePointer      // struct pw_thread_loop *
    let context: OpaquePointer         // struct pw_context *
    let core: OpaquePointer            // struct pw_core *
    /// The graph as the thread sees it, and who acts on it there.
    let registry: ThreadRegistry

    /// Connects to `remote` and starts the thread; nil when the daemon
    /// cannot be reached or the thread not started.
    public init?(remote: String) {
        PipeWireLibrary.initialize()
        guard let threadLoop = pw_thread_loop_new("pw-policy-side", nil) else { return nil }
        let loop = pw_thread_loop_get_loop(threadLoop)
        guard let context = withDictionary(Connection.contextProperties, { props in
            pw_context_new(loop, pw_properties_new_dict(props), 0)
        }) else {
            pw_thread_loop_destroy(threadLoop)
            return nil
        }
        let properties = ["remote.name": remote, "application.name": "pw-policy", "media.category": "Manager",
                          Graph.Node.agentsOwnKey: "thread"]
        guard let core = withDictionary(properties, { pw_context_connect(context, pw_properties_new_dict($0), 0) }) else {
            pw_context_destroy(context)
            pw_thread_loop_destroy(threadLoop)
            return nil
        }
        let registry = ThreadRegistry(core: core)
        guard pw_thread_loop_start(threadLoop) == 0 else {
            registry.close()
            pw_core_disconnect(core)
            pw_context_destroy(context)
            pw_thread_loop_destroy(threadLoop)
            return nil
        }
        self.threadLoop = threadLoop
        self.context = context
        self.core = core
        self.registry = registry
    }

    deinit {
        pw_thread_loop_stop(threadLoop)
        registry.close()
        pw_core_disconnect(core)
        pw_context_destroy(context)
        pw_thread_loop_destroy(threadLoop)
    }

    /// Runs `body` holding the thread's lock: the thread's callbacks do not
    /// run meanwhile (the lock is recursive, so a callback may take it too).
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pw_thread_loop_lock(threadLoop)
        defer { pw_thread_loop_unlock(threadLoop) }
        return try body()
    }

    /// The id of this connection's client object (nil until bound): links
    /// it makes are the agent's own.
    var clientID: UInt32? { Connection.clientID(of: core) }

    /// Nodes exported on this connection need the client-node module, which
    /// it does not load until the first (`Connection.contextProperties`;
    /// PipeWire 0.3.65's client.conf loads it anyway).
    func canExportNodes() -> Bool {
        withLock {
            pw_context_find_export_type(context, InterfaceType.node) != nil
                || pw_context_load_module(context, "libpipewire-module-client-node", nil, nil) != nil
        }
    }
}
