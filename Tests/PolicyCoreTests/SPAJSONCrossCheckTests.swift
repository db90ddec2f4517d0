import CPipeWire
import Testing
@testable import PolicyCore

/// Cross-checks SPAJSONParser against libspa's own tokenizer
/// (`spa/utils/json.h` of the installed libspa, 0.3.65 here).
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
/// What we found, pinned by the cases below:
/// * `:`, `=` and `,` are plain whitespace: `{ a b c d }` is two pairs and
///   `[ 1 = 2 : 3 ]` three elements. We follow.
/// * A bare word runs until whitespace or `: , = ] }`: `x{y`, `x"y"` and
///   `1#c` are single words (so a `#` right after a value is not a comment),
///   while `"x"y` is two tokens. We follow.
/// * libspa accepts, where we report an error:
///   - the end of the input closes anything still open: an unterminated
///     string (`a = "abc` reads "abc"), an unclosed top-level `{`;
///   - any closer closes any opener (`{ a = 1 ]`, `[ 1 }`);
///   - a stray closer at the top level ends the input silently, and text
///     after a braced top-level object is ignored (`{ a = 1 } b = 2`);
///   - `\u` not followed by four hex digits is read as a literal `u`, lone
///     surrogates are dropped, `\u0000` cuts the string;
///   - strings are only checked for UTF-8 sequence lengths (overlong forms
///     and encoded surrogates pass), bare words not at all.
/// * libspa rejects control characters (tab and newline included) and DEL in
///   quoted strings, and any escape other than JSON's. We agree.
/// * A comment that ends the input without a newline comes back from
///   `spa_json_next` as a token (the comment text): at the top level it is a
///   key with no value, which PipeWire's property reader silently drops, and
///   our reader here calls invalid. We read it as a comment.
/// * An unclosed container *nested* inside another is an error in libspa
///   (the parent re-scans it and ends at depth > 0), unlike an unclosed
///   outermost one.
/// * Numbers: libspa reads floats as 32-bit (`16777217` reads as 16777216;
///   we keep the 64-bit value and the text) and `spa_json_parse_int` uses
///   `strtol(…, 0)`, so `010` is 8 and `0x10` is 16 to a PipeWire integer
///   reader, while for us `010` is the number 10 and `0x10` a string.
@Suite struct SPAJSONCrossCheckTests {
    enum Expectation: Sendable {
        /// Both accept and read the same values.
        case agree
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
        var expectation: Expectation
        init(_ name: String, _ text: String, _ expectation: Expectation) {
            self.name = name; self.bytes = Array(text.utf8); self.expectation = expectation
        }
        init(_ name: String, bytes: [UInt8], _ expectation: Expectation) {
            self.name = name; self.bytes = bytes; self.expectation = expectation
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
        Case("separators are whitespace in arrays", "a = [ 1 = 2 : 3 , 4 ]", .agree),
        Case("runs of separators", ",,a,,=,,b,,:: c = = d", .agree),
        Case("comments end at \\n and \\r", "# x\na = 1 # y\rb = 2 # z\n", .agree),
        Case("CRLF and tabs", "a\t=\t1\r\nb = 2\r\n", .agree),
        Case("NUL between tokens", "\0a =\0 1 \0", .agree),
        Case("quoted keys", #""a b" = 1 "c\"d" = 2"#, .agree),
        Case("keyword-like keys", "true = 1 null = 2 3 = 4", .agree),
        // Scalars.
        Case("keywords", "a = null b = true c = false", .agree),
        Case("quoted keywords are strings", #"a = "null" b = "true" c = "false""#, .agree),
        Case("numbers", "a = [ 0 -1 +2 1.5 .5 5. 1e3 1E-2 -0.0 00012 0.20 1e400 ]", .agree),
        Case("number lookalikes are strings", "a = [ 1e 1.2.3 0x10 inf nan - + . e 1-2 12ab ]", .agree),
        Case("quoted number is a string", #"a = "1.5""#, .agree),
        Case("regex as a bare word", "role = ~^(Music|Movie)$", .agree),
        Case("dotted bare words", "application.process.binary = org.gnome.Music-2", .agree),
        Case("hash inside a bare word", "a = 1#c b = x#y", .agree),
        Case("brace and quote inside a bare word", #"a = x{y b = x"y""#, .agree),
        Case("string then bare word", #"a = "x"y = 1"#, .agree),
        Case("escapes", #"a = "q\"b\\s\/n\nt\tr\rb\bf\f""#, .agree),
        Case("unicode escapes", #"a = "\u00e9\u20AC\ud83d\ude00""#, .agree),
        Case("raw UTF-8", "a = \"é€😀\" b = música", .agree),
        Case("deep nesting", "a = " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40), .agree),
        // Both refuse.
        Case("key without value", "a = 1 b", .bothReject),
        Case("container as a key", "{ [ 1 ] = 2 }", .bothReject),
        Case("unknown escape", #"a = "x\qy""#, .bothReject),
        Case("raw tab in a string", "a = \"x\ty\"", .bothReject),
        Case("raw newline in a string", "a = \"x\ny\"", .bothReject),
        Case("raw control character in a string", "a = \"x\u{1}y\"", .bothReject),
        Case("DEL in a string", "a = \"x\u{7F}y\"", .bothReject),
        Case("continuation byte as a lead", bytes: Array("a = \"".utf8) + [0x80, 0x22], .bothReject),
        Case("byte 0xFF in a string", bytes: Array("a = \"".utf8) + [0xFF, 0x22], .bothReject),
        Case("unclosed nested object", "a = { b = { c = 1 }", .bothReject),
        Case("unclosed nested array", "a = [ 1 2", .bothReject),
        // We accept what libspa turns into a stray token.
        Case("comment at the very end without a newline", "a = 1 # z", .onlyWeAccept),
        // libspa accepts what we report.
        Case("unterminated string at the end", #"a = "abc"#, .onlyLibspaAccepts(reads: #"{a:"abc"}"#)),
        Case("unclosed top-level brace", "{ a = 1", .onlyLibspaAccepts(reads: "{a:1.0}")),
        Case("] closes {", "{ a = 1 ]", .onlyLibspaAccepts(reads: "{a:1.0}")),
        Case("} closes [", "a = [ 1 } b = 2", .onlyLibspaAccepts(reads: "{a:[1.0],b:2.0}")),
        Case("stray closer ends the input", "a = 1 } b = 2", .onlyLibspaAccepts(reads: "{a:1.0}")),
        Case("text after the top-level object", "{ a = 1 } b = 2", .onlyLibspaAccepts(reads: "{a:1.0}")),
        Case("\\u without hex digits", #"a = "\u12G4""#, .onlyLibspaAccepts(reads: #"{a:"u12G4"}"#)),
        Case("lone high surrogate", #"a = "x\uD800y""#, .onlyLibspaAccepts(reads: #"{a:"xy"}"#)),
        Case("lone low surrogate", #"a = "x\uDC00y""#, .onlyLibspaAccepts(reads: #"{a:"xy"}"#)),
        Case("\\u0000 cuts the string", #"a = "x\u0000y""#, .onlyLibspaAccepts(reads: #"{a:"x"}"#)),
        Case("overlong UTF-8", bytes: Array("a = \"x".utf8) + [0xC1, 0x81, 0x22], .onlyLibspaAccepts(reads: "{a:<invalid UTF-8>}")),
        Case("encoded surrogate", bytes: Array("a = \"".utf8) + [0xED, 0xA0, 0x80, 0x22], .onlyLibspaAccepts(reads: "{a:<invalid UTF-8>}")),
        Case("invalid UTF-8 in a bare word", bytes: Array("a = x".utf8) + [0xFF], .onlyLibspaAccepts(reads: "{a:<invalid UTF-8>}")),
        Case("NUL inside a bare word", "a = x\0y", .onlyLibspaAccepts(reads: #"{a:"x"}"#)),
    ]

    @Test(arguments: cases)
    func parsersAgree(_ testCase: Case) {
        let theirs = LibspaReader.readDocument(testCase.bytes)
        let ours = Result { () throws(ConfigError) in try SPAJSONParser.parseDocument(bytes: testCase.bytes, file: "x") }
        switch testCase.expectation {
        case .agree:
            guard case .success(let ours) = ours else {
                Issue.record("we reject what libspa reads as \(theirs?.description ?? "an error"): \(ours)")
                return
            }
            guard let theirs else {
                Issue.record("libspa rejects what we read as \(ours)")
                return
            }
            #expect(LibspaReading(ours) ~= theirs, "ours \(LibspaReading(ours)) vs libspa \(theirs)")
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
