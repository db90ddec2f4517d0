import Foundation
import Testing
@testable import PolicyCore

/// One stream of the real-world corpus (Tests/PolicyCoreTests/Corpus/streams.json,
/// described in docs/CLASSIFICATION.md, "The real-world corpus").
struct CorpusStream: Decodable, Sendable {
    struct Expectation: Decodable, Sendable {
        var category: Category
        var options: [PolicyOption]?
        var mode: AudioMode?
    }

    /// What the source is (docs/CLASSIFICATION.md, "The real-world corpus").
    enum Evidence: String, Decodable, Sendable, CaseIterable {
        /// A listing a tool printed on someone's machine (pactl, pw-dump, a log).
        case listing
        /// Properties quoted in a report's or maintainer's words.
        case report
        /// What the app's (or its audio library's) source code sets.
        case source
    }

    var id: String
    var family: String
    var source: String
    var tool: String
    var evidence: Evidence
    var direction: String
    var directionFrom: String
    var node: [String: String]?
    var client: [String: String]?
    var expect: Expectation
    var why: String
    /// What the desktop knows of the app, where the source establishes it
    /// (docs/CLASSIFICATION.md, "App knowledge"); nil: properties only.
    var app: CorpusApp?
    /// The stream's state: `running` (when absent) or `opening` (never
    /// ran yet: WirePlumber links it, the device starts).
    var state: String?
    /// The other streams of the same process (a call's microphone beside
    /// its playback, a recorder's microphone beside its desktop capture),
    /// which the classifier sees as the agent does: one judgement per app
    /// instance (docs/CLASSIFICATION.md, "One app instance, one judgement").
    var alongside: [CorpusSibling]?

    var streamDirection: StreamDirection? {
        switch direction {
        case "playback": .playback
        case "capture": .capture
        default: nil
        }
    }

    /// The node as PipeWire has it: every stream node carries a media.class,
    /// even where the source (an old `pactl` listing) did not show it.
    var nodeProps: [String: String] {
        var props = node ?? [:]
        if props["media.class"] == nil {
            props["media.class"] = streamDirection == .capture ? "Stream/Input/Audio" : "Stream/Output/Audio"
        }
        return props
    }

    /// Whether `classification` is what a person chose: the category, and the
    /// options and mode where the entry names them.
    func isRight(_ classification: Classification) -> Bool {
        guard classification.category == expect.category else { return false }
        if let options = expect.options, Set(options) != classification.options { return false }
        if let mode = expect.mode, mode != classification.mode { return false }
        return true
    }

    var expected: String {
        Classifier.describe(expect.category, Set(expect.options ?? []), expect.mode ?? .default)
    }

    /// What the streams alongside it make of its app instance: the graph a
    /// desktop would show (one client of one process), through the same
    /// `makeStreamFacts` as the agent.
    var instanceFacts: InstanceFacts {
        guard let alongside, !alongside.isEmpty else { return .alone }
        var graph = Graph()
        var clientProps = client ?? [:]
        if clientProps["application.process.id"] == nil && nodeProps["application.process.id"] == nil {
            clientProps["application.process.id"] = "4242"
        }
        graph.clients[1] = Graph.Client(id: 1, props: clientProps)
        func add(_ id: UInt32, _ props: [String: String], _ state: String?) {
            var all = props
            all["client.id"] = "1"
            graph.nodes[id] = Graph.Node(id: id, props: all, state: state == "opening" ? .idle : .running)
        }
        add(10, nodeProps, state)
        for (offset, sibling) in alongside.enumerated() { add(UInt32(11 + offset), sibling.nodeProps, sibling.state) }
        return makeStreamFacts(graph: graph, overrides: .empty).first { $0.nodeID == 10 }?.instance ?? .alone
    }
}

/// Another stream of a corpus entry's process.
struct CorpusSibling: Decodable, Sendable {
    var direction: String
    var node: [String: String]?
    var state: String?

    var nodeProps: [String: String] {
        var props = node ?? [:]
        if props["media.class"] == nil {
            props["media.class"] = direction == "capture" ? "Stream/Input/Audio" : "Stream/Output/Audio"
        }
        return props
    }
}

/// An entry's app facts: the process as the adapter would read it, and how
/// the source establishes them (`from`).
struct CorpusApp: Decodable, Sendable {
    var executable: String?
    var arguments: [String]?
    var environment: [String: String]?
    var cgroup: String?
    /// Ancestors' command lines, parent first.
    var ancestors: [[String]]?
    var from: String

