/// Parses PipeWire's relaxed JSON (SPA-JSON) as libspa's `spa/utils/json.h`
/// tokenizes it, so a file means here what it means to PipeWire:
///
/// * `,` separates like whitespace, and so do `:` and `=` (in the
///   `pipeWire1_2` dialect only between a key and its value);
/// * a `#` where a token may start comments out the rest of the line;
/// * an unquoted token runs until whitespace or one of `: , = ] }` (and, in
///   the `pipeWire1_2` dialect, `"`, `#` or NUL), and is `null`, `true`,
///   `false`, a number (only `+-0123456789.Ee` characters and a complete
///   float) or else a string;
/// * quoted strings take JSON escapes and no raw control characters.
///
/// The rules that changed between PipeWire releases follow the dialect given
/// (`SPAJSONDialect`). Where libspa silently accepts a mistake — an unclosed
/// string or bracket at the end of the file, `]` closing a `{`, text after
/// the top-level object, `\u` escapes that are not four hex digits, invalid
/// UTF-8 — this parser reports it with its line and column instead, in both
/// dialects (see SPAJSONCrossCheckTests).
public enum SPAJSONParser {
    /// Deeper nesting is refused rather than risking the stack on hostile input.
    public static let maximumDepth = 128

    /// A configuration file: a top-level object, written with or without its
    /// braces (PipeWire's files usually omit them).
    public static func parseDocument(_ text: String, file: String,
                                     dialect: SPAJSONDialect = .default) throws(ConfigError) -> SPAJSON {
        try parseDocument(bytes: Array(text.utf8), file: file, dialect: dialect)
    }

    public static func parseDocument(bytes: [UInt8], file: String,
                                     dialect: SPAJSONDialect = .default) throws(ConfigError) -> SPAJSON {
        var parser = Parser(lexer: SPAJSONLexer(bytes: bytes, file: file, dialect: dialect))
        return try parser.document()
    }

    /// Exactly one value (an object, array or scalar) and nothing after it.
    public static func parseValue(_ text: String, file: String = "<input>",
                                  dialect: SPAJSONDialect = .default) throws(ConfigError) -> SPAJSON {
        try parseValue(bytes: Array(text.utf8), file: file, dialect: dialect)
    }

    public static func parseValue(bytes: [UInt8], file: String = "<input>",
                                  dialect: SPAJSONDialect = .default) throws(ConfigError) -> SPAJSON {
        var parser = Parser(lexer: SPAJSONLexer(bytes: bytes, file: file, dialect: dialect))
        return try parser.singleValue()
    }

    /// Whether an unquoted token is a number, by libspa's `spa_json_is_float`
    /// rule: only these characters, and all of them form one float.
    static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(numberCharacters.contains) && Double(text) != nil
    }

    private static let numberCharacters = Set("+-0123456789.Ee".utf8)
}

private struct Parser {
    var lexer: SPAJSONLexer

    mutating func document() throws(ConfigError) -> SPAJSON {
        let (token, position) = try lexer.next()
        if case .open(UInt8(ascii: "{")) = token {
            try refuseKeySeparator(before: token)
            let object = try objectBody(openedAt: position, depth: 1)
            try expectEnd(after: "the top-level object")
            return object
        }
        // No braces: the members run to the end of the file.
        lexer.pushBack(token, at: position)
        let start = SourcePosition(file: lexer.file, line: 1, column: 1)
        return SPAJSON(.object(try members(closer: nil, openedAt: start, depth: 1)), at: start)
    }

    mutating func singleValue() throws(ConfigError) -> SPAJSON {
        let (token, position) = try lexer.next()
        try refuseKeySeparator(before: token)
        if case .end = token { throw ConfigError(at: position, "expected a value, found the end of the input") }
        let value = try self.value(token, at: position, depth: 0)
        try expectEnd(after: "the value")
        return value
    }

    private mutating func expectEnd(after what: String) throws(ConfigError) {
        let (token, position) = try lexer.next()
        try refuseKeySeparator(before: token)
        if case .end = token { return }
        throw ConfigError(at: position, "unexpected \(token.description) after \(what)")
    }

