import CSystemd

/// A value to write into a message: what the exported proxy answers and
/// signals (docs/PLAYERS.md, "Media keys"). Unlike `BusValue`, an array
/// carries its element signature, so an empty `as` is still typed.
indirect enum BusOut: Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int64(Int64)
    case uint32(UInt32)
    case double(Double)
    case variant(BusOut)
    /// The element signature, then the elements.
    case array(String, [BusOut])
    case dictEntry(BusOut, BusOut)

    /// `a{sv}` from names and values (each wrapped in a variant), sorted by name.
    static func propertyDictionary(_ properties: [String: BusOut]) -> BusOut {
        .array("{sv}", properties.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .int64: "x"
        case .uint32: "u"
        case .double: "d"
        case .variant: "v"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        }
    }

    /// Appends this value to `message`; a negative errno on failure.
    func append(to message: OpaquePointer) -> Int32 {
        func basic<T>(_ type: UInt8, _ value: T) -> Int32 {
            var value = value
            return withUnsafePointer(to: &value) { sd_bus_message_append_basic(message, CChar(type), $0) }
        }
        func container(_ type: UInt8, _ contents: String, _ items: [BusOut]) -> Int32 {
            var result = sd_bus_message_open_container(message, CChar(type), contents)
            if result < 0 { return result }
            for item in items {
                result = item.append(to: message)
                if result < 0 { return result }
            }
            return sd_bus_message_close_container(message)
        }
        switch self {
        // For string types append_basic takes the string itself.
        case .string(let text): return text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        case .objectPath(let path): return path.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) }
        // sd-bus takes a boolean as an int.
        case .bool(let value): return basic(UInt8(ascii: "b"), Int32(value ? 1 : 0))
        case .int64(let value): return basic(UInt8(ascii: "x"), value)
        case .uint32(let value): return basic(UInt8(ascii: "u"), value)
        case .double(let value): return basic(UInt8(ascii: "d"), value)
        case .variant(let inner): return container(UInt8(ascii: "v"), inner.signature, [inner])
        case .array(let element, let items): return container(UInt8(ascii: "a"), element, items)
        case .dictEntry(let key, let value):
            return container(UInt8(ascii: "e"), key.signature + value.signature, [key, value])
        }
    }

    /// Whether `text` is a valid D-Bus object path.
    static func isObjectPath(_ text: String) -> Bool {
        guard text.hasPrefix("/") else { return false }
        if text == "/" { return true }
        guard !text.hasSuffix("/"), !text.containsText("//") else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "/")
        }
    }
}
