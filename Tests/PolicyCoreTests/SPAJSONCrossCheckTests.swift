import CPipeWire
import Testing
@testable import PolicyCore

/// Cross-checks SPAJSONParser against libspa's own tokenizer
/// (`spa/utils/json.h` of the libspa the tests are compiled with: 0.3.65 on
/// Debian 12, 1.4.2 from bookworm-backports) in the dialect of that libspa.
///
/// libspa only tokenizes; each PipeWire reader pairs the tokens up itself.
/// `LibspaReader` reads the way PipeWire's config readers do
/// (`pw_properties_update_string`, the `context.*` section parsers): the
/// top level is entered as an object if it starts with `{` and read as bare
/// members otherwise, every container is entered, keys are the next token
/// through `spa_json_parse_string`, and a value is classified with
/// `spa_json_is_null/true/false/float`, anything else being a string. It
/// counts a negative return (libspa's "error"), a key with no value and a
/// container used as a key as invalid.
///
/// libspa's tokenizer changed in PipeWire 1.1.81 (on the way to 1.2.0; 1.0.x
/// still has the old one), so every case says what happens in each
/// `SPAJSONDialect`, and the test runs the column of the compiled-in libspa
/// (`cpw_get_headers_version()`). `scripts/spajson-harness` reads the same
/// cases with any libspa's headers, which is how the column of the dialect
/// not installed here was checked; docs/CONFIG.md has the table of
/// differences and the release of each.
///
/// Both dialects:
/// * `,` is whitespace; a `#` where a token may start begins a comment; a
///   bare word also ends at whitespace or `: , = ] }`: `x{y` is one word,
///   `"x"y` two tokens. We follow.
/// * libspa accepts, where we report an error: text after a braced
///   top-level object (`{ a = 1 } b = 2`, ignored); `\u` not followed by
///   four hex digits (read as a literal `u`), lone surrogates (dropped),
///   `\u0000` (cuts the string); strings only checked for UTF-8 sequence
///   lengths (overlong forms and encoded surrogates pass); nesting deeper
///   than our 128 levels.
/// * libspa rejects control characters (tab and newline included) in quoted
///   strings and any escape other than JSON's; an unclosed container nested
///   inside another (the parent re-scans it and ends at depth > 0). We agree.
/// * Numbers: libspa reads floats as 32-bit (`16777217` reads as 16777216;
///   we keep the 64-bit value and the text) and `spa_json_parse_int` uses
///   `strtol(…, 0)`, so `010` is 8 and `0x10` is 16 to a PipeWire integer
///   reader, while for us `010` is the number 10 and `0x10` a string.
///
/// `pipeWire0_3` (0.3.x, 1.0.x):
/// * `:` and `=` are whitespace too: `{ a b c d }` is two pairs and
///   `[ 1 = 2 : 3 ]` three elements. We follow.
/// * A bare word takes any byte: `1#c` and `x"y"` are single words (a `#`
///   right after a value is not a comment), `x\y`, DEL and UTF-8 are kept.
///   We follow, except for NUL and invalid UTF-8, which libspa keeps and its
///   readers then cut or garble: we report them.
/// * DEL is refused in quoted strings. We agree.
/// * libspa accepts, where we report an error: the end of the input closes
///   anything still open (an unterminated string, an unclosed top-level
///   `{`); any closer closes any opener (`{ a = 1 ]`); a stray closer at the
///   top level ends the input silently.
/// * A comment that ends the input without a newline comes back from
///   `spa_json_next` as a token (the comment text): at the top level it is a
///   key with no value, which PipeWire's property reader silently drops, and
///   our reader here calls invalid. We read it as a comment.
///
/// `pipeWire1_2` (1.1.81 and later: 1.2, 1.4, 1.6):
/// * `:` and `=` may only stand between a key and its value; elsewhere
///   (after a value, in an array) libspa reports an error. We agree.
/// * A bare word is printable ASCII without `\` (anything else is an
///   error) and also ends at `"` (a string starts), `#` (a comment starts)
///   and NUL: `a = 1#c` is `a = 1`, `a = x"y" "z"` is `a = x, y = z`. We follow.
/// * DEL is allowed in quoted strings; a comment at the very end is a
///   comment. We follow.
/// * Unterminated strings, unclosed or mismatched brackets and stray closers
///   are errors. We agree.
@Suite struct SPAJSONCrossCheckTests {
    enum Expectation: Sendable {
        /// Both accept and read the same values.
        case agree
        /// Both accept and read this (for the cases the dialects read differently).
        case agreeReading(String)
        /// Both refuse.
        case bothReject
        /// libspa accepts and reads this (compact notation), we report an error.
        case onlyLibspaAccepts(reads: String)
        /// libspa returns a token that pairs up wrongly; we read it as intended.
        case onlyWeAccept
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        var pipeWire0_3: Expectation
        var pipeWire1_2: Expectation

