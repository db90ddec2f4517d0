/// libspa's tokenizer states as a scanner over bytes, counting lines and
/// columns as it goes.
struct SPAJSONLexer {
    enum Token: Equatable, CustomStringConvertible {
        case open(UInt8)
        case close(UInt8)
        case quoted(String)
        case bare(String)
        case end

        var description: String {
            switch self {
            case .open(let byte), .close(let byte): "'\(Character(Unicode.Scalar(byte)))'"
            case .quoted(let text): "string \"\(text)\""
            case .bare(let text): "'\(text)'"
            case .end: "the end of the file"
            }
        }
    }

    let bytes: [UInt8]
    let file: String
    let dialect: SPAJSONDialect
    /// The first `:` or `=` between the previous token and the latest one:
    /// the parser decides whether one may stand there.
    private(set) var keySeparatorBefore: (UInt8, SourcePosition)?
    private var index = 0
    private var line = 1
    private var column = 1
    private var pushedBack: (token: Token, position: SourcePosition, separator: (UInt8, SourcePosition)?)?

    init(bytes: [UInt8], file: String, dialect: SPAJSONDialect) {
        self.bytes = bytes; self.file = file; self.dialect = dialect
    }

    private var position: SourcePosition { SourcePosition(file: file, line: line, column: column) }

    mutating func pushBack(_ token: Token, at position: SourcePosition) {
        pushedBack = (token, position, keySeparatorBefore)
    }

