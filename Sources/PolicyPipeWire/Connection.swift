import CPipeWire
import PolicyCore
import PolicyFiles
#if canImport(Glibc)
import Glibc
#endif

public enum ConnectionError: Error, Equatable, CustomStringConvertible {
    /// No PipeWire daemon answered at this remote.
    case unavailable(remote: String, reason: String)
    /// Nothing listens at the socket: no daemon runs for this user. Said
    /// as such, with the socket and how to start one, rather than as
    /// libpipewire's errno ("Host is down").
    case notRunning(remote: String, socket: PipeWireSocket)

    public var description: String {
        switch self {
        case .unavailable(let remote, let reason):
            "cannot connect to PipeWire at '\(remote)': \(reason)"
        case .notRunning(_, let socket):
            socket.nobodyListens
        }
    }

    /// Why `pw_context_connect` failed, from its errno. libpipewire reports
    /// a socket that does not exist as EHOSTDOWN; one nobody listens on
    /// (a daemon that died) is ECONNREFUSED.
    static func connecting(to remote: String, errno code: Int32, environment: [String: String]) -> ConnectionError {
        switch code {
        case EHOSTDOWN, ECONNREFUSED, ENOENT:
            .notRunning(remote: remote, socket: PipeWireSocket(remote: remote, environment: environment))
        default:
            .unavailable(remote: remote, reason: String(cString: strerror(code)))
        }
    }
}

/// A connection to a PipeWire daemon: the context and core of a native client
/// on an `EventLoop`. Reports a lost daemon once through `onDisconnect`.
public final class Connection {
    public let loop: EventLoop
    public let remote: String
    let context: OpaquePointer   // struct pw_context *
    let core: OpaquePointer      // struct pw_core *
    private let coreHook = Hook()
    private var coreEvents: EventsTable<pw_core_events>?
    private var pendingSyncs: [Int32: () -> Void] = [:]
    public private(set) var isConnected = true
    /// Called once when the daemon goes away (or the connection breaks).
    public var onDisconnect: ((String) -> Void)?
    /// Called for errors the daemon reports on our objects (id, message).
    public var onError: ((UInt32, Int32, String) -> Void)?
    /// The daemon's core info (its version: which PipeWire runs); nil until
    /// the daemon sent it, which it does right after connecting.
    public private(set) var coreInfo: Graph.Core?
    /// Called when `coreInfo` arrives or changes (the graph mirror keeps it).
    var onCoreInfo: ((Graph.Core) -> Void)?

    /// The id of this connection's client object in the daemon (nil until
    /// the daemon has bound it: after the first round trip).
    public var clientID: UInt32? { Self.clientID(of: core) }

    /// The bound id of `core`'s client object, nil until the daemon bound it.
    static func clientID(of core: OpaquePointer) -> UInt32? {
        guard let client = pw_core_get_client(core) else { return nil }
        let id = pw_proxy_get_bound_id(client)
        return id == UInt32(SPA_ID_INVALID) ? nil : id
    }

    /// Whether an error the daemon reported (`onError`) is a refusal for lack
    /// of permission: EACCES for a method the client may not call at all;
    /// EPERM from PipeWire 1.6's metadata for a subject the client may not
    /// write metadata of (a restricted client, as Flatpak apps are).
    public static func isRefusal(_ result: Int32) -> Bool {
        result == -EACCES || result == -EPERM
    }

    /// The remote to use when none is given: `PIPEWIRE_REMOTE`, else `pipewire-0`.
    static func defaultRemote(environment: [String: String]) -> String {
        environment["PIPEWIRE_REMOTE"].flatMap { $0.isEmpty ? nil : $0 } ?? "pipewire-0"
    }

    /// `properties` are added to the client's (e.g. `pipewire.client.access`).
    public init(loop: EventLoop, remote: String? = nil, applicationName: String = "pw-policy",
                properties: [String: String] = [:]) throws(ConnectionError) {
        self.loop = loop
        let environment = currentEnvironment()
        let remoteName = remote ?? Connection.defaultRemote(environment: environment)
        self.remote = remoteName
        let context = withDictionary(Connection.contextProperties) { props in
            pw_context_new(loop.pwLoop, pw_properties_new_dict(props), 0)
        }
        guard let context else {
            throw .unavailable(remote: remoteName, reason: "cannot create a PipeWire context")
        }
        self.clientProperties = Connection.clientProperties(remote: remoteName, applicationName: applicationName, extra: properties)
        guard let core = Connection.connect(context, properties: clientProperties) else {
            let error = ConnectionError.connecting(to: remoteName, errno: errno, environment: environment)
            pw_context_destroy(context)
            throw error
        }
        self.context = context
        self.core = core
        installCoreListener(on: core, hook: coreHook)
    }