    func facts(node: [String: String], client: [String: String], entries: DesktopEntryIndex) -> AppFacts? {
        let process = ProcessFacts(executable: executable, arguments: arguments ?? [], environment: environment ?? [:],
                                   cgroup: cgroup)
        let parents = (ancestors ?? []).map { AncestorFacts(executable: $0.first.map(DesktopExec.basename), arguments: $0) }
        return AppFacts.resolve(nodeProps: node, clientProps: client, process: process, ancestors: parents, entries: entries)
    }
}

struct CorpusFile: Decodable {
    var about: String
    var streams: [CorpusStream]

    static func load(_ name: String = "streams.json") throws -> CorpusFile {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Corpus/\(name)")
        return try JSONDecoder().decode(CorpusFile.self, from: Data(contentsOf: url))
    }
}

/// The corpus classified by one classifier: what it got right and every miss.
struct CorpusScore {
    var total: Int
    var counts: [CorpusStream.Evidence: Int]
    var misses: [(stream: CorpusStream, got: Classification)]
    /// Every entry with what it got, in order.
    var classified: [(stream: CorpusStream, got: Classification)]
    var right: Int { total - misses.count }
    /// Percent right, to one decimal.
    var percent: Double { total == 0 ? 0 : (Double(right) * 1000 / Double(total)).rounded() / 10 }

    var label = "corpus"

    /// `entries`: classify with each entry's app facts resolved against
    /// these desktop entries; nil: properties only.
    init(_ streams: [CorpusStream], classifier: Classifier, entries: DesktopEntryIndex? = nil, label: String = "corpus") {
        self.label = label
        total = streams.count
        counts = Dictionary(grouping: streams, by: \.evidence).mapValues(\.count)
        misses = []
        classified = []
        for (index, stream) in streams.enumerated() {
            let got: Classification
            if let notStream = Self.notAStream(stream) {
                got = notStream
            } else {
                let app = entries.flatMap { stream.app?.facts(node: stream.nodeProps, client: stream.client ?? [:], entries: $0) }
                let facts = StreamFacts(nodeID: UInt32(index + 1), direction: stream.streamDirection ?? .playback,
                                        nodeProps: stream.nodeProps, clientProps: stream.client ?? [:],
                                        instance: stream.instanceFacts, app: app)
                got = classifier.classify(facts)
            }
            classified.append((stream, got))
            if !stream.isRight(got) { misses.append((stream, got)) }
        }
    }

    /// A node of a device's class (an app's virtual sink or source, such as
    /// a VR runtime's): the agent manages only `Stream/Output/Audio` and
    /// `Stream/Input/Audio` nodes (`Graph.streams`) and leaves it alone, as
    /// it does audio-processing streams; so it is measured as that.
    static func notAStream(_ stream: CorpusStream) -> Classification? {
        guard Graph.Node(id: 1, props: stream.nodeProps).streamDirection == nil else { return nil }
        return Classification(category: .audioProcessing, source: .inference,
                              reason: "not a stream (media.class = \"\(stream.nodeProps["media.class"] ?? "")\"): the agent leaves it alone")
    }

    var report: [String] {
        let byEvidence = CorpusStream.Evidence.allCases.map { evidence in
            let missed = misses.filter { $0.stream.evidence == evidence }.count
            return "\(evidence.rawValue) \(counts[evidence, default: 0] - missed)/\(counts[evidence, default: 0])"
        }
        return ["\(label): \(right)/\(total) right (\(percent)%); by evidence: \(byEvidence.joined(separator: ", "))"]
            + misses.map { miss in
                let got = Classifier.describe(miss.got.category, miss.got.options, miss.got.mode)
                return "\(label) miss: \(miss.stream.id) [\(miss.stream.family)]: expected \(miss.stream.expected), "
                    + "got \(got): \(miss.got.reason) (\(miss.stream.source))"
            }
    }
}

@Suite struct CorpusTests {
    static func shippedClassifier() throws -> Classifier {
        let config = try ConfigLoader(environment: [:], fileSystem: .live).load(file: ShippedConfigFile.path).config
        return try Classifier(config: config)
    }

