import Foundation
import Testing
@testable import PolicyCore

/// Apps as they really run on a desktop (Tests/PolicyCoreTests/Corpus/desktop.json;
/// docs/CLASSIFICATION.md, "Apps as they run on a desktop"): each stream with
/// only the properties its app sets, its process, the unit its launcher put
/// it in, the processes above it, its real desktop entry, and the other
/// streams of its process. Classified through the shipped config with the
/// desktop's knowledge, as the agent classifies it: at least 98% right.
@Suite struct DesktopCorpusTests {
    static let file = "desktop.json"

    /// Each entry is data a person can check, in the desktop's shape.
    @Test func entriesAreWellFormed() throws {
        let corpus = try CorpusFile.load(Self.file)
        let entries = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        var ids: Set<String> = []
        #expect(!corpus.about.isEmpty && corpus.streams.count >= 30)
        for stream in corpus.streams {
            #expect(ids.insert(stream.id).inserted, "duplicate id \(stream.id)")
            #expect(stream.source.hasPrefix("https://"), "\(stream.id): source \(stream.source)")
            #expect(stream.streamDirection != nil, "\(stream.id): direction \(stream.direction)")
            #expect(!stream.why.isEmpty && !stream.tool.isEmpty && !stream.family.isEmpty, "\(stream.id)")
            let app = try #require(stream.app, "\(stream.id): every entry carries what the desktop knows")
            #expect(!app.from.isEmpty && app.executable != nil, "\(stream.id)")
            #expect(app.cgroup != nil, "\(stream.id): the unit (or none) its process runs in")
            #expect(app.facts(node: stream.nodeProps, client: stream.client ?? [:], entries: entries) != nil, "\(stream.id)")
            for sibling in stream.alongside ?? [] {
                #expect(["playback", "capture"].contains(sibling.direction), "\(stream.id): \(sibling.direction)")
                #expect([nil, "running", "opening"].contains(sibling.state), "\(stream.id): \(sibling.state ?? "")")
            }
        }
    }

    /// The measurement: with the desktop's knowledge (as the agent has it)
    /// at least 98%; properties only, printed beside it.
    @Test func classifiesAppsAsTheyRunOnADesktop() throws {
        let corpus = try CorpusFile.load(Self.file)
        let classifier = try CorpusTests.shippedClassifier()
        let entries = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let withApps = CorpusScore(corpus.streams, classifier: classifier, entries: entries, label: "\(Self.file), with app facts")
        let properties = CorpusScore(corpus.streams, classifier: classifier, label: "\(Self.file), properties only")
        for score in [withApps, properties] {
            for line in score.report { print(line) }
            for line in UnseenCorpusTests.byFamily(corpus.streams, score) { print(line) }
        }
        #expect(withApps.right * 100 >= withApps.total * 98,
                "\(withApps.right)/\(withApps.total): \(withApps.misses.map(\.stream.id).joined(separator: ", "))")
    }

    /// The score can fail: every expectation turned to a category the
    /// classifier did not give scores nothing.
    @Test func aWrongExpectationIsAMiss() throws {
        let classifier = try CorpusTests.shippedClassifier()
        let entries = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let classified = CorpusScore(try CorpusFile.load(Self.file).streams, classifier: classifier, entries: entries).classified
        let flipped = classified.map { stream, got -> CorpusStream in
            var wrong = stream
            wrong.expect = .init(category: got.category == .ambient ? .record : .ambient)
            return wrong
        }
        let score = CorpusScore(flipped, classifier: classifier, entries: entries)
        #expect(score.right == 0 && score.misses.count == flipped.count)
    }
}
