/// One write to a metadata object, named as the daemon knows it
/// (`pw-policy`, the agent's own, or WirePlumber's `default`): what the
/// agent publishes and what the CLI requests.
public struct MetadataWrite: Sendable, Equatable, CustomStringConvertible {
    public var metadata: String
    public var subject: UInt32
    public var key: String
    public var type: String?
    /// nil removes the key.
    public var value: String?

    public init(metadata: String = AgentProtocol.metadataName, subject: UInt32, key: String, type: String?, value: String?) {
        self.metadata = metadata; self.subject = subject; self.key = key; self.type = type; self.value = value
    }

    public var description: String {
        "\(subject) \(key) = \(value.map { "'\($0)'" } ?? "(removed)")"
    }

    /// WirePlumber's request to move a stream to the node of `serial`
    /// (nil removes it): `target.object` in the default metadata.
    public static func targetObject(of stream: UInt32, serial: UInt64?) -> MetadataWrite {
        MetadataWrite(metadata: "default", subject: stream, key: "target.object", type: serial == nil ? nil : "Spa:Id",
                      value: serial.map(String.init))
    }

    /// A key of the agent's own metadata (docs/PROTOCOL.md); a nil value removes it.
    public static func agent(subject: UInt32, _ key: String, _ value: String?) -> MetadataWrite {
        MetadataWrite(metadata: AgentProtocol.metadataName, subject: subject, key: key,
                      type: value == nil ? nil : AgentProtocol.jsonType, value: value)
    }
}
