/// The PipeWire object graph as the policy sees it: plain values copied out of
/// the registry, info and param events, with no PipeWire types. The PipeWire
/// layer keeps one `Graph` current; the classifier and engine only read it.
public struct Graph: Sendable, Equatable {
    public var clients: [UInt32: Client] = [:]
    public var nodes: [UInt32: Node] = [:]
    public var ports: [UInt32: Port] = [:]
    public var links: [UInt32: Link] = [:] { didSet { linksByNode = LinksByNode() } }
    public var devices: [UInt32: Device] = [:]
    /// Metadata objects by id.
    public var metadata: [UInt32: Metadata] = [:]
    /// The daemon itself, from the core's info event (nil until it arrived).
    public var core: Core?
    /// `links(from:)` and `links(to:)` without a walk over every link: made
    /// once per version of `links`, when first asked. The planner asks for
    /// every stream's links, and a walk each was a tenth of a turn beside
    /// 500 streams (docs/PERFORMANCE.md, "Limits found").
    private var linksByNode = LinksByNode()

    public init() {}

    /// The daemon's core info (`pw-cli info 0`): which PipeWire runs.
    public struct Core: Sendable, Equatable {
        /// The daemon's version, as it reports it (`0.3.65`, `1.4.2`).
        public var version: String
        public init(version: String) { self.version = version }
    }

    public struct Client: Sendable, Equatable {
        public var id: UInt32
        public var props: [String: String] { didSet { coreVersion = Self.coreVersion(props) } }
        /// `core.version`: the client's own libpipewire, read when the props
        /// change: the planner asks it of every stream's client on every
        /// turn, and parsing it each time was a sixth of a turn beside 500
        /// streams (docs/PERFORMANCE.md, "Limits found").
        public private(set) var coreVersion: SemanticVersion?
        public init(id: UInt32, props: [String: String] = [:]) {
            self.id = id; self.props = props
            coreVersion = Self.coreVersion(props)
        }
        private static func coreVersion(_ props: [String: String]) -> SemanticVersion? {
            props["core.version"].flatMap(SemanticVersion.init(parsing:))
        }
    }

    public enum NodeState: String, Sendable, Equatable, Codable {
        case error, creating, suspended, idle, running
    }

    public struct Node: Sendable, Equatable {
        public var id: UInt32
        public var props: [String: String] { didSet { readKeys() } }
        public var state: NodeState
        /// Props `volume`: the policy's gain on a stream (nil until reported).
        public var volume: Float?
        /// Props `channelVolumes`: the user's per-channel stream volume.
        public var channelVolumes: [Float]
        /// Props `mute`: the user's.
        public var mute: Bool?
        /// How many Props reports the mirror has had for it: tells a report
        /// that came after a command of ours from one that came before.
        public var propsReports = 0
        /// Whether the node's info (its full properties) has arrived: the
        /// registry announces a node with only some of them (no `policy.*`),
        /// and classifying it on those would be wrong for a moment.
        public var hasInfo: Bool

        public init(id: UInt32, props: [String: String] = [:], state: NodeState = .creating,
                    volume: Float? = nil, channelVolumes: [Float] = [], mute: Bool? = nil, hasInfo: Bool = true) {
            self.id = id; self.props = props; self.state = state
            self.volume = volume; self.channelVolumes = channelVolumes; self.mute = mute; self.hasInfo = hasInfo
            readKeys()
        }

        // Read from `props` when they change, not on every use: a turn of
        // the agent asks them of every node several times, and beside 500
        // streams the lookups and number parsing were a tenth of it
        // (docs/PERFORMANCE.md, "Limits found").
        public private(set) var mediaClass: String?
        public private(set) var serial: UInt64?
        public private(set) var clientID: UInt32?
        public private(set) var deviceID: UInt32?
        /// Playback or capture for application streams, nil for devices and others.
        public private(set) var streamDirection: StreamDirection?
        /// One of the agent's own nodes (its meters, its stand-in streams):
        /// never classified, managed or counted as a stream.
        public private(set) var isAgentsOwn = false

        private mutating func readKeys() {
            mediaClass = props["media.class"]
            serial = props["object.serial"].flatMap { UInt64($0) }
            clientID = props["client.id"].flatMap { UInt32($0) }
            deviceID = props["device.id"].flatMap { UInt32($0) }
            isAgentsOwn = props[Self.agentsOwnKey] != nil
            switch mediaClass {
            case "Stream/Output/Audio": streamDirection = .playback
            case "Stream/Input/Audio": streamDirection = .capture
            default: streamDirection = nil
            }
        }

        public var name: String? { props["node.name"] }
        /// The property that marks the agent's own nodes (`isAgentsOwn`).
        public static let agentsOwnKey = "pw-policy.role"
        public var isAudioSink: Bool { mediaClass == "Audio/Sink" || mediaClass == "Audio/Duplex" }
    }

    public enum PortDirection: String, Sendable, Equatable, Codable { case input, output }