    /// The whole corpus through the real classifier and the shipped
    /// conf/pw-policy.conf: at least 95% right. Prints the score and
    /// every miss; docs/CLASSIFICATION.md explains the misses that remain.
    @Test func shippedConfigClassifiesTheCorpus() throws {
        let corpus = try CorpusFile.load()
        let score = CorpusScore(corpus.streams, classifier: try Self.shippedClassifier())
        for line in score.report { print(line) }
        #expect(score.total > 0)
        #expect(score.right * 100 >= score.total * 95,
                "\(score.right)/\(score.total) right: \(score.misses.map(\.stream.id).joined(separator: ", "))")
    }

    /// The same corpus with the desktop's knowledge of the app where the
    /// source establishes it (an entry's `app`): at least 98%.
    @Test func appKnowledgeClassifiesTheCorpus() throws {
        let corpus = try CorpusFile.load()
        let entries = DesktopEntryIndex(try DesktopEntryFixtures.indexEntries())
        let score = CorpusScore(corpus.streams, classifier: try Self.shippedClassifier(), entries: entries,
                                label: "corpus with app knowledge")
        for line in score.report { print(line) }
        #expect(corpus.streams.contains { $0.app != nil })
        #expect(score.right * 100 >= score.total * 98,
                "\(score.right)/\(score.total) right: \(score.misses.map(\.stream.id).joined(separator: ", "))")
    }

    /// `pw-policy explain` prints the reason: it names the rule (with its
    /// place in the file) or the table entry that decided.
    @Test func reasonsNameWhatDecided() throws {
        let classifier = try Self.shippedClassifier()
        let streams = Dictionary(uniqueKeysWithValues: try CorpusFile.load().streams.map { ($0.id, $0) })
        func reason(_ id: String) throws -> String {
            let stream = try #require(streams[id])
            return classifier.classify(StreamFacts(nodeID: 1, direction: stream.streamDirection ?? .playback,
                                                   nodeProps: stream.nodeProps, clientProps: stream.client ?? [:])).reason
        }
        let qt = try reason("rssguard-qtpulseaudio")
        #expect(qt.hasPrefix("rule #3 at \(ShippedConfigFile.path):"), "\(qt)")
        #expect(qt.contains(#"application.name = "QtPulseAudio:3834""#) && qt.hasSuffix("→ system-sound"), "\(qt)")
        let obs = try reason("obs-production-capture")
        #expect(obs.hasPrefix("rule #2 at \(ShippedConfigFile.path):") && obs.hasSuffix("→ record"), "\(obs)")
        let zoom = try reason("zoom-native-voiceengine-sink-input")
        #expect(zoom.hasPrefix("rule #4 at \(ShippedConfigFile.path):") && zoom.hasSuffix("→ play-and-record"), "\(zoom)")
        #expect(try reason("mumble-speakers-role-game").contains("(known VoIP app"), "a role refined by the app names both")
        #expect(try reason("vrchat-wine-voice-capture") == #"application.process.binary = "wine64-preloader" "#
            + "(known game runtime), capturing: in-game voice chat → play-and-record")
        #expect(try reason("ryujinx-sdl-application")
            == #"application.name = "SDL Application" (known game runtime: sdl-application) → solo-ambient"#)
    }

    /// Each entry is data a person can check: a public source, a direction,
    /// an expectation and a reason.
    @Test func entriesAreWellFormed() throws {
        let corpus = try CorpusFile.load()
        var ids: Set<String> = []
        for stream in corpus.streams {
            #expect(ids.insert(stream.id).inserted, "duplicate id \(stream.id)")
            #expect(stream.source.hasPrefix("https://"), "\(stream.id): source \(stream.source)")
            #expect(stream.streamDirection != nil, "\(stream.id): direction \(stream.direction)")
            #expect(["shown", "name", "context"].contains(stream.directionFrom), "\(stream.id)")
            #expect(!(stream.node ?? [:]).isEmpty || !(stream.client ?? [:]).isEmpty, "\(stream.id): no properties")
            #expect(!stream.why.isEmpty && !stream.tool.isEmpty && !stream.family.isEmpty, "\(stream.id)")
        }
    }

    /// The score can fail: the same corpus with every expectation turned to a
    /// category the classifier did not give scores nothing.
    @Test func aWrongExpectationIsAMiss() throws {
        let classifier = try Self.shippedClassifier()
        let flipped = try CorpusFile.load().streams.map { stream -> CorpusStream in
            var wrong = stream
            let got = classifier.classify(StreamFacts(nodeID: 1, direction: stream.streamDirection ?? .playback,
                                                      nodeProps: stream.nodeProps, clientProps: stream.client ?? [:]))
            wrong.expect = .init(category: got.category == .ambient ? .record : .ambient)
            return wrong
        }
        let score = CorpusScore(flipped, classifier: classifier)
        #expect(score.right == 0)
        #expect(score.misses.count == flipped.count)
    }
}
