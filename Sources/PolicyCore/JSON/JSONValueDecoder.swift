/// Decodes a `Decodable` value from JSON text or a `JSONValue`, as
/// Foundation's JSONDecoder would (docs/PERFORMANCE.md, "Memory").
public enum JSONValueDecoder {
    public static func decode<T: Decodable, Bytes: Sequence<UInt8>>(_ type: T.Type, from text: Bytes) throws -> T {
        try decode(type, from: JSONParser.parse(text))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: JSONNodeDecoder(value: value, codingPath: []))
    }
}

struct JSONNodeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(JSONKeyedDecoder<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return JSONUnkeyedDecoder(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueDecoder(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
    DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(value.text())"))
}

/// One scalar of `value`, or a type mismatch.
private func scalar<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws -> T {
    switch value {
    case .string(let text) where type == String.self: return text as! T
    case .bool(let flag) where type == Bool.self: return flag as! T
    case .number(let text):
        if type == Double.self, let number = Double(text) { return number as! T }
        if type == Float.self, let number = Float(text) { return number as! T }
        if let number = integer(type, text) { return number }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number \(text) does not fit in \(type)"))
    default: break
    }
    throw mismatch(type, value, codingPath)
}

/// An integer written as "5" or, as JSONDecoder allows, "5.0" or "5e0".
private func integer<T>(_ type: T.Type, _ text: String) -> T? {
    func exact<I: FixedWidthInteger>(_: I.Type) -> I? {
        if let value = I(text) { return value }
        guard let number = Double(text), number.rounded() == number else { return nil }
        return I(exactly: number)
    }
    switch type {
    case is Int.Type: return exact(Int.self) as? T
    case is Int8.Type: return exact(Int8.self) as? T
    case is Int16.Type: return exact(Int16.self) as? T
    case is Int32.Type: return exact(Int32.self) as? T
    case is Int64.Type: return exact(Int64.self) as? T
    case is UInt.Type: return exact(UInt.self) as? T
    case is UInt8.Type: return exact(UInt8.self) as? T
    case is UInt16.Type: return exact(UInt16.self) as? T
    case is UInt32.Type: return exact(UInt32.self) as? T
    case is UInt64.Type: return exact(UInt64.self) as? T
    default: return nil
    }
}

private func decodeValue<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws -> T {
    if type == String.self || type == Bool.self || type == Double.self || type == Int.self || type == UInt32.self {
        return try scalar(type, value, codingPath)
    }
    return try T(from: JSONNodeDecoder(value: value, codingPath: codingPath))
}

struct JSONKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for key \"\(key.stringValue)\""))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, member(key), codingPath + [key]) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeValue(type, member(key), codingPath + [key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONNodeDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONNodeDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
        JSONNodeDecoder(value: members["super"] ?? .null, codingPath: codingPath + [JSONIndexKey(stringValue: "super")])
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONNodeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

struct JSONUnkeyedDecoder: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements; self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [JSONIndexKey(intValue: currentIndex)],
                                                          debugDescription: "unkeyed container is at end"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [JSONIndexKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        return try decodeValue(type, value, path)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: JSONValue].self)
        return try JSONNodeDecoder(value: value, codingPath: path).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([JSONValue].self)
        return try JSONNodeDecoder(value: value, codingPath: path).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(JSONValue.self)
        return JSONNodeDecoder(value: value, codingPath: path)
    }
}

struct JSONSingleValueDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try scalar(type, value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try scalar(type, value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(type, value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(type, value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type, value, codingPath) }
}
