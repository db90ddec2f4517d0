/// A graph read from `pw-dump`'s JSON (what a user attaches to a bug
/// report), shaped as `GraphMirror` mirrors the daemon's: the same nodes,
/// ports, links, clients, devices with their routes, metadata and core info,
/// with every property as the text libpipewire hands the mirror.
public struct PipeWireDump: Sendable, Equatable {
    public var graph: Graph
    /// Objects skipped or read only in part, one line each.
    public var warnings: [String]

    /// The input is not a pw-dump at all.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> PipeWireDump {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw Failure(description: "not a pw-dump: \(error)")
        }
        guard case .array(let objects) = document else {
            throw Failure(description: "not a pw-dump: pw-dump prints a JSON array of objects, this is \(kind(of: document))")
        }
        var dump = PipeWireDump(graph: Graph(), warnings: [])
        for (index, object) in objects.enumerated() {
            guard case .object(let members) = object, let id = members["id"].flatMap(uint32),
                  case .string(let type)? = members["type"] else {
                dump.warnings.append("object \(index + 1) of the dump skipped: no numeric id and type")
                continue
            }
            dump.read(id: id, type: type, members)
        }
        if dump.graph.core == nil {
            dump.warnings.append("no PipeWire:Interface:Core object: the PipeWire version is unknown")
        }
        return dump
    }

    private mutating func read(id: UInt32, type: String, _ members: [String: JSONValue]) {
        let info = members["info"]?.members ?? [:]
        let props = Self.strings(info["props"] ?? members["props"])
        switch type {
        case "PipeWire:Interface:Core":
            if case .string(let version)? = info["version"] { graph.core = Graph.Core(version: version) }
        case "PipeWire:Interface:Node":
            var node = Graph.Node(id: id, props: props,
                                  state: info["state"]?.string.flatMap(Graph.NodeState.init(rawValue:)) ?? .creating)
            let values = info["params"]?.members?["Props"]?.elements ?? []
            if let volume = values.lazy.compactMap({ $0.members?["volume"].flatMap(Self.float) }).first {
                node.volume = volume
                node.channelVolumes = values.lazy.compactMap { $0.members?["channelVolumes"]?.elements }.first?
                    .compactMap(Self.float) ?? []
                node.mute = values.lazy.compactMap { $0.members?["mute"]?.bool }.first
                node.propsReports = 1
            }
            graph.nodes[id] = node
        case "PipeWire:Interface:Port":
            guard let node = props["node.id"].flatMap({ UInt32($0) }) else {
                warnings.append("port \(id) skipped: no node.id")
                return
            }
            let direction = props["port.direction"].map { $0 == "in" } ?? (info["direction"]?.string == "input")
            // The mirror binds no port: it has the registry's properties,
            // which are the info's without the object's own id.
            var registryProps = props
            registryProps["object.id"] = nil
            graph.ports[id] = Graph.Port(id: id, nodeID: node, direction: direction ? .input : .output,
                                         channel: props["audio.channel"], isMonitor: props["port.monitor"] == "true",
                                         props: registryProps)
        case "PipeWire:Interface:Link":
            func end(_ infoKey: String, _ propsKey: String) -> UInt32? {
                info[infoKey].flatMap(Self.uint32) ?? props[propsKey].flatMap { UInt32($0) }
            }
            guard let outputNode = end("output-node-id", "link.output.node"), let outputPort = end("output-port-id", "link.output.port"),
                  let inputNode = end("input-node-id", "link.input.node"), let inputPort = end("input-port-id", "link.input.port") else {
                warnings.append("link \(id) skipped: its nodes and ports are not all given")
                return
            }
            graph.links[id] = Graph.Link(id: id, outputNode: outputNode, outputPort: outputPort, inputNode: inputNode,
                                         inputPort: inputPort,
                                         state: info["state"]?.string.flatMap(Graph.LinkState.init(rawValue:)) ?? .initializing)
        case "PipeWire:Interface:Client":
            graph.clients[id] = Graph.Client(id: id, props: props)
        case "PipeWire:Interface:Device":
            let params = info["params"]?.members ?? [:]
            func routes(_ param: String) -> [Graph.Route] {
                (params[param]?.elements ?? []).compactMap(Self.route).sorted { ($0.device, $0.index) < ($1.device, $1.index) }
            }
            graph.devices[id] = Graph.Device(id: id, props: props, routes: routes("Route"), ports: routes("EnumRoute"))
        case "PipeWire:Interface:Metadata":
            var metadata = Graph.Metadata(id: id, name: props["metadata.name"] ?? "")
            for case .object(let entry) in members["metadata"]?.elements ?? [] {
                guard let subject = entry["subject"].flatMap(Self.uint32), case .string(let key)? = entry["key"],
                      let value = entry["value"], value != .null else { continue }
                let type = entry["type"]?.string
                metadata.entries[subject, default: [:]][key] =
                    Graph.MetadataEntry(subject: subject, key: key, type: type, value: Self.metadataText(value, type: type))
            }
            graph.metadata[id] = metadata
        default:
            return
        }
    }

    /// A property as libpipewire hands it over: pw-dump writes numbers and
    /// booleans bare, and everything else as a string.
    static func strings(_ value: JSONValue?) -> [String: String] {
        guard case .object(let members)? = value else { return [:] }
        var strings: [String: String] = [:]
        for (key, value) in members {
            switch value {
            case .string(let text): strings[key] = text
            case .number(let text): strings[key] = text
            case .bool(let flag): strings[key] = flag ? "true" : "false"
            case .null: continue
            case .array, .object: strings[key] = value.text(escapingSlashes: false)
            }
        }
        return strings
    }

    /// A metadata value as its owner set it: pw-dump writes a JSON one
    /// (`Spa:String:JSON`) as JSON, and others as a string unless they read
    /// as a number or a boolean.
    static func metadataText(_ value: JSONValue, type: String?) -> String {
        switch value {
        case .string(let text) where type != "Spa:String:JSON": text
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        default: value.text(escapingSlashes: false)
        }
    }

    /// A `Route` or `EnumRoute` param, as pw-dump writes SPA_PARAM_Route:
    /// its info a struct of a count then key/value pairs.
    static func route(_ value: JSONValue) -> Graph.Route? {
        guard case .object(let members) = value, let index = members["index"].flatMap(int32),
              case .string(let name)? = members["name"] else { return nil }
        let info = members["info"]?.elements ?? []
        var portType: String?
        var position = 1
        while position + 1 < info.count {
            if info[position].string == "port.type" { portType = info[position + 1].string }
            position += 2
        }
        let available: Graph.Availability = switch members["available"]?.string {
        case "yes": .yes
        case "no": .no
        default: .unknown
        }
        return Graph.Route(index: index, device: members["device"].flatMap(int32) ?? -1,
                           direction: members["direction"]?.string == "Input" ? .input : .output, name: name,
                           description: members["description"]?.string ?? "", available: available, portType: portType,
                           devices: (members["devices"]?.elements ?? []).compactMap(int32))
    }

    static func uint32(_ value: JSONValue) -> UInt32? { if case .number(let text) = value { UInt32(text) } else { nil } }
    static func int32(_ value: JSONValue) -> Int32? { if case .number(let text) = value { Int32(text) } else { nil } }
    static func float(_ value: JSONValue) -> Float? { if case .number(let text) = value { Float(text) } else { nil } }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
