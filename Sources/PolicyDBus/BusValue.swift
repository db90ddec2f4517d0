/// A D-Bus value decoded from a message, whatever its signature: replies and
/// signals are read into these first and interpreted after, so a reply of
/// an unexpected type is a value the caller ignores, never a failed read
/// half-way through a container.
public indirect enum BusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case signature(String)
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    /// A unix fd index as the message carries it; never owned or used.
    case unixFD(Int32)
    case array([BusValue])
    case dictEntry(BusValue, BusValue)
    case structure([BusValue])
    case variant(BusValue)

    /// The value inside any variants.
    public var unwrapped: BusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A string, object path or signature.
    public var string: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value), .signature(let value): value
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// Any unsigned or non-negative integer that fits.
    public var uint32: UInt32? {
        switch unwrapped {
        case .byte(let value): UInt32(value)
        case .uint16(let value): UInt32(value)
        case .uint32(let value): value
        case .uint64(let value): UInt32(exactly: value)
        case .int16(let value): UInt32(exactly: value)
        case .int32(let value): UInt32(exactly: value)
        case .int64(let value): UInt32(exactly: value)
        default: nil
        }
    }

    /// Any integer that fits in an Int64.
    public var int64: Int64? {
        switch unwrapped {
        case .byte(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .uint16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        default: nil
        }
    }

    public var array: [BusValue]? {
        if case .array(let values) = unwrapped { return values }
        return nil
    }

    /// An `a{s…}` as a dictionary (variant values unwrapped); nil for
    /// anything else. A repeated key keeps its last value.
    public var stringDictionary: [String: BusValue]? {
        guard let entries = array else { return nil }
        var result: [String: BusValue] = [:]
        for entry in entries {
            guard case .dictEntry(let key, let value) = entry, let name = key.string else { return nil }
            result[name] = value.unwrapped
        }
        return result
    }

    /// An array of strings; nil when any element is not one.
    public var strings: [String]? {
        guard let values = array else { return nil }
        let strings = values.compactMap(\.string)
        return strings.count == values.count ? strings : nil
    }
}
