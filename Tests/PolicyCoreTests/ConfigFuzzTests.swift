import Testing
@testable import PolicyCore

/// Random and mutated inputs, with fixed seeds so a failure can be replayed:
/// nothing may crash, every error must point inside its input, whatever
/// parses must render and read back the same, and the parser must agree
/// with libspa on everything it accepts. Both SPA-JSON dialects are fuzzed;
/// the comparison with libspa runs in the dialect of the libspa compiled in
/// (`LibspaReader.dialect`, see SPAJSONCrossCheckTests).
@Suite struct ConfigFuzzTests {
    /// SplitMix64: small, fast and the same on every platform.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    /// Pieces that reach the parser's interesting states far more often than
    /// uniform bytes would.
    static let pieces: [[UInt8]] = [
        "{", "}", "[", "]", "\"", "\\", "=", ":", ",", " ", "\n", "\r", "\t", "#", "a", "key", "1", "-2.5e3", ".5",
        "null", "true", "false", "~^x$", "\\u00e9", "\\ud83d", "\\ude00", "\\u0000", "\\n", "é", "😀", "override.",
        "duck.level", "0x10",
    ].map { Array($0.utf8) } + [[0], [0x7F], [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xFF], [0x01]]

    static func randomInput(_ random: inout Random) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<random.below(40) {
            if random.below(8) == 0 {
                bytes.append(UInt8(truncatingIfNeeded: random.next()))
            } else {
                bytes += random.pick(pieces)
            }
        }
        return bytes
    }

    /// Checks what every parse must satisfy, returning the problem if any.
    static func check(_ bytes: [UInt8], dialect: SPAJSONDialect) -> String? {
        let lineCount = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        do {
            let document = try SPAJSONParser.parseDocument(bytes: bytes, file: "fuzz", dialect: dialect)
            // What we write must read back the same in every dialect.
            let rendered = ConfigRenderer.spaJSON(document)
            let json = ConfigRenderer.json(document)
            for readBack in SPAJSONDialect.allCases {
                guard let reparsed = try? SPAJSONParser.parseDocument(rendered, file: "rendered", dialect: readBack),
                      reparsed.hasSameContent(as: document)
                else { return "rendering does not read back in \(readBack): \(rendered.debugDescription)" }
                guard let reparsed = try? SPAJSONParser.parseDocument(json, file: "json", dialect: readBack),
                      reparsed.hasSameContent(as: document)
                else { return "JSON rendering does not read back in \(readBack)" }
            }
            guard dialect == LibspaReader.dialect else { return nil }
            // A trailing newline keeps libspa 0.3 from returning a final comment as a token.
            guard let theirs = LibspaReader.readDocument(bytes + [UInt8(ascii: "\n")]) else {
                return "libspa rejects what we read as \(LibspaReading(document))"
            }
            guard LibspaReading(document) ~= theirs else {
                return "libspa reads \(theirs), we read \(LibspaReading(document))"
            }
            _ = try? ConfigDecoder().decode(document)
        } catch {
            guard (1...lineCount).contains(error.line), error.column >= 1, !error.message.isEmpty else {
                return "error outside the input: \(error)"
            }
        }
        return nil
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func randomInputsNeverCrashAndAgreeWithLibspa(dialect: SPAJSONDialect) {
        var random = Random(state: 0x5EED_0001)
        var accepted = 0
        for iteration in 0..<4000 {
            let input = Self.randomInput(&random)
            if let problem = Self.check(input, dialect: dialect) {
                Issue.record("iteration \(iteration), input \(input): \(problem)")
                return
            }
            if (try? SPAJSONParser.parseDocument(bytes: input, file: "f", dialect: dialect)) != nil { accepted += 1 }
        }
        // The generator must reach both outcomes, or the test checks little.
        #expect(accepted > 100)
        #expect(accepted < 3900)
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func uniformRandomBytesNeverCrash(dialect: SPAJSONDialect) {
        var random = Random(state: 0x5EED_0002)
        for iteration in 0..<2000 {
            let input = (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if let problem = Self.check(input, dialect: dialect) {
                Issue.record("iteration \(iteration), input \(input): \(problem)")
                return
            }
        }
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func mutationsOfTheShippedConfigNeverCrash(dialect: SPAJSONDialect) throws {
        let original = Array(try ShippedConfigFile.text.utf8)
        var random = Random(state: 0x5EED_0003)
        var outcomes = (loaded: 0, parseErrors: 0, validationErrors: 0)
        for iteration in 0..<400 {
            var bytes = original
            for _ in 0...random.below(3) {
                let position = random.below(bytes.count)
                switch random.below(4) {
                case 0: bytes.remove(at: position)
                case 1: bytes.insert(contentsOf: random.pick(Self.pieces), at: position)
                case 2: bytes[position] = random.pick(Self.pieces).first ?? 0
                default:
                    let other = random.below(bytes.count)
                    bytes.swapAt(position, other)
                }
            }
            if let problem = Self.check(bytes, dialect: dialect) {
                Issue.record("iteration \(iteration): \(problem)")
                return
            }
            let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": "/m"],
                                      fileSystem: .inMemory(["/m/pw-policy.conf": String(decoding: bytes, as: UTF8.self)]),
                                      dialect: dialect)
            do {
                _ = try loader.load()
                outcomes.loaded += 1
            } catch {
                for each in error.all {
                    #expect(each.file == "/m/pw-policy.conf" && each.line >= 1 && each.column >= 1, "\(each)")
                }
                if (try? SPAJSONParser.parseDocument(bytes: bytes, file: "x", dialect: dialect)) == nil {
                    outcomes.parseErrors += 1
                } else {
                    outcomes.validationErrors += 1
                }
            }
        }
        // Mutations must exercise the parser's and the decoder's errors, and
        // many (comments, whitespace) change nothing.
        #expect(outcomes.loaded > 0)
        #expect(outcomes.parseErrors > 0)
        #expect(outcomes.validationErrors > 0)
    }

    @Test(arguments: SPAJSONDialect.allCases)
    func randomFragmentsMergeWithoutCrashing(dialect: SPAJSONDialect) throws {
        let base = try SPAJSONParser.parseDocument(try ShippedConfigFile.text, file: "base", dialect: dialect)
        var random = Random(state: 0x5EED_0004)
        var decoded = 0
        for _ in 0..<1500 {
            let bytes = Self.randomInput(&random)
            guard let fragment = try? SPAJSONParser.parseDocument(bytes: bytes, file: "frag", dialect: dialect) else { continue }
            guard let merged = ConfigMerge.merge([base, fragment]) else {
                Issue.record("merge of two documents gave nothing")
                return
            }
            // Merging the same fragment again adds no new sections.
            let again = ConfigMerge.merge(fragment, into: merged)
            #expect(again.members?.count == merged.members?.count)
            if (try? ConfigDecoder().decode(merged)) != nil { decoded += 1 }
        }
        #expect(decoded > 0)
    }
}
