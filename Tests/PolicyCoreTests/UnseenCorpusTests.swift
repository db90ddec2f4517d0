import Foundation
import Testing
@testable import PolicyCore

/// The blind measurement (docs/CLASSIFICATION.md): property sets of real apps that the rules
/// were never written against (Tests/PolicyCoreTests/Corpus/unseen.json, in
/// the form of streams.json), classified with the shipped config, properties
/// only and with the desktop's knowledge where the source shows it.
///
/// The figures are a measurement, not a tuned threshold: the test prints them
/// and every miss, and asserts only that the file is well formed and that
/// the figures were computed. Nothing in the rules, inference or the shipped
/// config was changed for these entries.
@Suite struct UnseenCorpusTests {
    /// The first blind set (its misses since gave two general rules, so it
    /// is blind no more) and the second (session 17, never used to change a rule).
    static let sets = ["unseen.json", "unseen-2.json"]

    /// Each entry is data a person can check, and none comes from a source
    /// the rules' corpus already uses.
    @Test(arguments: sets)
    func entriesAreWellFormedAndUnseen(_ file: String) throws {
        let unseen = try CorpusFile.load(file)
        let seen = try CorpusFile.load()
        let seenSources = Set(seen.streams.map(\.source))
        let seenIDs = Set(seen.streams.map(\.id))
        #expect(!unseen.about.isEmpty)
        #expect(unseen.streams.count >= 30)
        var ids: Set<String> = []
        for stream in unseen.streams {
            #expect(ids.insert(stream.id).inserted, "duplicate id \(stream.id)")
            #expect(!seenIDs.contains(stream.id), "\(stream.id) is also an id of streams.json")
            #expect(stream.source.hasPrefix("https://"), "\(stream.id): source \(stream.source)")
            #expect(!seenSources.contains(stream.source), "\(stream.id): streams.json already uses \(stream.source)")
            if stream.evidence == .source {
                #expect(stream.source.contains("/blob/") && stream.source.split(separator: "/").contains { $0.count == 40 },
                        "\(stream.id): a source entry names the commit it was read at")
            }
            #expect(stream.streamDirection != nil, "\(stream.id): direction \(stream.direction)")
            #expect(["shown", "name", "context"].contains(stream.directionFrom), "\(stream.id)")
            #expect(!(stream.node ?? [:]).isEmpty || !(stream.client ?? [:]).isEmpty, "\(stream.id): no properties")
            #expect(!stream.why.isEmpty && !stream.tool.isEmpty && !stream.family.isEmpty, "\(stream.id)")
            if let app = stream.app { #expect(!app.from.isEmpty, "\(stream.id): app facts without how the source shows them") }
        }
        if file == Self.sets[0] { #expect(unseen.streams.contains { $0.app != nil }) }
    }

    /// The measurement: prints the score properties only and with app
    /// facts, by evidence and by family, and every miss with what it got.
    @Test(arguments: sets)
    func measuresTheShippedConfigOnUnseenStreams(_ file: String) throws {
        let unseen = try CorpusFile.load(file)
        let classifier = try CorpusTests.shippedClassifier()
        let entries = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let properties = CorpusScore(unseen.streams, classifier: classifier, label: "\(file), properties only")
        let withApps = CorpusScore(unseen.streams, classifier: classifier, entries: entries,
                                   label: "\(file), with app facts")
        for score in [properties, withApps] {
            for line in score.report { print(line) }
            for line in Self.byFamily(unseen.streams, score) { print(line) }
        }
        let withFacts = unseen.streams.filter { $0.app != nil }
        print("unseen entries with app facts: \(withFacts.count) (\(withFacts.map(\.id).joined(separator: ", ")))")
        #expect(properties.total == unseen.streams.count && withApps.total == unseen.streams.count)
        #expect(properties.right + properties.misses.count == properties.total)
        #expect(withApps.right + withApps.misses.count == withApps.total)
    }

    static func byFamily(_ streams: [CorpusStream], _ score: CorpusScore) -> [String] {
        let missed = Dictionary(grouping: score.misses.map(\.stream), by: \.family).mapValues(\.count)
        return Dictionary(grouping: streams, by: \.family).keys.sorted().map { family in
            let total = streams.filter { $0.family == family }.count
            return "\(score.label) by family: \(family) \(total - missed[family, default: 0])/\(total)"
        }
    }
}
