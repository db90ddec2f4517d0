/// A JSON document as a value: what the agent's own coder (JSONValueEncoder,
/// JSONValueDecoder) builds and reads. The agent publishes and persists
/// JSON without Foundation, which it does not load (docs/PERFORMANCE.md,
/// "Memory"); the text is the one Foundation's JSONEncoder writes with
/// `.sortedKeys`, so either side reads the other's.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number as written: integers exactly, floating point as Swift's
    /// shortest round-trip `description` without a trailing ".0".
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Compact text, keys sorted by their UTF-8 bytes; "/" written as "\/"
    /// unless `escapingSlashes` is false (JSONEncoder's
    /// `.withoutEscapingSlashes`).
    public func text(escapingSlashes: Bool = true) -> String {
        var output: [UInt8] = []
        write(to: &output, escapingSlashes: escapingSlashes)
        return String(decoding: output, as: UTF8.self)
    }

    func write(to output: inout [UInt8], escapingSlashes: Bool) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): Self.writeString(text, to: &output, escapingSlashes: escapingSlashes)
        case .array(let elements):
            Self.writeArray(elements, to: &output) { $0.write(to: &$1, escapingSlashes: escapingSlashes) }
        case .object(let members):
            Self.writeObject(members, to: &output, escapingSlashes: escapingSlashes) {
                $0.write(to: &$1, escapingSlashes: escapingSlashes)
            }
        }
    }

    /// `[a,b]`, each element written by `element`.
    static func writeArray<Element>(_ elements: [Element], to output: inout [UInt8],
                                    element: (Element, inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "["))
        for (index, value) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            element(value, &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// `{"a":…}` with the keys sorted by their UTF-8 bytes, each value
    /// written by `value`.
    static func writeObject<Value>(_ members: [String: Value], to output: inout [UInt8], escapingSlashes: Bool,
                                   value: (Value, inout [UInt8]) -> Void) {
        writeObject(members, name: { $0 }, to: &output, escapingSlashes: escapingSlashes, value: value)
    }

    /// The same for a map whose keys are named by `name`.
    static func writeObject<Key, Value>(_ members: [Key: Value], name: (Key) -> String, to output: inout [UInt8],
                                        escapingSlashes: Bool, value: (Value, inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "{"))
        for (index, key) in members.keys.sortedByUTF8(name: name).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            writeString(name(key), to: &output, escapingSlashes: escapingSlashes)
            output.append(UInt8(ascii: ":"))
            value(members[key]!, &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    static func writeString(_ text: String, to output: inout [UInt8], escapingSlashes: Bool) {
        // The runs that need no escape are copied whole: this writes every
        // key and string of the journal and of the statuses, before and after
        // the gains of every reaction (docs/PERFORMANCE.md, "Limits found").
        func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10 }
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var plain = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                        || (escapingSlashes && byte == UInt8(ascii: "/")) else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plain..<index]))
                plain = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "/"): output.append(contentsOf: #"\/"#.utf8)
                case 0x08: output.append(contentsOf: #"\b"#.utf8)
                case 0x0C: output.append(contentsOf: #"\f"#.utf8)
                case 0x0A: output.append(contentsOf: #"\n"#.utf8)
                case 0x0D: output.append(contentsOf: #"\r"#.utf8)
                case 0x09: output.append(contentsOf: #"\t"#.utf8)
                default: output.append(contentsOf: #"\u00"#.utf8 + [hexDigit(byte >> 4), hexDigit(byte & 0xF)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plain...]))
        }
        output.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    // What a reader of a document it did not write (a pw-dump) asks of a value.
    var members: [String: JSONValue]? { if case .object(let members) = self { members } else { nil } }
    var elements: [JSONValue]? { if case .array(let elements) = self { elements } else { nil } }
    var string: String? { if case .string(let text) = self { text } else { nil } }
    var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }
}
