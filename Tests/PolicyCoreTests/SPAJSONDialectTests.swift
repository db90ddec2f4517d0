import Testing
@testable import PolicyCore
import PolicyFiles

/// The parser in each SPA-JSON dialect, whichever libspa is installed here
/// (SPAJSONCrossCheckTests compares one dialect with the real libspa).
@Suite struct SPAJSONDialectTests {
    private func parse(_ text: String, _ dialect: SPAJSONDialect) throws -> SPAJSON {
        try SPAJSONParser.parseDocument(text, file: "test.conf", dialect: dialect)
    }

    private func parseError(_ bytes: [UInt8], _ dialect: SPAJSONDialect) -> ConfigError? {
        do {
            _ = try SPAJSONParser.parseDocument(bytes: bytes, file: "test.conf", dialect: dialect)
            return nil
        } catch {
            return error
        }
    }

    private func parseError(_ text: String, _ dialect: SPAJSONDialect) -> ConfigError? {
        parseError(Array(text.utf8), dialect)
    }

    // MARK: - Versions

    @Test(arguments: [
        ("0.3.65", SPAJSONDialect.pipeWire0_3), ("0.3.85", .pipeWire0_3), ("1.0.0", .pipeWire0_3), ("1.0.9", .pipeWire0_3),
        ("1.1.81", .pipeWire1_2), ("1.2.0", .pipeWire1_2), ("1.4.2", .pipeWire1_2), ("1.6.2", .pipeWire1_2), ("2.0.0", .pipeWire1_2),
    ])
    func dialectFollowsThePipeWireVersion(text: String, dialect: SPAJSONDialect) throws {
        let version = try #require(SemanticVersion(parsing: text))
        #expect(version.description == text)
        #expect(SPAJSONDialect(pipeWire: version) == dialect)
    }

    /// PipeWire's development snapshots (1.1.81 on the way to 1.2.0) order
    /// correctly by their three numbers. Parsing: PipeWireStackTests.
    @Test func snapshotsOrderBeforeTheirRelease() {
        #expect(SemanticVersion(1, 0, 9) < SemanticVersion(1, 1, 81))
        #expect(SemanticVersion(1, 1, 81) < SemanticVersion(1, 2, 0))
    }

    @Test func theDefaultIsTheOldDialect() {
        #expect(SPAJSONDialect.default == .pipeWire0_3)
        #expect(ConfigLoader(environment: [:], fileSystem: .live).dialect == .pipeWire0_3)
    }

    // MARK: - Read the same

