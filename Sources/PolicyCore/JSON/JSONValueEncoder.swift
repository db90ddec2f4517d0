/// Encodes an `Encodable` value into a `JSONValue`, as Foundation's
/// JSONEncoder would into text (docs/PERFORMANCE.md, "Memory").
public enum JSONValueEncoder {
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try tree(value).value
    }

    /// The text JSONValue.text writes for `encode(value)`, written as the
    /// value encodes itself (JSONTextEncoder); through the tree when that
    /// cannot, which also says where an encoding failed.
    public static func text<T: Encodable>(_ value: T, escapingSlashes: Bool = true) throws -> [UInt8] {
        if let text = JSONTextEncoder.text(value, escapingSlashes: escapingSlashes) { return text }
        var output: [UInt8] = []
        try tree(value).write(to: &output, escapingSlashes: escapingSlashes)
        return output
    }

    private static func tree<T: Encodable>(_ value: T) throws -> JSONNode {
        let root = JSONNode()
        try value.encode(to: JSONNodeEncoder(node: root, path: nil))
        return root
    }

    /// The number as JSONEncoder writes it: "1" for 1.0, "0.25", "1e-07".
    static func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F, path: CodingPathNode?) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path.codingPath, debugDescription: "\(value) is not valid JSON"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }
}

/// Where a value is in the document, built only when an error names it:
/// a new array per value encoded cost more than the value.
final class CodingPathNode {
    let parent: CodingPathNode?
    let key: any CodingKey
    init(_ key: any CodingKey, parent: CodingPathNode?) { self.key = key; self.parent = parent }
}

extension Optional where Wrapped == CodingPathNode {
    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    func appending(_ key: any CodingKey) -> CodingPathNode { CodingPathNode(key, parent: self) }
}

/// What is being built at one place of the document. Members and elements
/// are kept in place (an enum payload would be copied on every insertion).
final class JSONNode {
    enum Kind { case empty, value, object, array }
    var kind = Kind.empty
    var scalar = JSONValue.null
    var members: [String: JSONNode] = [:]
    var elements: [JSONNode] = []

    func set(_ value: JSONValue) {
        kind = .value
        scalar = value
    }

    var value: JSONValue {
        switch kind {
        case .empty: return .object([:])
        case .value: return scalar
        case .object: return .object(members.mapValues(\.value))
        case .array: return .array(elements.map(\.value))
        }
    }

    /// As `value.write(to:escapingSlashes:)` would.
    func write(to output: inout [UInt8], escapingSlashes: Bool) {
        switch kind {
        case .empty: output.append(contentsOf: "{}".utf8)
        case .value: scalar.write(to: &output, escapingSlashes: escapingSlashes)
        case .object:
            JSONValue.writeObject(members, to: &output, escapingSlashes: escapingSlashes) {
                $0.write(to: &$1, escapingSlashes: escapingSlashes)
            }
        case .array:
            JSONValue.writeArray(elements, to: &output) { $0.write(to: &$1, escapingSlashes: escapingSlashes) }
        }
    }

    func becomeObject() {
        if kind != .object { kind = .object; members = [:] }
    }

    func becomeArray() {
        if kind != .array { kind = .array; elements = [] }
    }

    func member(_ key: String) -> JSONNode {
        becomeObject()
        if let node = members[key] { return node }
        let node = JSONNode()
        members[key] = node
        return node
    }

    func appended() -> JSONNode {
        becomeArray()
        let node = JSONNode()
        elements.append(node)
        return node
    }

    var count: Int { kind == .array ? elements.count : 0 }
}

struct JSONIndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

struct JSONNodeEncoder: Encoder {
    let node: JSONNode
    let path: CodingPathNode?
    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(JSONKeyedEncoder<Key>(node: node, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return JSONUnkeyedEncoder(node: node, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncoder(node: node, path: path)
    }
}

/// Encodes one value into `node`: scalars directly, anything else through
/// its `encode(to:)`.
private func encodeValue<T: Encodable>(_ value: T, into node: JSONNode, path: CodingPathNode?) throws {
    switch value {
    case let value as Double: node.set(try JSONValueEncoder.number(value, path: path))
    case let value as Bool: node.set(.bool(value))
    case let value as String: node.set(.string(value))
    case let value as Float: node.set(try JSONValueEncoder.number(value, path: path))
    case let value as Int: node.set(.number(String(value)))
    case let value as UInt32: node.set(.number(String(value)))
    case let value as UInt64: node.set(.number(String(value)))
    default: try value.encode(to: JSONNodeEncoder(node: node, path: path))
    }
}

struct JSONKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let path: CodingPathNode?
    var codingPath: [any CodingKey] { path.codingPath }

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, into: node.member(key.stringValue), path: path.appending(key))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        JSONNodeEncoder(node: node.member(key.stringValue), path: path.appending(key)).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONNodeEncoder(node: node.member(key.stringValue), path: path.appending(key)).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        JSONNodeEncoder(node: node.member("super"), path: path.appending(JSONIndexKey(stringValue: "super")))
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        JSONNodeEncoder(node: node.member(key.stringValue), path: path.appending(key))
    }
}

struct JSONUnkeyedEncoder: UnkeyedEncodingContainer {
    let node: JSONNode
    let path: CodingPathNode?
    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int { node.count }

    private var nextPath: CodingPathNode { path.appending(JSONIndexKey(intValue: count)) }

    mutating func encodeNil() throws { node.appended().set(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try encodeValue(value, into: node.appended(), path: path)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return JSONNodeEncoder(node: node.appended(), path: path).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return JSONNodeEncoder(node: node.appended(), path: path).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return JSONNodeEncoder(node: node.appended(), path: path)
    }
}

struct JSONSingleValueEncoder: SingleValueEncodingContainer {
    let node: JSONNode
    let path: CodingPathNode?
    var codingPath: [any CodingKey] { path.codingPath }

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try JSONValueEncoder.number(value, path: path)) }
    mutating func encode(_ value: Float) throws { node.set(try JSONValueEncoder.number(value, path: path)) }
    mutating func encode(_ value: Int) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { node.set(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeValue(value, into: node, path: path) }
}
