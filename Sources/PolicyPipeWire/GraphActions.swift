import CPipeWire
import PolicyCore
#if canImport(Glibc)
import Glibc
#endif

public enum ActionError: Error, Equatable, CustomStringConvertible {
    case noSuchObject(UInt32)
    case noPortsToLink(output: UInt32, input: UInt32)
    case failed(String, code: Int32)

    public var description: String {
        switch self {
        case .noSuchObject(let id): "no object with id \(id)"
        case .noPortsToLink(let output, let input): "no matching ports to link node \(output) to node \(input)"
        case .failed(let what, let code): "\(what) failed: \(String(cString: strerror(-code)))"
        }
    }
}

/// The only ways this program changes the graph. Each is one request to the
/// daemon; results show up in the mirror like anyone else's changes.
public final class GraphActions {
    public let mirror: GraphMirror
    private var connection: Connection { mirror.connection }
    /// Links we created: a link-factory link lives as long as its proxy.
    private var createdLinks: [CreatedLink] = []
    private var createdMetadata: [String: OpaquePointer] = [:]

    public init(mirror: GraphMirror) {
        self.mirror = mirror
    }

    deinit {
        createdLinks.removeAll()
        for proxy in createdMetadata.values { pw_proxy_destroy(proxy) }
    }

    /// Sets a node's Props `volume`, the policy gain, and nothing else.
    public func setVolume(node: UInt32, to volume: Float) throws(ActionError) {
        guard let observer = mirror.nodeObserver(node) else { throw .noSuchObject(node) }
        let result = observer.setVolume(volume)
        if result < 0 { throw .failed("setting volume of node \(node)", code: result) }
    }

    /// Links the output ports of `output` to the input ports of `input` with
    /// matching channels (a mono side links to every channel of the other).
    /// The links live until `unlinkCreated` or until this client disconnects.
    public func link(output: UInt32, to input: UInt32) throws(ActionError) {
        let pairs = PortPairing.pairs(graph: mirror.graph, output: output, input: input)
        guard !pairs.isEmpty else { throw .noPortsToLink(output: output, input: input) }
        for (outputPort, inputPort) in pairs {
            let properties = [
                "link.output.node": String(output), "link.output.port": String(outputPort),
                "link.input.node": String(input), "link.input.port": String(inputPort),
            ]
            let raw = withDictionary(properties) { props in
                cpw_core_create_object(connection.core, "link-factory", InterfaceType.link, InterfaceType.version, props)
            }
            guard let raw else { throw .failed("creating a link from node \(output) to \(input)", code: -EIO) }
            createdLinks.append(CreatedLink(proxy: OpaquePointer(raw), output: output, input: input))
        }
    }

    /// Destroys the links this client created from `output` (to any node).
    public func unlinkCreated(output: UInt32) {
        createdLinks.removeAll { $0.output == output }
    }

    /// Destroys a link, whoever created it.
    public func destroy(link: UInt32) throws(ActionError) {
        guard mirror.graph.links[link] != nil else { throw .noSuchObject(link) }
        createdLinks.removeAll { $0.boundID == link }
        let result = cpw_registry_destroy(mirror.registry, link)
        if result < 0 { throw .failed("destroying link \(link)", code: result) }
    }

    /// Sets `key` of `subject` in metadata object `metadata`; nil value removes the key.
    public func setMetadata(_ metadata: UInt32, subject: UInt32, key: String, type: String?, value: String?) throws(ActionError) {
        guard let observer = mirror.metadataObserver(metadata) else { throw .noSuchObject(metadata) }
        let result = observer.set(subject: subject, key: key, type: type, value: value)
        if result < 0 { throw .failed("setting metadata \(key)", code: result) }
    }

    /// Creates a metadata object named `name` in the daemon (module-metadata's
    /// factory), readable and writable by other clients (`pw-metadata -n name`).
    /// It lives as long as this client: when the agent goes, so does its state.
    public func createMetadata(named name: String) throws(ActionError) {
        guard createdMetadata[name] == nil else { return }
        let raw = withDictionary(["metadata.name": name]) { props in
            cpw_core_create_object(connection.core, "metadata", InterfaceType.metadata, InterfaceType.version, props)
        }
        guard let raw else { throw .failed("creating metadata '\(name)'", code: -EIO) }
        createdMetadata[name] = OpaquePointer(raw)
    }
}

/// A link-factory link owned by us: destroying the proxy destroys the link.
private final class CreatedLink {
    let proxy: OpaquePointer
    let output: UInt32
    let input: UInt32
    init(proxy: OpaquePointer, output: UInt32, input: UInt32) {
        self.proxy = proxy; self.output = output; self.input = input
    }
    var boundID: UInt32 { pw_proxy_get_bound_id(proxy) }
    deinit { pw_proxy_destroy(proxy) }
}

/// Which output port goes to which input port, the way WirePlumber pairs them:
/// by `audio.channel`; a mono side fans out/in; otherwise by position.
enum PortPairing {
    static func pairs(graph: Graph, output: UInt32, input: UInt32) -> [(UInt32, UInt32)] {
        let outputs = graph.ports(of: output, direction: .output).filter { !$0.isMonitor }
        let inputs = graph.ports(of: input, direction: .input)
        guard !outputs.isEmpty, !inputs.isEmpty else { return [] }
        if outputs.count == 1 { return inputs.map { (outputs[0].id, $0.id) } }
        if inputs.count == 1 { return outputs.map { ($0.id, inputs[0].id) } }
        var result: [(UInt32, UInt32)] = []
        for (index, port) in outputs.enumerated() {
            if let channel = port.channel, let match = inputs.first(where: { $0.channel == channel }) {
                result.append((port.id, match.id))
            } else if index < inputs.count {
                result.append((port.id, inputs[index].id))
            }
        }
        return result
    }
}
