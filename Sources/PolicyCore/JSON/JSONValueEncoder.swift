/// Encodes an `Encodable` value into a `JSONValue`, as Foundation's
/// JSONEncoder would into text (docs/PERFORMANCE.md, "Memory").
public enum JSONValueEncoder {
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = JSONNode()
        try value.encode(to: JSONNodeEncoder(node: root, codingPath: []))
        return root.value
    }

    /// The number as JSONEncoder writes it: "1" for 1.0, "0.25", "1e-07".
    static func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F, codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) is not valid JSON"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }
}

/// What is being built at one place of the document.
final class JSONNode {
    enum Content { case empty, value(JSONValue), object([String: JSONNode]), array([JSONNode]) }
    var content = Content.empty

    var value: JSONValue {
        switch content {
        case .empty: return .object([:])
        case .value(let value): return value
        case .object(let members): return .object(members.mapValues(\.value))
        case .array(let elements): return .array(elements.map(\.value))
        }
    }

    // Both take the collection out of `content` before changing it: while the
    // enum still held it, every insertion copied the whole collection, and a
    // journal of 500 streams took tens of milliseconds to encode
    // (docs/PERFORMANCE.md, "Limits found").
    func member(_ key: String) -> JSONNode {
        var members: [String: JSONNode] = [:]
        if case .object(let existing) = content { members = existing }
        if let node = members[key] { return node }
        content = .empty
        let node = JSONNode()
        members[key] = node
        content = .object(members)
        return node
    }

    func appended() -> JSONNode {
        var elements: [JSONNode] = []
        if case .array(let existing) = content { elements = existing }
        content = .empty
        let node = JSONNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }
}

struct JSONIndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

struct JSONNodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(JSONKeyedEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return JSONUnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncoder(node: node, codingPath: codingPath)
    }
}

/// Encodes one value into `node`: scalars directly, anything else through
/// its `encode(to:)`.
private func encodeValue<T: Encodable>(_ value: T, into node: JSONNode, codingPath: [any CodingKey]) throws {
    switch value {
    case let value as String: node.content = .value(.string(value))
    case let value as Bool: node.content = .value(.bool(value))
    case let value as Double: node.content = .value(try JSONValueEncoder.number(value, codingPath: codingPath))
    case let value as Float: node.content = .value(try JSONValueEncoder.number(value, codingPath: codingPath))
    case let value as Int: node.content = .value(.number(String(value)))
    case let value as UInt32: node.content = .value(.number(String(value)))
    default: try value.encode(to: JSONNodeEncoder(node: node, codingPath: codingPath))
    }
}

struct JSONKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        JSONNodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONNodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        JSONNodeEncoder(node: node.member("super"), codingPath: codingPath + [JSONIndexKey(stringValue: "super")])
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        JSONNodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

struct JSONUnkeyedEncoder: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var nextPath: [any CodingKey] { codingPath + [JSONIndexKey(intValue: count)] }

    mutating func encodeNil() throws { node.appended().content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try encodeValue(value, into: node.appended(), codingPath: path)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return JSONNodeEncoder(node: node.appended(), codingPath: path).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return JSONNodeEncoder(node: node.appended(), codingPath: path).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return JSONNodeEncoder(node: node.appended(), codingPath: path)
    }
}

struct JSONSingleValueEncoder: SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(try JSONValueEncoder.number(value, codingPath: codingPath)) }
    mutating func encode(_ value: Float) throws { node.content = .value(try JSONValueEncoder.number(value, codingPath: codingPath)) }
    mutating func encode(_ value: Int) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .value(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { node.content = .value(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeValue(value, into: node, codingPath: codingPath) }
}