    /// The modules of client.conf a client with no streams and no devices
    /// never uses, turned off by the conditions client.conf puts on them
    /// (PipeWire 1.x; 0.3.65's loads them all): only the native protocol
    /// and metadata stay. Their pages counted in the agent's memory
    /// (docs/PERFORMANCE.md, "The agent's memory"); the user's client.conf.d
    /// is read as before.
    static let contextProperties = [
        "module.rt": "false", "module.client-node": "false", "module.client-device": "false",
        "module.adapter": "false", "module.session-manager": "false",
    ]

    private let clientProperties: [String: String]
    private var exportCore: (core: OpaquePointer, hook: Hook)?

    deinit {
        coreHook.remove()
        if let exportCore {
            exportCore.hook.remove()
            pw_core_disconnect(exportCore.core)
        }
        pw_core_disconnect(core)
        pw_context_destroy(context)
    }

    private static func clientProperties(remote: String, applicationName: String,
                                         extra: [String: String]) -> [String: String] {
        ["remote.name": remote, "application.name": applicationName, "media.category": "Manager"]
            .merging(extra) { $1 }
    }

    private static func connect(_ context: OpaquePointer, properties: [String: String]) -> OpaquePointer? {
        withDictionary(properties) { props -> OpaquePointer? in
            pw_context_connect(context, pw_properties_new_dict(props), 0)
        }
    }

    /// A second connection that only exports objects and never binds any.
    ///
    /// The daemon marks a client that binds someone's exported metadata as
    /// busy (it stops reading from it) until the exporter answers a ping. If
    /// one connection both exported ours and bound WirePlumber's, and
    /// WirePlumber bound ours at the same moment, each would wait for the
    /// other's pong forever. An export-only connection is never busy.
    func exportingCore() throws(ConnectionError) -> OpaquePointer {
        if let exportCore { return exportCore.core }
        guard let core = Connection.connect(context, properties: clientProperties) else {
            throw .connecting(to: remote, errno: errno, environment: currentEnvironment())
        }
        let hook = Hook()
        installCoreListener(on: core, hook: hook)
        exportCore = (core, hook)
        return core
    }

    private func installCoreListener(on core: OpaquePointer, hook: Hook) {
        var events = pw_core_events()
        events.version = UInt32(PW_VERSION_CORE_EVENTS)
        events.done = { data, id, seq in
            let me = Unmanaged<Connection>.fromOpaque(data!).takeUnretainedValue()
            guard id == UInt32(PW_ID_CORE), let action = me.pendingSyncs.removeValue(forKey: seq) else { return }
            action()
        }
        events.error = { data, id, _, res, message in
            let me = Unmanaged<Connection>.fromOpaque(data!).takeUnretainedValue()
            let text = message.map { String(cString: $0) } ?? String(cString: strerror(-res))
            if id == UInt32(PW_ID_CORE) && res == -EPIPE {
                me.connectionLost(text)
            } else {
                me.onError?(id, res, text)
            }
        }
        events.info = { data, info in
            guard let data, let info else { return }
            let me = Unmanaged<Connection>.fromOpaque(data).takeUnretainedValue()
            me.coreInfoChanged(info.pointee)
        }
        let table = coreEvents ?? EventsTable(events)
        coreEvents = table
        _ = cpw_core_add_listener(core, hook.pointer, table.pointer, Unmanaged.passUnretained(self).toOpaque())
        hook.attached()
    }

    /// Both our cores are connected to the same daemon: either's info will do.
    private func coreInfoChanged(_ info: pw_core_info) {
        let core = Graph.Core(version: info.version.map { String(cString: $0) } ?? "")
        guard core != coreInfo else { return }
        coreInfo = core
        onCoreInfo?(core)
    }

    private func connectionLost(_ reason: String) {
        guard isConnected else { return }
        isConnected = false
        onDisconnect?(reason)
    }

    /// Runs `action` once the daemon has processed everything sent before.
    public func sync(_ action: @escaping () -> Void) {
        let seq = cpw_core_sync(core, UInt32(PW_ID_CORE), 0)
        guard seq >= 0 else { return }
        pendingSyncs[seq] = action
    }

    /// Blocks (iterating the loop) until a round trip completes; false on timeout or disconnect.
    @discardableResult
    public func roundTrip(timeout: Double = 5) -> Bool {
        var done = false
        sync { done = true }
        return loop.run(timeout: timeout) { done || !self.isConnected } && done
    }
}

