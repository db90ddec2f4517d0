/// Which of the agent's meters meters which stream (docs/POLICY.md,
/// "Ducking while audible"). A meter is a node of the agent's own; making
/// one is a node and a port for the daemon to create, for every client to
/// hear of, and for the meter's first sound to wait for. So meters are made
/// as streams need them and kept: one a stream no longer needs goes to the
/// next stream, once nothing is linked to it any more (until then it could
/// still hear the stream it had). Beyond `keptFree` free meters, the newest
/// are retired.
///
/// One meter per stream, not one node with a port per stream: PipeWire
/// schedules every node reachable over links, passive ones too, under one
/// driver, so a node linked to streams on two devices would tie the two
/// devices' graphs together.
public struct MeterPool: Sendable, Equatable {
    /// Free meters kept for the next streams: a screen reader and a prompt.
    public static let keptFree = 2

    /// The stream each meter meters, by meter number; nil: free.
    public private(set) var meters: [Int: UInt32?] = [:]
    private var nextNumber = 0

    public init() {}

    /// What a call to `assign` asks of the adapter.
    public struct Changes: Sendable, Equatable {
        /// Meters to make, by number.
        public var make: [Int] = []
        /// Meters that start on a stream (new ones included): what they
        /// measured before is forgotten.
        public var restart: [Int: UInt32] = [:]
        /// Meters to destroy.
        public var retire: [Int] = []
        public init(make: [Int] = [], restart: [Int: UInt32] = [:], retire: [Int] = []) {
            self.make = make; self.restart = restart; self.retire = retire
        }
    }

    /// The meter of each stream metered.
    public var streams: [UInt32: Int] {
        var streams: [UInt32: Int] = [:]
        for (number, stream) in meters { if let stream { streams[stream] = number } }
        return streams
    }

    /// Meters exactly `wanted`: a stream no longer wanted frees its meter;
    /// a new one takes the oldest free meter nothing is `linked` to (by
    /// number), else a new meter.
    public mutating func assign(_ wanted: Set<UInt32>, linked: Set<Int>) -> Changes {
        var changes = Changes()
        for (number, stream) in meters {
            if let stream, !wanted.contains(stream) { meters[number] = .some(nil) }
        }
        let metered = Set(streams.keys)
        for stream in wanted.subtracting(metered).sorted() {
            let free = meters.filter { $0.value == nil && !linked.contains($0.key) }.keys.min()
            let number: Int
            if let free {
                number = free
            } else {
                number = nextNumber
                nextNumber += 1
                changes.make.append(number)
            }
            meters[number] = stream
            changes.restart[number] = stream
        }
        let free = meters.filter { $0.value == nil }.keys.sorted()
        for number in free.dropFirst(Self.keptFree) {
            meters[number] = nil
            changes.retire.append(number)
        }
        return changes
    }

    /// A meter that failed (its node went into error): it is retired.
    public mutating func retire(_ number: Int) {
        meters[number] = nil
    }
}
