/// Writes an `Encodable`'s JSON text as the value encodes itself, with no
/// tree in between: the text `JSONValueEncoder.encode(value).text()` would
/// be (keys sorted by their UTF-8 bytes, nil optionals left out, numbers as
/// JSONEncoder writes them). The journal is written before the gains of every
/// reaction and each stream's status after it; at hundreds of streams the
/// tree took most of both (docs/PERFORMANCE.md, "Limits found"). Writing as
/// it goes, a type's own Codable conformance is its one declaration of its
/// shape: a field added to it is written with no second place to edit.
///
/// Members are written in the order they come. A type whose coding keys are
/// declared in sorted order (a struct whose properties are) is written
/// straight through; an object whose members came out of order (a map
/// keyed by strings, in the map's order) is put in order when it closes.
/// An object closes when its encoding returns, or when its parent writes
/// its next member (a nested container).
enum JSONTextEncoder {
    /// The text, or nil when the value asked for what this writer does not
    /// do (a super encoder) or could not be written (a number JSON cannot
    /// hold, an error the value threw): the tree encoder then writes it, or
    /// says where it failed.
    static func text<T: Encodable>(_ value: T, escapingSlashes: Bool) -> [UInt8]? {
        let writer = JSONTextWriter(escapingSlashes: escapingSlashes)
        do {
            try writer.value(value)
        } catch {
            return nil
        }
        return writer.unsupported ? nil : writer.output
    }

    /// How many of the value's objects had their members put in order:
    /// none, for a type declared in key order.
    static func objectsPutInOrder<T: Encodable>(_ value: T) -> Int {
        let writer = JSONTextWriter(escapingSlashes: true)
        try? writer.value(value)
        return writer.objectsPutInOrder
    }
}

/// The text being written and the containers open in it, innermost last.
final class JSONTextWriter {
    struct Container {
        let isObject: Bool
        /// Where the first member begins (after the bracket).
        let bodyStart: Int
        /// Where this object's members begin in `members`.
        let membersBase: Int
        var count = 0
        var inOrder = true
    }

    /// A member of an open object: its key and where its text begins.
    struct Member {
        let key: String
        let start: Int
        /// The key's first eight bytes, the first one highest: most keys
        /// are told apart by these alone, as one comparison.
        let prefix: UInt64

        init(key: String, start: Int) {
            self.key = key
            self.start = start
            func prefix<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
                var prefix: UInt64 = 0, count = 0
                for byte in bytes.prefix(8) {
                    prefix = prefix << 8 | UInt64(byte)
                    count += 1
                }
                return count == 0 ? 0 : prefix << UInt64(8 * (8 - count))
            }
            self.prefix = key.utf8.withContiguousStorageIfAvailable { prefix($0) } ?? prefix(key.utf8)
        }

        /// Before `other` in the byte order of the keys' UTF-8.
        func precedes(_ other: Member) -> Bool {
            prefix != other.prefix ? prefix < other.prefix : Self.bytesPrecede(key, other.key)
        }

