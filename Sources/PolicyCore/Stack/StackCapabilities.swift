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

    /// How fades are done, and what the daemon would offer. Fades are
    /// stepped Props updates on every stack for now; the native ramps are a
    /// mechanism still to adopt (docs/PROTOCOL.md, `stack`), so status must not
    /// claim them.
    public var volumeRampsSummary: String {
        nativeVolumeRamps ? "fades: stepped (native volume ramps available, not yet used)"
            : "fades: stepped (no native volume ramps before PipeWire \(Self.nativeVolumeRampsSince))"
    }
}