        /// The same in both dialects.
        init(_ name: String, _ text: String, _ expectation: Expectation) {
            self.init(name, bytes: Array(text.utf8), pipeWire0_3: expectation, pipeWire1_2: expectation)
        }
        init(_ name: String, bytes: [UInt8], _ expectation: Expectation) {
            self.init(name, bytes: bytes, pipeWire0_3: expectation, pipeWire1_2: expectation)
        }
        init(_ name: String, _ text: String, pipeWire0_3: Expectation, pipeWire1_2: Expectation) {
            self.init(name, bytes: Array(text.utf8), pipeWire0_3: pipeWire0_3, pipeWire1_2: pipeWire1_2)
        }
        init(_ name: String, bytes: [UInt8], pipeWire0_3: Expectation, pipeWire1_2: Expectation) {
            self.name = name; self.bytes = bytes; self.pipeWire0_3 = pipeWire0_3; self.pipeWire1_2 = pipeWire1_2
        }

        func expectation(in dialect: SPAJSONDialect) -> Expectation {
            switch dialect {
            case .pipeWire0_3: pipeWire0_3
            case .pipeWire1_2: pipeWire1_2
            }
        }

        var description: String { name }
    }

    static let cases: [Case] = [
        // Plain and relaxed forms.
        Case("strict JSON", #"{ "a": 1, "b": [true, false, null], "c": { "d": "e" } }"#, .agree),
        Case("PipeWire style", "a = 1\nb = [ x y ]\nc = { d = e }", .agree),
        Case("empty input", "", .agree),
        Case("only a comment", "# nothing here\n", .agree),
        Case("empty braces", "{ }", .agree),
        Case("empty containers", "a = {} b = [] c = [ {} [] ]", .agree),
        Case("separators are whitespace in objects", "{ a b c d }", .agree),
        Case("commas in arrays", "a = [ 1, 2 , 3 ]", .agree),
        Case("runs of commas", ",,a,,=,,b,, c = = d", .agree),
        Case("repeated key separators", "a = : = 1", .agree),
        Case("comma between key and value", "a , 1", .agree),
        Case("comments end at \\n and \\r", "# x\na = 1 # y\rb = 2 # z\n", .agree),
        Case("CRLF and tabs", "a\t=\t1\r\nb = 2\r\n", .agree),
        Case("NUL between tokens", "\0a =\0 1 \0", .agree),
        Case("quoted keys", #""a b" = 1 "c\"d" = 2"#, .agree),
        Case("string right after a string", #""a""b""#, .agree),
        Case("keyword-like keys", "true = 1 null = 2 3 = 4", .agree),
        // Scalars.
        Case("keywords", "a = null b = true c = false", .agree),
        Case("quoted keywords are strings", #"a = "null" b = "true" c = "false""#, .agree),
        Case("numbers", "a = [ 0 -1 +2 1.5 .5 5. 1e3 1E-2 -0.0 00012 0.20 1e400 ]", .agree),
        Case("number lookalikes are strings", "a = [ 1e 1.2.3 0x10 inf nan - + . e 1-2 12ab ]", .agree),
        Case("quoted number is a string", #"a = "1.5""#, .agree),
        Case("regex as a bare word", "role = ~^(Music|Movie)$", .agree),
        Case("dotted bare words", "application.process.binary = org.gnome.Music-2", .agree),
        Case("brace inside a bare word", "a = x{y b = 1", .agree),
        Case("string then bare word", #"a = "x"y = 1"#, .agree),
        Case("escapes", #"a = "q\"b\\s\/n\nt\tr\rb\bf\f""#, .agree),
        Case("unicode escapes", #"a = "\u00e9\u20AC\ud83d\ude00""#, .agree),
        Case("raw UTF-8 in a string", "a = \"é€😀\"", .agree),
        Case("deep nesting", "a = " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40), .agree),
        // Both refuse.
        Case("key without value", "a = 1 b", .bothReject),
        Case("key without value in an object", "x = { a = 1 b }", .bothReject),
        Case("container as a key", "{ [ 1 ] = 2 }", .bothReject),
        Case("unknown escape", #"a = "x\qy""#, .bothReject),
        Case("raw tab in a string", "a = \"x\ty\"", .bothReject),
        Case("raw newline in a string", "a = \"x\ny\"", .bothReject),
        Case("raw control character in a string", "a = \"x\u{1}y\"", .bothReject),
        Case("continuation byte as a lead", bytes: Array("a = \"".utf8) + [0x80, 0x22], .bothReject),
        Case("byte 0xFF in a string", bytes: Array("a = \"".utf8) + [0xFF, 0x22], .bothReject),
        Case("unclosed nested object", "a = { b = { c = 1 }", .bothReject),
        Case("unclosed nested array", "a = [ 1 2", .bothReject),
        // libspa accepts what we report, in both dialects.
        Case("text after the top-level object", "{ a = 1 } b = 2", .onlyLibspaAccepts(reads: "{a:1.0}")),
        Case("\\u without hex digits", #"a = "\u12G4""#, .onlyLibspaAccepts(reads: #"{a:"u12G4"}"#)),
        Case("lone high surrogate", #"a = "x\uD800y""#, .onlyLibspaAccepts(reads: #"{a:"xy"}"#)),
        Case("lone low surrogate", #"a = "x\uDC00y""#, .onlyLibspaAccepts(reads: #"{a:"xy"}"#)),
        Case("\\u0000 cuts the string", #"a = "x\u0000y""#, .onlyLibspaAccepts(reads: #"{a:"x"}"#)),
        Case("overlong UTF-8", bytes: Array("a = \"x".utf8) + [0xC1, 0x81, 0x22], .onlyLibspaAccepts(reads: "{a:<invalid UTF-8>}")),
        Case("encoded surrogate", bytes: Array("a = \"".utf8) + [0xED, 0xA0, 0x80, 0x22], .onlyLibspaAccepts(reads: "{a:<invalid UTF-8>}")),

        // What PipeWire 1.2 reads differently. Key separators:
        Case("= and : in arrays", "a = [ 1 = 2 : 3 , 4 ]", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("runs of separators", ",,a,,=,,b,,:: c = = d", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("colon after a value", "a = 1 : b = 2", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("leading separator", ": a = 1", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("colon in a nested object after a value", "a = { b = 1 : c = 2 }", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("separator before a closer", "a = { b = 1 = }", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("separator after an array value", "a = [ 1 ] = b = 2", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        // Where a bare word ends, and what it may hold:
        Case("hash after a bare word", "a = 1#c b = x#y",
             pipeWire0_3: .agreeReading(#"{a:"1#c",b:"x#y"}"#), pipeWire1_2: .agreeReading("{a:1.0}")),
        Case("hash after a bare word, then a line", "a = 1#c b = 2\nc = x#y\nd = 3",
             pipeWire0_3: .agreeReading(#"{a:"1#c",b:2.0,c:"x#y",d:3.0}"#), pipeWire1_2: .agreeReading(#"{a:1.0,c:"x",d:3.0}"#)),
        Case("quote after a bare word", #"a = x"y""#, pipeWire0_3: .agreeReading(#"{a:"x"y""}"#), pipeWire1_2: .bothReject),
        Case("quote after a bare word, in pairs", #"a = x"y" "z""#,
             pipeWire0_3: .bothReject, pipeWire1_2: .agreeReading(#"{a:"x",y:"z"}"#)),
        Case("backslash in a bare word", #"a = x\y"#, pipeWire0_3: .agreeReading(#"{a:"x\y"}"#), pipeWire1_2: .bothReject),
        Case("backslash as a value", #"a = \"#, pipeWire0_3: .agreeReading(#"{a:"\"}"#), pipeWire1_2: .bothReject),
        Case("raw UTF-8 in a bare word", "b = música", pipeWire0_3: .agreeReading(#"{b:"música"}"#), pipeWire1_2: .bothReject),
        Case("raw UTF-8 in a key", "música = 1", pipeWire0_3: .agreeReading("{música:1.0}"), pipeWire1_2: .bothReject),
        Case("DEL in a bare word", "a = x\u{7F}y", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("control character in a bare word", "a = x\u{1}y", pipeWire0_3: .agree, pipeWire1_2: .bothReject),
        Case("NUL inside a bare word", "a = x\0y", pipeWire0_3: .onlyLibspaAccepts(reads: #"{a:"x"}"#), pipeWire1_2: .bothReject),
        Case("NUL after a bare word", "a = x\0b = 2", pipeWire0_3: .bothReject, pipeWire1_2: .agreeReading(#"{a:"x",b:2.0}"#)),
        Case("invalid UTF-8 in a bare word", bytes: Array("a = x".utf8) + [0xFF],
             pipeWire0_3: .onlyLibspaAccepts(reads: "{a:<invalid UTF-8>}"), pipeWire1_2: .bothReject),
        // Strings and comments:
        Case("DEL in a string", "a = \"x\u{7F}y\"", pipeWire0_3: .bothReject, pipeWire1_2: .agree),
        Case("comment at the very end without a newline", "a = 1 # z", pipeWire0_3: .onlyWeAccept, pipeWire1_2: .agree),
        Case("only a comment without a newline", "# z", pipeWire0_3: .onlyWeAccept, pipeWire1_2: .agree),
        // Unfinished and mismatched containers: accepted by libspa 0.3 only.
        Case("unterminated string at the end", #"a = "abc"#,
             pipeWire0_3: .onlyLibspaAccepts(reads: #"{a:"abc"}"#), pipeWire1_2: .bothReject),
        Case("unclosed top-level brace", "{ a = 1", pipeWire0_3: .onlyLibspaAccepts(reads: "{a:1.0}"), pipeWire1_2: .bothReject),
        Case("] closes {", "{ a = 1 ]", pipeWire0_3: .onlyLibspaAccepts(reads: "{a:1.0}"), pipeWire1_2: .bothReject),
        Case("} closes [", "a = [ 1 } b = 2", pipeWire0_3: .onlyLibspaAccepts(reads: "{a:[1.0],b:2.0}"), pipeWire1_2: .bothReject),
        Case("] closes a nested {", "a = { b = 1 ] c = 2",
             pipeWire0_3: .onlyLibspaAccepts(reads: "{a:{b:1.0},c:2.0}"), pipeWire1_2: .bothReject),
        Case("stray closer ends the input", "a = 1 } b = 2", pipeWire0_3: .onlyLibspaAccepts(reads: "{a:1.0}"), pipeWire1_2: .bothReject),
    ]

    @Test(arguments: cases)
    func parsersAgree(_ testCase: Case) {
        let dialect = LibspaReader.dialect
        let theirs = LibspaReader.readDocument(testCase.bytes)
        let ours = Result { () throws(ConfigError) in
            try SPAJSONParser.parseDocument(bytes: testCase.bytes, file: "x", dialect: dialect)
        }
        func expectAgreement() {
            guard case .success(let ours) = ours else {
                Issue.record("we reject what libspa reads as \(theirs?.description ?? "an error"): \(ours)")
                return
            }
            guard let theirs else {
                Issue.record("libspa rejects what we read as \(LibspaReading(ours))")
                return
            }
            #expect(LibspaReading(ours) ~= theirs, "ours \(LibspaReading(ours)) vs libspa \(theirs)")
        }
        switch testCase.expectation(in: dialect) {
        case .agree:
            expectAgreement()
        case .agreeReading(let reading):
            expectAgreement()
            #expect(theirs?.description == reading)
        case .bothReject:
            #expect(theirs == nil, "libspa reads \(theirs?.description ?? "")")
            if case .success(let value) = ours { Issue.record("we accept \(LibspaReading(value))") }
        case .onlyWeAccept:
            #expect(theirs == nil, "libspa reads \(theirs?.description ?? "")")
            if case .failure(let error) = ours { Issue.record("we reject it: \(error)") }
        case .onlyLibspaAccepts(let reading):
            #expect(theirs?.description == reading)
            if case .success(let value) = ours { Issue.record("we accept \(LibspaReading(value))") }
        }
    }

    /// The headers' version decides the dialect; this checks that the
    /// tokenizer compiled in really behaves as that dialect says, on one
    /// input each generation reads its own way.
    @Test func compiledLibspaIsTheDialectItsVersionSays() throws {
        let version = try #require(SemanticVersion(parsing: String(cString: cpw_get_headers_version())))
        #expect(LibspaReader.dialect == SPAJSONDialect(pipeWire: version))
        let arrayWithEquals = LibspaReader.readDocument(Array("a = [ 1 = 2 ]".utf8))
        switch LibspaReader.dialect {
        case .pipeWire0_3: #expect(arrayWithEquals?.description == "{a:[1.0,2.0]}")
        case .pipeWire1_2: #expect(arrayWithEquals == nil)
        }
    }

    @Test func libspaReadsIntegersWithStrtolBaseZero() throws {
        #expect(LibspaReader.integer("010") == 8)
        #expect(LibspaReader.integer("0x10") == 16)
        #expect(try SPAJSONParser.parseValue("010").value == .number(10, text: "010"))
        #expect(try SPAJSONParser.parseValue("0x10").value == .string("0x10"))
    }

    @Test func libspaFloatsAre32Bit() throws {
        #expect(LibspaReader.readDocument(Array("a = 16777217".utf8))?.description == "{a:16777216.0}")
        #expect(try SPAJSONParser.parseDocument("a = 16777217", file: "x")["a"]?.value == .number(16_777_217, text: "16777217"))
    }
}

/// A value as libspa reads it (floats are what `spa_json_parse_float` gives).
indirect enum LibspaReading: Equatable, CustomStringConvertible {
    case object([Member])
    case array([LibspaReading])
    case string(String)
    /// Bytes that are not UTF-8, which a Swift String cannot hold.
    case invalidUTF8
    case float(Float)
    case bool(Bool)
    case null

    struct Member: Equatable {
        var key: String
        var value: LibspaReading
    }

    /// Ours, in libspa's terms.
    init(_ value: SPAJSON) {
        switch value.value {
        case .object(let members): self = .object(members.map { Member(key: $0.key, value: LibspaReading($0.value)) })
        case .array(let elements): self = .array(elements.map(LibspaReading.init))
        case .string(let string): self = .string(string)
        case .number(let number, _): self = .float(Float(number))
        case .bool(let bool): self = .bool(bool)
        case .null: self = .null
        }
    }

    /// Same values; floats compare after rounding ours to 32 bits.
    static func ~= (ours: LibspaReading, theirs: LibspaReading) -> Bool {
        switch (ours, theirs) {
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value ~= $1.value }
        case (.array(let a), .array(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0 ~= $1 }
        default:
            ours == theirs
        }
    }

    var description: String {
        switch self {
        case .object(let members): "{" + members.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .string(let string): "\"\(string)\""
        case .invalidUTF8: "<invalid UTF-8>"
        case .float(let float): "\(float)"
        case .bool(let bool): "\(bool)"
        case .null: "null"
        }
    }
}

/// Reads an input with libspa's functions the way PipeWire's config readers do.
enum LibspaReader {
    /// The dialect of the libspa compiled into the tests, from its headers'
    /// version (Debian builds libspa and libpipewire from one source, so the
    /// PipeWire headers' version is libspa's).
    static let dialect: SPAJSONDialect = {
        guard let version = SemanticVersion(parsing: String(cString: cpw_get_headers_version())) else {
            fatalError("cannot read the PipeWire headers' version \(String(cString: cpw_get_headers_version()))")
        }
        return SPAJSONDialect(pipeWire: version)
    }()

    /// nil when libspa reports an error or the tokens do not pair up.
    static func readDocument(_ bytes: [UInt8]) -> LibspaReading? {
        // A NUL after the data, as in a C string: spa_json_parse_float runs
        // strspn, which does not stop at the token's length.
        let buffer = bytes.map { CChar(bitPattern: $0) } + [0]
        return buffer.withUnsafeBufferPointer { data -> LibspaReading? in
            // Iterators live on the heap: a child iterator keeps a pointer to
            // its parent and writes the parent's position back through it.
            let outer = Iterator(), top = Iterator()
            spa_json_init(outer.pointer, data.baseAddress!, bytes.count)
            if spa_json_enter_object(outer.pointer, top.pointer) <= 0 {
                spa_json_init(top.pointer, data.baseAddress!, bytes.count)
            }
            return readObject(top)
        }
    }

    static func integer(_ text: String) -> Int32? {
        var result: Int32 = 0
        let ok = text.withCString { spa_json_parse_int($0, Int32(text.utf8.count), &result) }
        return ok > 0 ? result : nil
    }

    private final class Iterator {
        let pointer = UnsafeMutablePointer<spa_json>.allocate(capacity: 1)
        init() { pointer.initialize(to: spa_json()) }
        deinit { pointer.deallocate() }
    }

    private static func readObject(_ iterator: Iterator) -> LibspaReading? {
        var members: [LibspaReading.Member] = []
        while true {
            var keyToken: UnsafePointer<CChar>?
            let keyLength = spa_json_next(iterator.pointer, &keyToken)
            if keyLength == 0 { return .object(members) }
            guard keyLength > 0, let keyToken, spa_json_is_container(keyToken, keyLength) == 0 else { return nil }
            guard case .string(let key) = text(keyToken, keyLength) else { return nil }
            var valueToken: UnsafePointer<CChar>?
            let valueLength = spa_json_next(iterator.pointer, &valueToken)
            guard valueLength > 0, let valueToken, let value = readValue(valueToken, valueLength, in: iterator) else { return nil }
            members.append(LibspaReading.Member(key: key, value: value))
        }
    }

    private static func readArray(_ iterator: Iterator) -> LibspaReading? {
        var elements: [LibspaReading] = []
        while true {
            var token: UnsafePointer<CChar>?
            let length = spa_json_next(iterator.pointer, &token)
            if length == 0 { return .array(elements) }
            guard length > 0, let token, let value = readValue(token, length, in: iterator) else { return nil }
            elements.append(value)
        }
    }

    private static func readValue(_ token: UnsafePointer<CChar>, _ length: Int32, in parent: Iterator) -> LibspaReading? {
        if spa_json_is_object(token, length) != 0 || spa_json_is_array(token, length) {
            let child = Iterator()
            spa_json_enter(parent.pointer, child.pointer)
            return spa_json_is_object(token, length) != 0 ? readObject(child) : readArray(child)
        }
        if spa_json_is_null(token, length) { return .null }
        if spa_json_is_true(token, length) { return .bool(true) }
        if spa_json_is_false(token, length) { return .bool(false) }
        var float: Float = 0
        if spa_json_parse_float(token, length, &float) > 0 { return .float(float) }
        return text(token, length)
    }

    /// A string or bare token through spa_json_parse_string, up to the NUL it writes.
    private static func text(_ token: UnsafePointer<CChar>, _ length: Int32) -> LibspaReading {
        var output = [CChar](repeating: 0, count: Int(length) + 1)
        spa_json_parse_string(token, length, &output)
        let bytes = output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let string = String(decoding: bytes, as: UTF8.self)
        return Array(string.utf8) == bytes ? .string(string) : .invalidUTF8
    }
}
