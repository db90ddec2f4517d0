/// Reads JSON text (RFC 8259) into a `JSONValue`; throws `JSONParser.Failure`
/// with the byte offset of the first error. Nesting is limited, so hostile
/// metadata values cannot exhaust the stack.
public struct JSONParser {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var offset: Int
        public var reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0

    public static func parse<Bytes: Sequence<UInt8>>(_ text: Bytes) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: Array(text))
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested too deeply") }
        skipWhitespace()
        guard position < bytes.count else { throw failure("unexpected end") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                let key = try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                members[key] = try value(depth: depth + 1)
                skipWhitespace()
                if try endOrComma(UInt8(ascii: "}")) { return .object(members) }
            }
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                if try endOrComma(UInt8(ascii: "]")) { return .array(elements) }
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard position < bytes.count, bytes[position] == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        position += 1
    }

    /// True at the closing bracket, false after a comma. A comma right
    /// before the closing bracket is allowed, as JSONDecoder allows it.
    private mutating func endOrComma(_ close: UInt8) throws(Failure) -> Bool {
        guard position < bytes.count else { throw failure("unexpected end") }
        if bytes[position] == close { position += 1; return true }
        try expect(UInt8(ascii: ","))
        skipWhitespace()
        if position < bytes.count, bytes[position] == close { position += 1; return true }
        return false
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for byte in word.utf8 { try expect(byte) }
    }

    private mutating func number() throws(Failure) -> String {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integer = position
        guard digits() > 0 else { throw failure("expected a value") }
        if bytes[integer] == UInt8(ascii: "0"), position - integer > 1 { throw failure("leading zero") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw failure("expected an exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func string() throws(Failure) -> String {
        position += 1  // the opening quote
        var output: [UInt8] = []
        while true {
            guard position < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw failure("unterminated string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hexQuad()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                              bytes[position + 1] == UInt8(ascii: "u") else { throw failure("unpaired surrogate") }
                        position += 2
                        let low = try hexQuad()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("unpaired surrogate") }
                    output.append(contentsOf: String(Character(unicode)).utf8)
                default: throw failure("unknown escape")
                }
            case ..<0x20: throw failure("control character in a string")
            default: output.append(byte)
            }
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count,
              let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
            throw failure("expected four hex digits")
        }
        position += 4
        return value
    }
}