        /// The keys of a map often begin alike (`pid:…`): compared as the
        /// bytes they are, not through the UTF-8 view's iterator.
        private static func bytesPrecede(_ a: String, _ b: String) -> Bool {
            var a = a, b = b
            return a.withUTF8 { x in
                b.withUTF8 { y in
                    for index in 0..<min(x.count, y.count) where x[index] != y[index] {
                        return x[index] < y[index]
                    }
                    return x.count < y.count
                }
            }
        }
    }

    // Only the encoding that made it writes here, one call after another:
    // the runtime's exclusivity checks on every access were a third of the
    // writing (docs/PERFORMANCE.md, "Limits found").
    @exclusivity(unchecked) var output: [UInt8] = []
    let escapingSlashes: Bool
    @exclusivity(unchecked) private(set) var open: [Container] = []
    @exclusivity(unchecked) private var members: [Member] = []
    /// The value asked for what is not written here (a super encoder).
    @exclusivity(unchecked) var unsupported = false
    private(set) var objectsPutInOrder = 0

    init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
        output.reserveCapacity(1024)
    }

    // MARK: values

    /// Any value: scalars directly, anything else through its `encode(to:)`;
    /// what it opened is closed when it returns, and a value that wrote
    /// nothing is an empty object (as JSONEncoder writes it).
    func value<T: Encodable>(_ value: T) throws {
        // The type compared, not cast to: a cast that fails is a search of
        // the runtime's, for every value that is not a scalar.
        if T.self == String.self { return string(unsafeBitCast(value, to: String.self)) }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self)) }
        if T.self == Bool.self { return bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Int.self { return integer(unsafeBitCast(value, to: Int.self)) }
        if T.self == UInt32.self { return integer(unsafeBitCast(value, to: UInt32.self)) }
        if T.self == UInt64.self { return integer(unsafeBitCast(value, to: UInt64.self)) }
        let level = open.count, written = output.count
        try value.encode(to: JSONTextEncoding(writer: self, level: level))
        close(above: level)
        if output.count == written { output.append(contentsOf: "{}".utf8) }
    }

    func string(_ value: String) {
        JSONValue.writeString(value, to: &output, escapingSlashes: escapingSlashes)
    }

    func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) throws {
        guard case .number(let text) = try JSONValueEncoder.number(value, path: nil) else { return }
        output.append(contentsOf: text.utf8)
    }

    func integer<I: BinaryInteger>(_ value: I) {
        output.append(contentsOf: String(value).utf8)
    }

    func bool(_ value: Bool) {
        output.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A super encoder may write nothing, which would leave a key without a
    /// value: the tree encoder writes such a value, and this one a scrap.
    func unsupportedEncoder() -> any Encoder {
        unsupported = true
        return JSONTextEncoding(writer: JSONTextWriter(escapingSlashes: escapingSlashes), level: 0)
    }

    func null() {
        output.append(contentsOf: "null".utf8)
    }

    // MARK: containers

    /// The container at `level`: the one a value's encoder already opened
    /// there (asked for twice), else a new one.
    func container(at level: Int, object: Bool) -> Int {
        close(above: level + 1)
        if open.count == level + 1 { return level }
        output.append(UInt8(ascii: object ? "{" : "["))
        open.append(Container(isObject: object, bodyStart: output.count, membersBase: members.count))
        return level
    }

    /// Starts the next member of the object at `level`: the value follows.
    func member(_ key: String, in level: Int) {
        close(above: level + 1)
        let member = Member(key: key, start: output.count + (open[level].count > 0 ? 1 : 0))
        if open[level].count > 0 {
            output.append(UInt8(ascii: ","))
            if open[level].inOrder, let last = members.last, !last.precedes(member) {
                open[level].inOrder = false
            }
        }
        open[level].count += 1
        members.append(member)
        string(key)
        output.append(UInt8(ascii: ":"))
    }

    /// Starts the next element of the array at `level`.
    func element(in level: Int) {
        close(above: level + 1)
        if open[level].count > 0 { output.append(UInt8(ascii: ",")) }
        open[level].count += 1
    }

    func count(at level: Int) -> Int {
        open.count > level ? open[level].count : 0
    }

    /// Closes the containers from `level` up, putting an object's members
    /// in order when they came out of it.
    func close(above level: Int) {
        while open.count > level {
            let container = open.removeLast()
            if container.isObject {
                if !container.inOrder { sortMembers(of: container) }
                members.removeSubrange(container.membersBase...)
            }
            output.append(UInt8(ascii: container.isObject ? "}" : "]"))
        }
    }

    /// Scratch space of `sortMembers`, kept: a map's objects are put in
    /// order one after another. Plain values, moved by the sort with no
    /// reference counting.
    private struct Span {
        let prefix: UInt64
        let member: Int
        let range: Range<Int>
    }
    @exclusivity(unchecked) private var spans: [Span] = []
    @exclusivity(unchecked) private var sorted: [UInt8] = []

    private func sortMembers(of container: Container) {
        objectsPutInOrder += 1
        let end = output.count
        spans.removeAll(keepingCapacity: true)
        for index in container.membersBase..<members.count {
            // Each member but the last ends before the comma that follows it.
            let memberEnd = index + 1 < members.count ? members[index + 1].start - 1 : end
            spans.append(Span(prefix: members[index].prefix, member: index, range: members[index].start..<memberEnd))
        }
        spans.sort { a, b in
            a.prefix != b.prefix ? a.prefix < b.prefix : members[a.member].precedes(members[b.member])
        }
        sorted.removeAll(keepingCapacity: true)
        for (index, span) in spans.enumerated() {
            if index > 0 { sorted.append(UInt8(ascii: ",")) }
            sorted.append(contentsOf: output[span.range])
        }
        output.replaceSubrange(container.bodyStart..<end, with: sorted)
    }
}

