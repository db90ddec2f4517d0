/// What the other streams of a stream's app instance do: an app is judged
/// once across its streams, as a person judges it (docs/CLASSIFICATION.md,
/// "One app instance, one judgement"). A call's playback and microphone
/// come from one process; a screen recorder captures what plays beside a
/// microphone or a screen cast. `makeStreamFacts` fills it from the graph.
public struct InstanceFacts: Sendable, Equatable, Hashable {
    /// A stream of the other direction that may be one side of a call,
    /// running or still opening: with it, the instance plays and captures.
    public var otherSide: InstanceStream?
    /// Another capture of the instance that is no monitor or meter (its
    /// microphone), running or opening.
    public var microphone: InstanceStream?
    /// A video capture of the instance: a screen cast it receives, a camera.
    public var video: InstanceStream?

    public init(otherSide: InstanceStream? = nil, microphone: InstanceStream? = nil, video: InstanceStream? = nil) {
        self.otherSide = otherSide; self.microphone = microphone; self.video = video
    }

    public static let alone = InstanceFacts()
}

/// One other stream of the instance, as the reasons name it.
public struct InstanceStream: Sendable, Equatable, Hashable {
    public enum Activity: String, Sendable, Equatable, Hashable {
        /// Its node runs: it plays or captures now.
        case running
        /// It was never seen running and the app did not stop it (a pulse
        /// client's `pulse.corked`): a call's other side while WirePlumber
        /// links it and the device starts.
        case opening
    }

    /// Its node id; nil where the caller knows no node (a unit test's "the
    /// app also captures").
    public var nodeID: UInt32?
    /// `media.name`, else `node.name`.
    public var name: String?
    public var direction: StreamDirection
    public var activity: Activity

    public init(nodeID: UInt32?, name: String?, direction: StreamDirection, activity: Activity) {
        self.nodeID = nodeID; self.name = name; self.direction = direction; self.activity = activity
    }

    /// `a running capture stream 51 "Chromium input"`, `a playback stream 50
    /// "Playback" still opening`.
    public var description: String {
        var text = direction == .playback ? "playback stream" : "capture stream"
        if let nodeID { text += " \(nodeID)" }
        if let name { text += " \"\(name)\"" }
        return activity == .running ? "a running \(text)" : "a \(text) still opening"
    }
}

extension InstanceFacts {
    /// The instance facts of every audio stream of `streams`, by node id.
    /// `ranBefore` holds the streams seen running on an earlier look: a
    /// stream that ran and stopped is no call's side any more, one that
    /// never ran is opening (a call's microphone opens a moment after its
    /// playback, or before it).
    static func of(_ streams: [InstanceMember], videoCaptures: [(nodeID: UInt32, instance: String, name: String?)],
                   ranBefore: (UInt32) -> Bool) -> [UInt32: InstanceFacts] {
        func activity(_ member: InstanceMember) -> InstanceStream.Activity? {
            if member.state == .running { return .running }
            if member.state == .error || member.corked || ranBefore(member.nodeID) { return nil }
            return .opening
        }
        // The live call sides of each instance, per direction, lowest node first.
        var sides: [String: [StreamDirection: [InstanceStream]]] = [:]
        for member in streams.sorted(by: { $0.nodeID < $1.nodeID }) where member.mayBeCallSide {
            guard let activity = activity(member) else { continue }
            sides[member.instance, default: [:]][member.direction, default: []].append(
                InstanceStream(nodeID: member.nodeID, name: member.name, direction: member.direction, activity: activity))
        }
        var video: [String: InstanceStream] = [:]
        for capture in videoCaptures.sorted(by: { $0.nodeID < $1.nodeID }) where video[capture.instance] == nil {
            video[capture.instance] = InstanceStream(nodeID: capture.nodeID, name: capture.name, direction: .capture,
                                                     activity: .running)
        }
        var facts: [UInt32: InstanceFacts] = [:]
        for member in streams {
            let other: StreamDirection = member.direction == .playback ? .capture : .playback
            let mine = sides[member.instance] ?? [:]
            // Running sides first: what plays now says most.
            let otherSides = (mine[other] ?? []).sorted { ($0.activity == .running ? 0 : 1) < ($1.activity == .running ? 0 : 1) }
            let microphones = (mine[.capture] ?? []).filter { $0.nodeID != member.nodeID }
            facts[member.nodeID] = InstanceFacts(otherSide: otherSides.first, microphone: microphones.first,
                                                 video: video[member.instance])
        }
        return facts
    }
}

/// A stream as its instance's facts read it.
struct InstanceMember {
    var nodeID: UInt32
    var instance: String
    var direction: StreamDirection
    var state: Graph.NodeState
    var name: String?
    /// The app stopped it (pipewire-pulse sets `pulse.corked` on a stream
    /// its client corked).
    var corked: Bool
    /// Not an event sound or a meter: a recorder's click or a mixer's level
    /// meter is no call's side.
    var mayBeCallSide: Bool
}
