import PolicyModel

/// The mechanisms a stack offers, decided once from its versions so that the
/// code using them asks this value rather than comparing versions itself
/// (docs/PROTOCOL.md, `stack.capabilities`).
public struct StackCapabilities: Sendable, Equatable, Codable {
    /// Props `volumeRampSamples`/`volumeRampTime`/… sent with `volume` make
    /// the stream's audioconvert fade by itself; without them fades are
    /// stepped Props updates on a loop timer (README, "How it works").
    public var nativeVolumeRamps: Bool

    /// The first PipeWire with the volume-ramp props.
    public static let nativeVolumeRampsSince = SemanticVersion(0, 3, 68)

    public init(nativeVolumeRamps: Bool) {
        self.nativeVolumeRamps = nativeVolumeRamps
    }

    /// An unknown version gets what every version has.
    public init(pipewire: SemanticVersion?) {
        nativeVolumeRamps = pipewire.map { $0 >= Self.nativeVolumeRampsSince } ?? false
    }

    /// Whether a stream's client can run native ramps: they run in the
    /// client's own libpipewire (its audioconvert), so its version decides,
    /// not the daemon's — a Flatpak runtime may be older. A client that does
    /// not say (`core.version`) gets steps.
    public static func hasNativeVolumeRamps(client: Graph.Client?) -> Bool {
        guard let version = client?.coreVersion else { return false }
        return version >= nativeVolumeRampsSince
    }

    /// WirePlumber 0.4 takes a correction of any stream's saved values from
    /// `route-settings`; 0.5 only of the event sounds' key. An unknown
    /// WirePlumber counts as the generation that ships with the daemon
    /// (PipeWire 1.x with 0.5).
    public static func wirePlumberReadsRouteSettingsForEveryStream(wirePlumber: SemanticVersion?,
                                                                    pipewire: SemanticVersion?) -> Bool {
        let generation = wirePlumber ?? (pipewire.map { $0.major >= 1 } == true ? SemanticVersion(0, 5) : SemanticVersion(0, 4))
        return generation < SemanticVersion(0, 5)
    }

    /// From 0.5.15 on, WirePlumber's state-stream names a stream by its
    /// `media.role` only when that is `Notification`.
    public static let wirePlumberKeysByRoleOnlyForNotificationsSince = SemanticVersion(0, 5, 15)

    public static func wirePlumberKeysByRoleOnlyForNotifications(_ wirePlumber: SemanticVersion?) -> Bool {
        wirePlumber.map { $0 >= wirePlumberKeysByRoleOnlyForNotificationsSince } ?? false
    }

    /// How fades are done (docs/PROTOCOL.md, `stack`).
    public var volumeRampsSummary: String {
        nativeVolumeRamps ? "fades: native ramps (steps for clients older than PipeWire \(Self.nativeVolumeRampsSince))"
            : "fades: stepped (no native volume ramps before PipeWire \(Self.nativeVolumeRampsSince))"
    }
}