    private mutating func value(_ token: SPAJSONLexer.Token, at position: SourcePosition, depth: Int) throws(ConfigError) -> SPAJSON {
        switch token {
        case .open(let bracket):
            guard depth < SPAJSONParser.maximumDepth else {
                throw ConfigError(at: position, "nesting deeper than \(SPAJSONParser.maximumDepth) levels")
            }
            return bracket == UInt8(ascii: "{")
                ? try objectBody(openedAt: position, depth: depth + 1)
                : try arrayBody(openedAt: position, depth: depth + 1)
        case .quoted(let string):
            return SPAJSON(.string(string), at: position)
        case .bare(let text):
            return SPAJSON(Self.scalar(text), at: position)
        case .close, .end:
            // Callers handle closers and the end before asking for a value.
            throw ConfigError(at: position, "expected a value, found \(token.description)")
        }
    }

    private static func scalar(_ text: String) -> SPAJSON.Value {
        switch text {
        case "null": .null
        case "true": .bool(true)
        case "false": .bool(false)
        default:
            if SPAJSONParser.isNumber(text[...]), let number = Double(text) {
                .number(number, text: text)
            } else {
                .string(text)
            }
        }
    }

    private mutating func objectBody(openedAt opening: SourcePosition, depth: Int) throws(ConfigError) -> SPAJSON {
        SPAJSON(.object(try members(closer: UInt8(ascii: "}"), openedAt: opening, depth: depth)), at: opening)
    }

    /// Members until `closer`, or until the end of the input when closer is nil.
    private mutating func members(closer: UInt8?, openedAt opening: SourcePosition, depth: Int) throws(ConfigError) -> [SPAJSON.Member] {
        var members: [SPAJSON.Member] = []
        while true {
            let (token, position) = try lexer.next()
            try refuseKeySeparator(before: token)
            let key: String
            switch token {
            case .end:
                if closer == nil { return members }
                throw ConfigError(at: opening, "unclosed '{': no matching '}' before the end of the file")
            case .close(let bracket):
                if bracket == closer { return members }
                if let closer {
                    throw ConfigError(at: position, "expected '\(Character(Unicode.Scalar(closer)))' to close the object opened at \(opening.line):\(opening.column), found '\(Character(Unicode.Scalar(bracket)))'")
                }
                throw ConfigError(at: position, "unexpected '\(Character(Unicode.Scalar(bracket)))' with no matching opening bracket")
            case .open:
                throw ConfigError(at: position, "expected a key, found \(token.description)")
            case .quoted(let text), .bare(let text):
                key = text
            }
            let (valueToken, valuePosition) = try lexer.next()
            switch valueToken {
            case .end, .close:
                throw ConfigError(at: position, "key '\(key)' has no value")
            default:
                let value = try self.value(valueToken, at: valuePosition, depth: depth)
                members.append(SPAJSON.Member(key: key, keyPosition: position, value: value))
            }
        }
    }

    /// `:` and `=` where no key is waiting for its value: whitespace to
    /// PipeWire up to 1.0, an error from 1.2 on (the tokenizer pairs keys
    /// with values). Checked before every token except a value after a key.
    private func refuseKeySeparator(before token: SPAJSONLexer.Token) throws(ConfigError) {
        guard lexer.dialect == .pipeWire1_2, let (separator, at) = lexer.keySeparatorBefore else { return }
        let shown = Character(Unicode.Scalar(separator))
        throw ConfigError(at: at, "'\(shown)' before \(token.description) is not between a key and its value (PipeWire 1.2 and later refuse it)")
    }

    private mutating func arrayBody(openedAt opening: SourcePosition, depth: Int) throws(ConfigError) -> SPAJSON {
        var elements: [SPAJSON] = []
        while true {
            let (token, position) = try lexer.next()
            if lexer.dialect == .pipeWire1_2, let (separator, at) = lexer.keySeparatorBefore {
                throw ConfigError(at: at, "'\(Character(Unicode.Scalar(separator)))' in an array: separate elements with spaces or ',' (PipeWire 1.2 and later refuse it)")
            }
            switch token {
            case .end:
                throw ConfigError(at: opening, "unclosed '[': no matching ']' before the end of the file")
            case .close(UInt8(ascii: "]")):
                return SPAJSON(.array(elements), at: opening)
            case .close:
                throw ConfigError(at: position, "expected ']' to close the array opened at \(opening.line):\(opening.column), found '}'")
            default:
                elements.append(try value(token, at: position, depth: depth))
            }
        }
    }
}