    public struct Port: Sendable, Equatable {
        public var id: UInt32
        public var nodeID: UInt32
        public var direction: PortDirection
        /// `audio.channel` (FL, FR, MONO…) if known.
        public var channel: String?
        public var isMonitor: Bool
        public var props: [String: String]
        public init(id: UInt32, nodeID: UInt32, direction: PortDirection, channel: String? = nil,
                    isMonitor: Bool = false, props: [String: String] = [:]) {
            self.id = id; self.nodeID = nodeID; self.direction = direction
            self.channel = channel; self.isMonitor = isMonitor; self.props = props
        }
    }

    public enum LinkState: String, Sendable, Equatable, Codable {
        case error, unlinked, initializing = "init", negotiating, allocating, paused, active

        /// All the policy reads of a link's state: whether it failed (a
        /// meter's link, a screen cast's), not how far along it is.
        public var failed: Bool { self == .error }
    }

    public struct Link: Sendable, Equatable {
        public var id: UInt32
        public var outputNode: UInt32
        public var outputPort: UInt32
        public var inputNode: UInt32
        public var inputPort: UInt32
        public var state: LinkState
        public init(id: UInt32, outputNode: UInt32, outputPort: UInt32, inputNode: UInt32,
                    inputPort: UInt32, state: LinkState = .initializing) {
            self.id = id; self.outputNode = outputNode; self.outputPort = outputPort
            self.inputNode = inputNode; self.inputPort = inputPort; self.state = state
        }
    }

    public enum Availability: String, Sendable, Equatable, Codable { case unknown, no, yes }

    /// An active device route (SPA_PARAM_Route): which port a device plays to.
    public struct Route: Sendable, Equatable {
        public var index: Int32
        public var device: Int32
        public var direction: PortDirection
        public var name: String
        public var description: String
        public var available: Availability
        /// `port.type` from the route info ("headphones", "speaker", "headset"…), if any.
        public var portType: String?
        /// For a port (EnumRoute): the card profile devices it belongs to.
        public var devices: [Int32]
        public init(index: Int32, device: Int32, direction: PortDirection, name: String,
                    description: String = "", available: Availability = .unknown, portType: String? = nil,
                    devices: [Int32] = []) {
            self.index = index; self.device = device; self.direction = direction; self.name = name
            self.description = description; self.available = available; self.portType = portType
            self.devices = devices
        }
    }

    public struct Device: Sendable, Equatable {
        public var id: UInt32
        public var props: [String: String]
        /// Active routes, as the device reports them (`Route`).
        public var routes: [Route]
        /// Every port the device has and whether it is plugged (`EnumRoute`):
        /// tells a jack pulled from a port the user merely switched away from.
        public var ports: [Route]
        public init(id: UInt32, props: [String: String] = [:], routes: [Route] = [], ports: [Route] = []) {
            self.id = id; self.props = props; self.routes = routes; self.ports = ports
        }
    }

    public struct MetadataEntry: Sendable, Equatable, Hashable {
        public var subject: UInt32
        public var key: String
        public var type: String?
        public var value: String
        public init(subject: UInt32, key: String, type: String?, value: String) {
            self.subject = subject; self.key = key; self.type = type; self.value = value
        }
    }

    public struct Metadata: Sendable, Equatable {
        public var id: UInt32
        public var name: String
        /// Entries keyed by subject, then key.
        public var entries: [UInt32: [String: MetadataEntry]]
        public init(id: UInt32, name: String, entries: [UInt32: [String: MetadataEntry]] = [:]) {
            self.id = id; self.name = name; self.entries = entries
        }
        public func value(subject: UInt32, key: String) -> String? { entries[subject]?[key]?.value }
    }
}

extension Graph {
    public func metadata(named name: String) -> Metadata? {
        metadata.values.first { $0.name == name }
    }

    /// Links leaving any output port of `node`, by id.
    public func links(from node: UInt32) -> [Link] {
        linksByNode.index(of: links).from[node] ?? []
    }

    /// Links entering any input port of `node`, by id.
    public func links(to node: UInt32) -> [Link] {
        linksByNode.index(of: links).to[node] ?? []
    }

    public func ports(of node: UInt32, direction: PortDirection) -> [Port] {
        ports.values.filter { $0.nodeID == node && $0.direction == direction }.sorted { $0.id < $1.id }
    }

    /// Audio application streams (playback and capture), by id; not the agent's own.
    public var streams: [Node] { nodes(where: { $0.streamDirection != nil && !$0.isAgentsOwn }) }

    /// Audio sinks, by id.
    public var sinks: [Node] { nodes(where: \.isAudioSink) }

    /// The nodes `include` picks, by id. The ids are sorted, not the nodes:
    /// moving a node copies its properties, and at hundreds of streams that
    /// was a good part of every reconcile (docs/PERFORMANCE.md).
    private func nodes(where include: (Node) -> Bool) -> [Node] {
        nodes.compactMap { include($0.value) ? $0.key : nil }.sorted().map { nodes[$0]! }
    }
}