    mutating func next() throws(ConfigError) -> (Token, SourcePosition) {
        if let token = pushedBack {
            pushedBack = nil
            keySeparatorBefore = token.separator
            return (token.token, token.position)
        }
        keySeparatorBefore = nil
        skipSeparatorsAndComments()
        let start = position
        guard index < bytes.count else { return (.end, start) }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            advance()
            return (.open(bytes[index - 1]), start)
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            advance()
            return (.close(bytes[index - 1]), start)
        case UInt8(ascii: "\""):
            return (.quoted(try quotedString()), start)
        default:
            return (.bare(try bareWord()), start)
        }
    }

    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            // UTF-8 continuation bytes belong to the previous character's column.
            column += 1
        }
    }

    private mutating func skipSeparatorsAndComments() {
        while index < bytes.count {
            switch bytes[index] {
            case 0, UInt8(ascii: "\t"), UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ","):
                advance()
            case UInt8(ascii: ":"), UInt8(ascii: "="):
                if keySeparatorBefore == nil { keySeparatorBefore = (bytes[index], position) }
                advance()
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                    advance()
                }
            default:
                return
            }
        }
    }

    private func endsBareWord(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\t"), UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\n"),
             UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "]"), UInt8(ascii: "}"):
            true
        case 0, UInt8(ascii: "\""), UInt8(ascii: "#"):
            // PipeWire 1.2 ends the word there (a string or a comment starts);
            // 0.3 keeps them in it.
            dialect == .pipeWire1_2
        default:
            false
        }
    }

    private mutating func bareWord() throws(ConfigError) -> String {
        var text: [UInt8] = []
        while index < bytes.count, !endsBareWord(bytes[index]) {
            let byte = bytes[index]
            if dialect == .pipeWire1_2 {
                try refuseInUnquotedWord(byte, after: text)
            }
            if byte == 0 {
                // libspa would keep it and then cut the C string there.
                throw ConfigError(at: position, "NUL byte inside '\(String(decoding: text, as: UTF8.self))'")
            }
            if byte < 0x80 {
                text.append(byte)
                advance()
            } else {
                try appendUTF8Character(to: &text)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// What PipeWire 1.2 and later allow in an unquoted word: printable
    /// ASCII except `\` (0.3 takes any byte and leaves the check to readers).
    private func refuseInUnquotedWord(_ byte: UInt8, after text: [UInt8]) throws(ConfigError) {
        let word = text.isEmpty ? "an unquoted word" : "the unquoted word '\(String(decoding: text, as: UTF8.self))…'"
        switch byte {
        case UInt8(ascii: "\\"):
            throw ConfigError(at: position, "'\\' in \(word): escapes only work in quoted strings (PipeWire 1.2 and later refuse it)")
        case 0x80...:
            throw ConfigError(at: position, "non-ASCII character in \(word): quote the value (PipeWire 1.2 and later refuse it unquoted)")
        case ..<0x20, 0x7F:
            throw ConfigError(at: position, "control character U+\(hex4(UInt32(byte))) in \(word) (PipeWire 1.2 and later refuse it)")
        default:
            return
        }
    }

    private mutating func quotedString() throws(ConfigError) -> String {
        let opening = position
        advance()
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw ConfigError(at: opening, "unterminated string: no closing '\"' before the end of the file")
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try appendEscape(to: &text)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw ConfigError(at: opening, "unterminated string: the line ends before the closing '\"' (write a line break as \\n)")
            case 0x7F where dialect == .pipeWire1_2:
                // JSON allows a raw DEL, and so does libspa from PipeWire 1.2.
                text.append(byte)
                advance()
            case 0..<0x20, 0x7F:
                throw ConfigError(at: position, "control character U+\(hex4(UInt32(byte))) in a string; write it as an escape such as \\u\(hex4(UInt32(byte)))")
            case 0x80...:
                try appendUTF8Character(to: &text)
            default:
                text.append(byte)
                advance()
            }
        }
    }

    private mutating func appendEscape(to text: inout [UInt8]) throws(ConfigError) {
        let escapePosition = position
        advance()
        guard index < bytes.count else {
            throw ConfigError(at: escapePosition, "unterminated string: the file ends inside an escape")
        }
        let byte = bytes[index]
        let simple: UInt8? = switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): UInt8(ascii: "\n")
        case UInt8(ascii: "r"): UInt8(ascii: "\r")
        case UInt8(ascii: "t"): UInt8(ascii: "\t")
        default: nil
        }
        if let simple {
            text.append(simple)
            advance()
            return
        }
        guard byte == UInt8(ascii: "u") else {
            let shown = byte >= 0x20 && byte < 0x7F ? "\\\(Character(Unicode.Scalar(byte)))" : "\\ followed by byte 0x\(String(byte, radix: 16))"
            throw ConfigError(at: escapePosition, "invalid escape '\(shown)' in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
        advance()
        var scalar = try hexQuad(escapeAt: escapePosition)
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw ConfigError(at: escapePosition, "invalid \\u escape: high surrogate \\u\(hex4(scalar)) is not followed by a low surrogate")
            }
            let lowPosition = position
            advance(); advance()
            let low = try hexQuad(escapeAt: lowPosition)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw ConfigError(at: escapePosition, "invalid \\u escape: high surrogate \\u\(hex4(scalar)) is followed by \\u\(hex4(low)), not a low surrogate")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw ConfigError(at: escapePosition, "invalid \\u escape: lone low surrogate \\u\(hex4(scalar))")
        }
        if scalar == 0 {
            throw ConfigError(at: escapePosition, "\\u0000 is not allowed: PipeWire strings end at a NUL")
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw ConfigError(at: escapePosition, "invalid \\u escape")
        }
        text.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    private mutating func hexQuad(escapeAt escapePosition: SourcePosition) throws(ConfigError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexDigit(bytes[index]) else {
                throw ConfigError(at: escapePosition, "invalid \\u escape: expected four hex digits after \\u")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Copies one well-formed UTF-8 character (Unicode's table 3-7: no
    /// overlong forms, surrogates or code points past U+10FFFF).
    private mutating func appendUTF8Character(to text: inout [UInt8]) throws(ConfigError) {
        let start = position
        let lead = bytes[index]
        let (count, secondRange): (Int, ClosedRange<UInt8>) = switch lead {
        case 0xC2...0xDF: (1, 0x80...0xBF)
        case 0xE0: (2, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (2, 0x80...0xBF)
        case 0xED: (2, 0x80...0x9F)
        case 0xF0: (3, 0x90...0xBF)
        case 0xF1...0xF3: (3, 0x80...0xBF)
        case 0xF4: (3, 0x80...0x8F)
        default: (0, 0x80...0xBF)
        }
        guard count > 0, index + count < bytes.count,
              secondRange.contains(bytes[index + 1]),
              bytes[(index + 2)..<(index + 1 + count)].allSatisfy({ (0x80...0xBF).contains($0) })
        else {
            throw ConfigError(at: start, "invalid UTF-8 (byte 0x\(String(lead, radix: 16, uppercase: true)))")
        }
        for _ in 0...count {
            text.append(bytes[index])
            advance()
        }
    }
}

/// Four hex digits, as a `\u` escape writes them.
func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
