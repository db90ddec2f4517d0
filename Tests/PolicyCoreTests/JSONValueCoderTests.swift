import Foundation
import PolicyCore
import Testing

/// The agent's own JSON coder writes what Foundation's JSONEncoder writes
/// (with `.sortedKeys`), and reads what it reads, so the CLI and the agent
/// understand each other (docs/PERFORMANCE.md, "Memory").
@Suite struct JSONValueCoderTests {
    struct Sample: Codable, Equatable {
        var text: String
        var numbers: [Double]
        var single: Float
        var count: Int
        var id: UInt32
        var flag: Bool
        var missing: String?
        var present: String?
        var byName: [String: Int]
        var byID: [UInt32: String]
        var nested: [[String: [Int]]]
    }

    static let sample = Sample(
        text: "a/b \"quoted\" \\ tab\t newline\n \u{1} \u{7f} é \u{2028} 🎵", numbers: [0, 1, -1, 0.25, 1e-7, 1e20, -0.0, 0.1, .leastNonzeroMagnitude],
        single: 0.1, count: -42, id: 4_000_000_000, flag: true, missing: nil, present: "here",
        byName: ["b": 1, "a10": 2, "a9": 3, "A1": 4, "_x": 5, "10": 7, "9": 8, "é": 9, "z": 10],
        byID: [1: "one", 20: "twenty"], nested: [["x": [1, 2]], [:]])

    static func foundation<T: Encodable>(_ value: T, slashes: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = slashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func writesWhatJSONEncoderWrites() throws {
        for slashes in [true, false] {
            let ours = try JSONValueEncoder.encode(Self.sample).text(escapingSlashes: slashes)
            #expect(ours == (try Self.foundation(Self.sample, slashes: slashes)))
        }
        let journal = AgentJournalTests.sample
        #expect(String(decoding: try journal.encoded(), as: UTF8.self) == (try Self.foundation(journal, slashes: true)))
    }

    @Test func readsWhatJSONEncoderWrites() throws {
        let text = try Self.foundation(Self.sample, slashes: true)
        #expect(try JSONValueDecoder.decode(Sample.self, from: text.utf8) == Self.sample)
        let journal = AgentJournalTests.sample
        let written = try JSONEncoder().encode(journal)
        #expect(try AgentJournal.decoded(from: written) == journal)
    }

    @Test func readsHandWrittenJSON() throws {
        let request = try JSONValueDecoder.decode(AppOverrideRequest.self,
                                                  from: #" { "category" : "ambient", "options": ["duck-others"], "x": [1, {"y": null}] } "#.utf8)
        #expect(request == AppOverrideRequest(category: "ambient", options: ["duck-others"]))
        #expect(try JSONValueDecoder.decode(String.self, from: #""\u00e9\ud83c\udfb5\/""#.utf8) == "é🎵/")
        #expect(try JSONValueDecoder.decode(Int.self, from: "5.0".utf8) == 5)
        // A trailing comma, which JSONDecoder accepts too.
        #expect(try JSONValueDecoder.decode([Int].self, from: "[1, ]".utf8) == [1])
        #expect(try JSONDecoder().decode([Int].self, from: Data("[1, ]".utf8)) == [1])
    }

    @Test func refusesWhatJSONDecoderRefuses() {
        let bad = ["", "{", "[,]", "[1,,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"\\ud800\"", "nul", "[1] 2", "\"a\nb\"",
                   String(repeating: "[", count: 10_000)]
        for text in bad {
            #expect(throws: (any Error).self, "\(text.prefix(20))") { try JSONValueDecoder.decode(JSONAny.self, from: text.utf8) }
            #expect(throws: (any Error).self, "\(text.prefix(20))") { try JSONDecoder().decode(JSONAny.self, from: Data(text.utf8)) }
        }
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(AppOverrideRequest.self, from: #"{"options": []}"#.utf8) }
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(UInt32.self, from: "-1".utf8) }
        #expect(throws: (any Error).self) { try JSONValueEncoder.encode([Double.nan]) }
    }

    /// Any JSON value at all.
    struct JSONAny: Decodable {
        init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                while !array.isAtEnd { _ = try array.decode(JSONAny.self) }
            } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
                for key in object.allKeys { _ = try object.decode(JSONAny.self, forKey: key) }
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() { return }
                if (try? single.decode(Bool.self)) != nil { return }
                if (try? single.decode(Double.self)) != nil { return }
                _ = try single.decode(String.self)
            }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