/// The encoder of one value: its containers open at `level`.
struct JSONTextEncoding: Encoder {
    let writer: JSONTextWriter
    let level: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONTextKeyedEncoder<Key>(writer: writer, level: writer.container(at: level, object: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONTextUnkeyedEncoder(writer: writer, level: writer.container(at: level, object: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONTextSingleValueEncoder(writer: writer)
    }
}

struct JSONTextKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONTextWriter
    let level: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { writer.member(key.stringValue, in: level); writer.null() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { writer.member(key.stringValue, in: level); writer.bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { writer.member(key.stringValue, in: level); writer.string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { writer.member(key.stringValue, in: level); try writer.number(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { writer.member(key.stringValue, in: level); try writer.number(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { writer.member(key.stringValue, in: level); writer.integer(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { writer.member(key.stringValue, in: level); writer.integer(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { writer.member(key.stringValue, in: level); writer.integer(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        writer.member(key.stringValue, in: level)
        try writer.value(value)
    }
    // Optionals straight to their writer, not through the protocol's
    // default and back.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writer.member(key.stringValue, in: level)
        return JSONTextEncoding(writer: writer, level: level + 1).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.member(key.stringValue, in: level)
        return JSONTextEncoding(writer: writer, level: level + 1).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { writer.unsupportedEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { writer.unsupportedEncoder() }
}

struct JSONTextUnkeyedEncoder: UnkeyedEncodingContainer {
    let writer: JSONTextWriter
    let level: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { writer.count(at: level) }

    mutating func encodeNil() throws { writer.element(in: level); writer.null() }
    mutating func encode(_ value: Bool) throws { writer.element(in: level); writer.bool(value) }
    mutating func encode(_ value: String) throws { writer.element(in: level); writer.string(value) }
    mutating func encode(_ value: Double) throws { writer.element(in: level); try writer.number(value) }
    mutating func encode(_ value: Int) throws { writer.element(in: level); writer.integer(value) }
    mutating func encode(_ value: UInt32) throws { writer.element(in: level); writer.integer(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        writer.element(in: level)
        try writer.value(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        writer.element(in: level)
        return JSONTextEncoding(writer: writer, level: level + 1).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.element(in: level)
        return JSONTextEncoding(writer: writer, level: level + 1).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { writer.unsupportedEncoder() }
}

struct JSONTextSingleValueEncoder: SingleValueEncodingContainer {
    let writer: JSONTextWriter
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { writer.null() }
    mutating func encode(_ value: Bool) throws { writer.bool(value) }
    mutating func encode(_ value: String) throws { writer.string(value) }
    mutating func encode(_ value: Double) throws { try writer.number(value) }
    mutating func encode(_ value: Float) throws { try writer.number(value) }
    mutating func encode(_ value: Int) throws { writer.integer(value) }
    mutating func encode(_ value: Int8) throws { writer.integer(value) }
    mutating func encode(_ value: Int16) throws { writer.integer(value) }
    mutating func encode(_ value: Int32) throws { writer.integer(value) }
    mutating func encode(_ value: Int64) throws { writer.integer(value) }
    mutating func encode(_ value: UInt) throws { writer.integer(value) }
    mutating func encode(_ value: UInt8) throws { writer.integer(value) }
    mutating func encode(_ value: UInt16) throws { writer.integer(value) }
    mutating func encode(_ value: UInt32) throws { writer.integer(value) }
    mutating func encode(_ value: UInt64) throws { writer.integer(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.value(value) }
}