    @Test(arguments: SPAJSONDialect.allCases)
    func commonFormsReadTheSame(dialect: SPAJSONDialect) throws {
        let document = try parse("""
            # PipeWire style
            a = 1
            "b": "two", c = [ x, y z ]
            d = { e = true, f: null } g = x{y
            h = "é\\u20AC" i = "x"y = 2 # a comment at the very end
            """, dialect)
        #expect(document.members?.map(\.key) == ["a", "b", "c", "d", "g", "h", "i", "y"])
        #expect(document["c"]?.elements?.compactMap(\.string) == ["x", "y", "z"])
        #expect(document["d"]?["f"]?.isNull == true)
        #expect(document["g"]?.string == "x{y")
        #expect(document["h"]?.string == "é€")
        #expect(document["y"]?.number == 2)
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func shippedConfigReadsTheSameInBothDialects(dialect: SPAJSONDialect) throws {
        let text = try ShippedConfigFile.text
        #expect(try parse(text, dialect).hasSameContent(as: try parse(text, .pipeWire0_3)))
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func mistakesLibspaAcceptsAreReportedInBoth(dialect: SPAJSONDialect) {
        for text in [#"a = "abc"#, "{ a = 1", "{ a = 1 ]", "a = [ 1 }", "a = 1 }", "{ a = 1 } b = 2", #"a = "\u12G4""#] {
            #expect(parseError(text, dialect) != nil, "\(text.debugDescription)")
        }
    }

    // MARK: - Read differently

    @Test func hashEndsABareWordFromPipeWire1_2() throws {
        let old = try parse("a = 1#c b = x#y", .pipeWire0_3)
        #expect(old["a"]?.string == "1#c")
        #expect(old["b"]?.string == "x#y")
        let new = try parse("a = 1#c b = x#y\nc = 2", .pipeWire1_2)
        #expect(new.members?.map(\.key) == ["a", "c"])
        #expect(new["a"]?.value == .number(1, text: "1"))
    }

    @Test func quoteEndsABareWordFromPipeWire1_2() throws {
        #expect(try parse(#"a = x"y""#, .pipeWire0_3)["a"]?.string == #"x"y""#)
        let new = try parse(#"a = x"y" "z""#, .pipeWire1_2)
        #expect(new["a"]?.string == "x")
        #expect(new["y"]?.string == "z")
        let error = try #require(parseError(#"a = x"y""#, .pipeWire1_2))
        #expect(error.message.contains("key 'y' has no value"))
    }

    @Test func nulEndsABareWordFromPipeWire1_2() throws {
        let bytes = Array("a = x\0b = 2".utf8)
        let new = try SPAJSONParser.parseDocument(bytes: bytes, file: "t", dialect: .pipeWire1_2)
        #expect(new["a"]?.string == "x")
        #expect(new["b"]?.number == 2)
        let error = try #require(parseError(bytes, .pipeWire0_3))
        #expect(error.message.hasPrefix("NUL byte inside 'x'"))
    }

    @Test func delIsAllowedInStringsFromPipeWire1_2() throws {
        #expect(try parse("a = \"x\u{7F}y\"", .pipeWire1_2)["a"]?.string == "x\u{7F}y")
        let error = try #require(parseError("a = \"x\u{7F}y\"", .pipeWire0_3))
        #expect(error.message.contains("control character U+007F in a string"))
        // Other control characters stay refused.
        #expect(parseError("a = \"x\u{1}y\"", .pipeWire1_2) != nil)
    }

    @Test func separatorsAreWhitespaceOnlyUpToPipeWire1_0() throws {
        let text = ": a = 1 : list = [ 1 = 2 : 3 ] o = { b = 1 = }"
        let old = try parse(text, .pipeWire0_3)
        #expect(old["list"]?.elements?.compactMap(\.number) == [1, 2, 3])
        #expect(old["o"]?["b"]?.number == 1)
        // Between a key and its value, any number of them still separate.
        let new = try parse("a = : = 1 b , 2 c: 3", .pipeWire1_2)
        #expect(new.members?.map(\.key) == ["a", "b", "c"])
    }

    struct BadInput: Sendable, CustomStringConvertible {
        var bytes: [UInt8]
        var location: String
        var message: String
        init(_ text: String, _ location: String, _ message: String) {
            self.init(bytes: Array(text.utf8), location, message)
        }
        init(bytes: [UInt8], _ location: String, _ message: String) {
            self.bytes = bytes; self.location = location; self.message = message
        }
        var description: String { String(decoding: bytes, as: UTF8.self).debugDescription }
    }

    /// What PipeWire 1.2 refuses and 0.3 read, reported where it is.
    @Test(arguments: [
        BadInput(": a = 1", "1:1", "':' before 'a' is not between a key and its value"),
        BadInput("a = 1 : b = 2", "1:7", "':' before 'b' is not between a key and its value"),
        BadInput("a = { b = 1 = }", "1:13", "'=' before '}' is not between a key and its value"),
        BadInput("a = [ 1 ] = b = 2", "1:11", "'=' before 'b'"),
        BadInput("a = 1 =", "1:7", "'=' before the end of the file"),
        BadInput("= { a = 1 }", "1:1", "'=' before '{'"),
        BadInput("{ a = 1 } :", "1:11", "':' before the end of the file"),
        BadInput("a = [ 1 = 2 ]", "1:9", "'=' in an array: separate elements with spaces or ','"),
        BadInput("a = [ : 1 ]", "1:7", "':' in an array"),
        BadInput("a = [ 1 : ]", "1:9", "':' in an array"),
        BadInput(#"a = x\y"#, "1:6", #"'\' in the unquoted word 'x…': escapes only work in quoted strings"#),
        BadInput(#"a = \"#, "1:5", #"'\' in an unquoted word"#),
        BadInput("b = música", "1:6", "non-ASCII character in the unquoted word 'm…': quote the value"),
        BadInput("é = 1", "1:1", "non-ASCII character in an unquoted word"),
        BadInput("a = x\u{7F}y", "1:6", "control character U+007F in the unquoted word 'x…'"),
        BadInput("a = x\u{1}y", "1:6", "control character U+0001"),
        BadInput(bytes: Array("a = x".utf8) + [0xFF], "1:6", "non-ASCII character"),
    ])
    func refusedFromPipeWire1_2(bad: BadInput) throws {
        let error = try #require(parseError(bad.bytes, .pipeWire1_2))
        #expect("\(error.line):\(error.column)" == bad.location)
        #expect(error.message.contains(bad.message), "message: \(error.message)")
        #expect(error.message.contains("PipeWire 1.2 and later"), "message: \(error.message)")
    }

    @Test func refusedFromPipeWire1_2ButReadBefore() throws {
        for text in [": a = 1", "a = 1 : b = 2", "a = { b = 1 = }", "a = [ 1 ] = b = 2", "a = [ 1 = 2 ]",
                     #"a = x\y"#, "b = música", "é = 1", "a = x\u{7F}y", "a = x\u{1}y"] {
            #expect(throws: Never.self, "\(text.debugDescription)") { try parse(text, .pipeWire0_3) }
        }
    }

    @Test func singleValuesFollowTheDialect() throws {
        #expect(try SPAJSONParser.parseValue("[ 1 = 2 ]", dialect: .pipeWire0_3).elements?.count == 2)
        #expect(throws: ConfigError.self) { try SPAJSONParser.parseValue("[ 1 = 2 ]", dialect: .pipeWire1_2) }
        #expect(throws: ConfigError.self) { try SPAJSONParser.parseValue(": 1", dialect: .pipeWire1_2) }
        #expect(try SPAJSONParser.parseValue(#"{ "name": "x" }"#, dialect: .pipeWire1_2)["name"]?.string == "x")
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func loaderReadsInItsDialect(dialect: SPAJSONDialect) throws {
        let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": "/m"],
                                  fileSystem: .inMemory(["/m/pw-policy.conf": try ShippedConfigFile.text + "\n:\n"]),
                                  dialect: dialect)
        switch dialect {
        case .pipeWire0_3:
            #expect(throws: Never.self) { try loader.load() }
        case .pipeWire1_2:
            let error = try #require(throws: ConfigError.self) { try loader.load() }
            #expect(error.file == "/m/pw-policy.conf")
        }
    }
}
