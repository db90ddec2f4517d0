import PolicyCore
import PolicyAgent
import PolicyPipeWire
import PolicyFiles

/// An independent client that sees the graph as any other client does (not
/// the agent's log) and stamps every change with the monotonic clock as it
/// arrives.
final class Observer {
    let loop = EventLoop()
    let connection: Connection
    let mirror: GraphMirror
    /// Receives every change with its arrival time.
    var onEvent: ((GraphMirror.ObjectChange, Double) -> Void)?
    private var idsByName: [String: UInt32] = [:]
    private var namesByID: [UInt32: String] = [:]
    /// The observer's own peak meters (the agent's kind), for when a stream
    /// became audible, independently of the agent's meters.
    private(set) var meters: StreamMeters!
    /// Called when one of `meters` changed (its node appeared, what it heard).
    var onMeterChange: (() -> Void)?
    /// When the last Props change of any node arrived.
    private(set) var lastPropsChange = 0.0

    init(remote: String) throws {
        connection = try Connection(loop: loop, remote: remote, applicationName: "pw-policy-observer")
        mirror = GraphMirror(connection: connection)
        mirror.onObjectChange = { [unowned self] change in
            let now = MonotonicClock.now
            switch change {
            case .added(let id):
                if let name = mirror.graph.nodes[id]?.name {
                    idsByName[name] = id
                    namesByID[id] = name
                }
            case .removed(let id):
                if let name = namesByID.removeValue(forKey: id), idsByName[name] == id { idsByName[name] = nil }
            case .props:
                lastPropsChange = now
            case .info, .metadata, .linkState:
                break
            }
            onEvent?(change, now)
        }
        meters = StreamMeters(mirror: mirror, thread: ThreadConnection(remote: remote)) { [unowned self] in
            // A meter's node appeared: it can be linked now.
            meters.relink()
            onMeterChange?()
        }
        guard mirror.waitForInitialSync(timeout: 10) else { throw BenchError("the observer got no initial graph") }
    }

    /// The meters go before the connection they are nodes on: its end
    /// would otherwise report their state to an observer already gone.
    deinit { meters = nil }

    var graph: Graph { mirror.graph }

    func node(named name: String) -> UInt32? { idsByName[name] }

    @discardableResult
    func wait(timeout: Double, until condition: () -> Bool) -> Bool {
        loop.run(timeout: timeout, until: condition)
    }

    func pump(_ seconds: Double) {
        _ = loop.run(timeout: seconds) { false }
    }

    /// Waits until no node's Props changed for `quiet` seconds: the agent
    /// (and WirePlumber's restore-stream) finished whatever they were doing.
    func waitForQuiet(_ quiet: Double = 0.3, timeout: Double = 10) {
        lastPropsChange = MonotonicClock.now
        _ = loop.run(timeout: timeout) { MonotonicClock.now - self.lastPropsChange >= quiet }
    }
}
