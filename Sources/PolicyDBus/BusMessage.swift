import CSystemd
import Glibc

/// Reading and building sd-bus messages with the non-variadic calls
/// (docs/PLAYERS.md, "sd-bus").
enum BusMessage {
    /// The whole remaining body of `message` as values.
    static func readBody(_ message: OpaquePointer) throws(BusReadError) -> [BusValue] {
        try readAll(message, depth: 0)
    }

    private static func readAll(_ message: OpaquePointer, depth: Int) throws(BusReadError) -> [BusValue] {
        // D-Bus itself limits nesting to 64; a deeper message is not ours to read.
        guard depth < 70 else { throw BusReadError(code: -ELOOP) }
        var values: [BusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            let result = sd_bus_message_peek_type(message, &type, &contents)
            if result < 0 { throw BusReadError(code: result) }
            if result == 0 { return values }
            values.append(try readOne(message, type: type, contents: contents, depth: depth))
        }
    }

    private static func readOne(_ message: OpaquePointer, type: CChar, contents: UnsafePointer<CChar>?,
                                depth: Int) throws(BusReadError) -> BusValue {
        func basic<T>(_ initial: T) throws(BusReadError) -> T {
            var value = initial
            let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) }
            if result < 0 { throw BusReadError(code: result) }
            return value
        }
        func string() throws(BusReadError) -> String {
            let pointer: UnsafePointer<CChar>? = try basic(nil)
            return pointer.map { String(cString: $0) } ?? ""
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "s"): return .string(try string())
        case UInt8(ascii: "o"): return .objectPath(try string())
        case UInt8(ascii: "g"): return .signature(try string())
        // sd-bus reads a boolean into an int.
        case UInt8(ascii: "b"): return .bool(try basic(Int32(0)) != 0)
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "h"): return .unixFD(try basic(Int32(-1)))
        case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            let entered = sd_bus_message_enter_container(message, type, contents)
            if entered < 0 { throw BusReadError(code: entered) }
            let inner = try readAll(message, depth: depth + 1)
            let exited = sd_bus_message_exit_container(message)
            if exited < 0 { throw BusReadError(code: exited) }
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "a"): return .array(inner)
            case UInt8(ascii: "v"):
                guard inner.count == 1 else { throw BusReadError(code: -EBADMSG) }
                return .variant(inner[0])
            case UInt8(ascii: "e"):
                guard inner.count == 2 else { throw BusReadError(code: -EBADMSG) }
                return .dictEntry(inner[0], inner[1])
            default: return .structure(inner)
            }
        default:
            throw BusReadError(code: -EBADMSG)
        }
    }

    /// A new method call with these arguments.
    static func methodCall(bus: OpaquePointer, destination: String, path: String, interface: String,
                           member: String, values: [BusOut]) throws(BusReadError) -> OpaquePointer {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw BusReadError(code: result) }
        for value in values {
            result = value.append(to: message)
            if result < 0 {
                sd_bus_message_unref(message)
                throw BusReadError(code: result)
            }
        }
        return message
    }
}

/// An sd-bus call that failed, with its negative errno.
struct BusReadError: Error, CustomStringConvertible {
    var code: Int32
    var description: String { errnoText(code) }
}
