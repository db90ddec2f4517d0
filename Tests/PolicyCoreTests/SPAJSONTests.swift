import Testing
@testable import PolicyCore

@Suite struct SPAJSONTests {
    private func parse(_ text: String) throws -> SPAJSON {
        try SPAJSONParser.parseDocument(text, file: "test.conf")
    }

    private func parseError(_ text: String) -> ConfigError? {
        do {
            _ = try SPAJSONParser.parseDocument(text, file: "test.conf")
            return nil
        } catch {
            return error
        }
    }

    @Test func topLevelObjectWithoutBracesAndAllSeparators() throws {
        let document = try parse("""
            # PipeWire style
            a = 1
            b: "two", c = [ x, y z ]
            d = { e = true f: null }
            """)
        #expect(document.members?.map(\.key) == ["a", "b", "c", "d"])
        #expect(document["a"]?.number == 1)
        #expect(document["b"]?.string == "two")
        #expect(document["c"]?.elements?.compactMap(\.string) == ["x", "y", "z"])
        #expect(document["d"]?["e"]?.bool == true)
        #expect(document["d"]?["f"]?.isNull == true)
    }

    @Test func bracedTopLevelObjectAndStrictJSON() throws {
        let document = try parse(#"{ "name": "pw", "list": [1, 2.5, -3e2], "nested": { "ok": false } }"#)
        #expect(document["name"]?.string == "pw")
        #expect(document["list"]?.elements?.compactMap(\.number) == [1, 2.5, -300])
        #expect(document["nested"]?["ok"]?.bool == false)
    }

    @Test func keysKeepSourceOrderAndRepetitions() throws {
        let document = try parse("z = 1 a = 2 m = 3 a = 4")
        #expect(document.members?.map(\.key) == ["z", "a", "m", "a"])
        // Lookup takes the later repetition, as PipeWire's property lists do.
        #expect(document["a"]?.number == 4)
    }

    @Test func separatorsAreWhitespaceAsInLibspa() throws {
        let document = try parse("pair = { a b c d } list = [ 1 = 2 : 3 ] odd = ,,x,,")
        #expect(document["pair"]?["a"]?.string == "b")
        #expect(document["pair"]?["c"]?.string == "d")
        #expect(document["list"]?.elements?.compactMap(\.number) == [1, 2, 3])
        #expect(document["odd"]?.string == "x")
    }

    @Test(arguments: [
        ("0", 0.0), ("-1", -1), ("+2", 2), ("1.5", 1.5), (".5", 0.5), ("5.", 5), ("1e3", 1000),
        ("1E-2", 0.01), ("00012", 12), ("0.20", 0.2),
    ])
    func numbersKeepTheirText(text: String, value: Double) throws {
        let parsed = try SPAJSONParser.parseValue(text)
        #expect(parsed.value == .number(value, text: text))
        #expect(parsed.scalarText == text)
    }

    @Test(arguments: ["1e", "1.2.3", "0x10", "inf", "nan", "-", "+", ".", "e", "1-2", "12ab"])
    func numberLookalikesAreStrings(text: String) throws {
        #expect(try SPAJSONParser.parseValue(text).value == .string(text))
    }

    @Test func keywordsOnlyWhenUnquoted() throws {
        let document = try parse(#"a = null b = true c = false d = "null" e = "true" f = nulls"#)
        #expect(document["a"]?.value == .null)
        #expect(document["b"]?.value == .bool(true))
        #expect(document["c"]?.value == .bool(false))
        #expect(document["d"]?.value == .string("null"))
        #expect(document["e"]?.value == .string("true"))
        #expect(document["f"]?.value == .string("nulls"))
    }

    @Test func bareWordsRunUntilASeparator() throws {
        let document = try parse(#"role = ~^(Music|Movie)$ app = org.gnome.Music-2 hash = x#y brace = x{y quote = x"y""#)
        #expect(document["role"]?.string == "~^(Music|Movie)$")
        #expect(document["app"]?.string == "org.gnome.Music-2")
        // '#' only starts a comment where a token could start.
        #expect(document["hash"]?.string == "x#y")
        #expect(document["brace"]?.string == "x{y")
        #expect(document["quote"]?.string == #"x"y""#)
    }

    @Test func commentsEndAtLineBreaks() throws {
        let document = try parse("# one\r\na = 1 # two\rb = 2\n# three")
        #expect(document.members?.map(\.key) == ["a", "b"])
        #expect(try parse(##"a = "# not a comment""##)["a"]?.string == "# not a comment")
    }

    @Test func escapes() throws {
        let document = try parse(#"a = "q\"b\\s\/ n\nt\tr\rb\bf\f" u = "\u00e9\u20AC" pair = "\ud83d\ude00""#)
        #expect(document["a"]?.string == "q\"b\\s/ n\nt\tr\rb\u{8}f\u{C}")
        #expect(document["u"]?.string == "é€")
        #expect(document["pair"]?.string == "😀")
    }

    @Test func rawUTF8InStringsAndBareWords() throws {
        let document = try parse("a = \"é€😀\" b = música")
        #expect(document["a"]?.string == "é€😀")
        #expect(document["b"]?.string == "música")
    }

    @Test func emptyInputs() throws {
        for text in ["", "   \n", "# only a comment", "{}", "{ }", ",,,"] {
            #expect(try parse(text).members?.isEmpty == true, "input \(text.debugDescription)")
        }
    }

    @Test func positionsCountLinesAndCharacters() throws {
        let document = try parse("""
            first = 1
              "é" = [ x
                { y = "z" } ]
            """)
        let members = try #require(document.members)
        #expect(members[0].keyPosition == SourcePosition(file: "test.conf", line: 1, column: 1))
        #expect(members[0].value.position == SourcePosition(file: "test.conf", line: 1, column: 9))
        #expect(members[1].keyPosition == SourcePosition(file: "test.conf", line: 2, column: 3))
        // "é" is two bytes but one column.
        #expect(members[1].value.position.column == 9)
        let inner = try #require(members[1].value.elements?[1])
        #expect(inner.position == SourcePosition(file: "test.conf", line: 3, column: 5))
        #expect(inner["y"]?.position == SourcePosition(file: "test.conf", line: 3, column: 11))
    }

    @Test func sameContentIgnoresPositions() throws {
        let a = try parse("a = { b = [ 1 2 ] }")
        let b = try parse("\n\n  a: {\n b: [1, 2.0]}")
        #expect(a != b)
        #expect(a.hasSameContent(as: b))
        #expect(!a.hasSameContent(as: try parse("a = { b = [ 2 1 ] }")))
    }

    struct BadInput: Sendable, CustomStringConvertible {
        var text: String
        var location: String
        var message: String
        var description: String { text.debugDescription }
    }

    @Test(arguments: [
        BadInput(text: #"a = "abc"#, location: "1:5", message: "unterminated string: no closing '\"' before the end of the file"),
        BadInput(text: "a = \"ab\nc\"", location: "1:5", message: "unterminated string: the line ends before the closing '\"'"),
        BadInput(text: "a = 1\nb = { c = 1", location: "2:5", message: "unclosed '{': no matching '}' before the end of the file"),
        BadInput(text: "a = [ 1 2", location: "1:5", message: "unclosed '[': no matching ']' before the end of the file"),
        BadInput(text: "{ a = 1", location: "1:1", message: "unclosed '{'"),
        BadInput(text: "a = { b = 1 ]", location: "1:13", message: "expected '}' to close the object opened at 1:5, found ']'"),
        BadInput(text: "a = [ 1 }", location: "1:9", message: "expected ']' to close the array opened at 1:5, found '}'"),
        BadInput(text: "a = 1 }", location: "1:7", message: "unexpected '}' with no matching opening bracket"),
        BadInput(text: "{ a = 1 } b = 2", location: "1:11", message: "unexpected 'b' after the top-level object"),
        BadInput(text: "a = 1\n  b", location: "2:3", message: "key 'b' has no value"),
        BadInput(text: "x = { a = }", location: "1:7", message: "key 'a' has no value"),
        BadInput(text: "{ [ 1 ] = 2 }", location: "1:3", message: "expected a key, found '['"),
        BadInput(text: #"a = "x\qy""#, location: "1:7", message: "invalid escape '\\q' in a string"),
        BadInput(text: #"a = "\u12""#, location: "1:6", message: "invalid \\u escape: expected four hex digits after \\u"),
        BadInput(text: #"a = "\u12G4""#, location: "1:6", message: "invalid \\u escape: expected four hex digits"),
        BadInput(text: #"a = "\uD800x""#, location: "1:6", message: "high surrogate \\uD800 is not followed by a low surrogate"),
        BadInput(text: #"a = "\uD800\u0041""#, location: "1:6", message: "is followed by \\u0041, not a low surrogate"),
        BadInput(text: #"a = "\uDC00""#, location: "1:6", message: "lone low surrogate \\uDC00"),
        BadInput(text: #"a = "\u0000""#, location: "1:6", message: "\\u0000 is not allowed"),
        BadInput(text: "a = \"tab\there\"", location: "1:9", message: "control character U+0009 in a string"),
        BadInput(text: "a = \"del\u{7F}\"", location: "1:9", message: "control character U+007F in a string"),
        BadInput(text: #"a = "\"#, location: "1:6", message: "the file ends inside an escape"),
    ])
    func syntaxErrorsArePrecise(bad: BadInput) throws {
        let error = try #require(parseError(bad.text))
        #expect("\(error.line):\(error.column)" == bad.location)
        #expect(error.message.contains(bad.message), "message: \(error.message)")
        #expect(error.description.hasPrefix("test.conf:\(bad.location): "))
    }

    /// Bytes of `a = "…"` around `inner`, and where the bad byte is.
    static let invalidUTF8: [(bytes: [UInt8], location: String)] = [
        (quotedValue([0xFF]), "1:6"),
        (quotedValue([0x80]), "1:6"),
        (quotedValue([0xC0, 0x80]), "1:6"),         // overlong NUL
        (quotedValue([0xED, 0xA0, 0x80]), "1:6"),   // an encoded surrogate
        (quotedValue([0xC3, 0xA9, 0xE2, 0x82]), "1:7"),   // é, then a truncated sequence
        (Array("a = b".utf8) + [0xF8], "1:6"),
    ]

    static func quotedValue(_ inner: [UInt8]) -> [UInt8] {
        Array("a = \"".utf8) + inner + Array("\"".utf8)
    }

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsReported(bytes: [UInt8], location: String) throws {
        do {
            _ = try SPAJSONParser.parseDocument(bytes: bytes, file: "test.conf")
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect("\(error.line):\(error.column)" == location)
            #expect(error.message.hasPrefix("invalid UTF-8"))
        }
    }

    @Test func nulIsWhitespaceBetweenTokensButNotInsideAWord() throws {
        let document = try SPAJSONParser.parseDocument(bytes: Array("\0a =\0 1 \0".utf8), file: "t")
        #expect(document["a"]?.number == 1)
        #expect(throws: ConfigError.self) { try SPAJSONParser.parseDocument(bytes: Array("a = b\0c".utf8), file: "t") }
    }

    @Test func nestingIsBounded() throws {
        let depth = SPAJSONParser.maximumDepth
        let ok = "a = " + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
        #expect(throws: Never.self) { try parse(ok) }
        let tooDeep = "a = " + String(repeating: "[", count: 10_000)
        let error = try #require(parseError(tooDeep))
        #expect(error.message.contains("nesting deeper than"))
    }

    @Test func singleValues() throws {
        #expect(try SPAJSONParser.parseValue("[ a b ]").elements?.count == 2)
        #expect(try SPAJSONParser.parseValue(#""x""#).string == "x")
        #expect(throws: ConfigError.self) { try SPAJSONParser.parseValue("1 2") }
        #expect(throws: ConfigError.self) { try SPAJSONParser.parseValue("") }
        #expect(throws: ConfigError.self) { try SPAJSONParser.parseValue("]") }
    }

    @Test func multipleErrorsRenderOnePerLine() {
        let first = ConfigError(file: "a.conf", line: 2, column: 3, message: "one")
        let second = ConfigError(file: "b.conf", "cannot read")
        let combined = ConfigError(collecting: [first, second])
        #expect(combined?.description == "a.conf:2:3: one\nb.conf: cannot read")
        #expect(combined?.all == [first, second])
        #expect(ConfigError(collecting: []) == nil)
    }
}
