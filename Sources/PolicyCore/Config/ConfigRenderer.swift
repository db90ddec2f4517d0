/// Writes a configuration document back out: as SPA-JSON in the style of
/// pw-policy.conf (for `check-config`), or as strict JSON (`--json`).
public enum ConfigRenderer {
    /// SPA-JSON with `key = value`, the top-level braces omitted, and short
    /// objects and arrays of scalars on one line. With `annotatingOrigins`,
    /// each object in an array (an interaction, a rule) is preceded by a
    /// `# file:line` comment naming where it was written, which tells which
    /// fragment contributed what.
    public static func spaJSON(_ document: SPAJSON, annotatingOrigins: Bool = false) -> String {
        var writer = Writer(style: .spa, annotatingOrigins: annotatingOrigins)
        if let members = document.members {
            for member in members {
                writer.member(member, indent: 0)
            }
        } else {
            writer.value(document, indent: 0)
            writer.output += "\n"
        }
        return writer.output
    }

    /// Strict JSON (RFC 8259), indented by two spaces.
    public static func json(_ document: SPAJSON) -> String {
        var writer = Writer(style: .json, annotatingOrigins: false)
        writer.value(document, indent: 0)
        writer.output += "\n"
        return writer.output
    }

    /// A string as SPA-JSON writes it: bare when it would read back as the
    /// same string, quoted otherwise.
    public static func spaString(_ string: String) -> String {
        isSafeBare(string) ? string : quoted(string)
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{8}": result += "\\b"
            case "\u{C}": result += "\\f"
            case "\u{0}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16, uppercase: false)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Conservative: plain words of ASCII letters, digits and
    /// `. - _ / + ~ @ ^ $ | ( ) ? !` that are not keywords or numbers, so the
    /// output reads the same in every SPA-JSON dialect (PipeWire 1.2 refuses
    /// non-ASCII unquoted). Regular expressions (`~…`) are quoted anyway, as
    /// PipeWire's own files write them.
    private static func isSafeBare(_ string: String) -> Bool {
        guard !string.isEmpty, !string.hasPrefix("~"), !["null", "true", "false"].contains(string),
              !SPAJSONParser.isNumber(string[...])
        else { return false }
        return string.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || bareSymbols.contains(scalar))
        }
    }

    private static let bareSymbols = Set("._-/+~@^$|()?!".unicodeScalars)

    /// JSON allows fewer number spellings than SPA-JSON (`+1`, `.5`, `5.`).
    static func jsonNumber(_ number: Double, text: String) -> String {
        if isJSONNumber(text) { return text }
        guard number.isFinite else { return quoted(text) }
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    private static func isJSONNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let whole = bytes
        let integerDigits = digits()
        guard integerDigits > 0, !(integerDigits > 1 && whole.first == UInt8(ascii: "0")) else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}

private struct Writer {
    enum Style { case spa, json }
    let style: Style
    let annotatingOrigins: Bool
    var output = ""

    init(style: Style, annotatingOrigins: Bool) {
        self.style = style; self.annotatingOrigins = annotatingOrigins
    }

    private static let lineWidth = 100

    mutating func member(_ member: SPAJSON.Member, indent: Int) {
        let head = pad(indent) + key(member.key) + assignment
        output += head
        value(member.value, indent: indent, column: head.count)
        output += "\n"
    }

    private var assignment: String { style == .spa ? " = " : ": " }

    /// Writes `value` starting at `column` of a line indented by `indent` levels.
    mutating func value(_ value: SPAJSON, indent: Int, column: Int = 0) {
        // Only the top-level arrays (interactions, rules) get origin comments.
        let annotating = annotatingOrigins && indent == 0
        if let inline = inline(value, annotating: annotating), column + inline.count <= Self.lineWidth {
            output += inline
            return
        }
        switch value.value {
        case .object(let members):
            output += "{\n"
            for (index, member) in members.enumerated() {
                let head = pad(indent + 1) + key(member.key) + assignment
                output += head
                self.value(member.value, indent: indent + 1, column: head.count)
                output += (style == .json && index < members.count - 1 ? ",\n" : "\n")
            }
            output += pad(indent) + "}"
        case .array(let elements):
            output += "[\n"
            for (index, element) in elements.enumerated() {
                if annotating, element.members != nil {
                    output += pad(indent + 1) + "# \(element.position.fileAndLine)\n"
                }
                output += pad(indent + 1)
                self.value(element, indent: indent + 1, column: (indent + 1) * 4)
                output += (style == .json && index < elements.count - 1 ? ",\n" : "\n")
            }
            output += pad(indent) + "]"
        default:
            output += scalar(value)
        }
    }

    /// The value on one line. Objects in an annotated array stay on their
    /// own lines, so each can carry its comment.
    private func inline(_ value: SPAJSON, annotating: Bool = false) -> String? {
        let separator = style == .spa ? " " : ", "
        switch value.value {
        case .object(let members):
            if members.isEmpty { return "{}" }
            var parts: [String] = []
            for member in members {
                guard let inner = inline(member.value) else { return nil }
                parts.append(key(member.key) + assignment + inner)
            }
            return "{ " + parts.joined(separator: separator) + " }"
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            if annotating, elements.contains(where: { $0.members != nil }) { return nil }
            var parts: [String] = []
            for element in elements {
                guard let inner = inline(element) else { return nil }
                parts.append(inner)
            }
            return "[ " + parts.joined(separator: separator) + " ]"
        default:
            return scalar(value)
        }
    }

    private func scalar(_ value: SPAJSON) -> String {
        switch value.value {
        case .string(let string): style == .spa ? ConfigRenderer.spaString(string) : ConfigRenderer.quoted(string)
        case .number(let number, let text): style == .spa ? text : ConfigRenderer.jsonNumber(number, text: text)
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        case .object, .array: ""
        }
    }

    private func key(_ key: String) -> String {
        style == .spa ? ConfigRenderer.spaString(key) : ConfigRenderer.quoted(key)
    }

    private func pad(_ indent: Int) -> String {
        String(repeating: " ", count: indent * 4)
    }
}
