/// What the agent knows of one stream it manages: the state it must restore
/// and the state it uses to tell its own changes from everyone else's. A
/// stream with an entry is known (a change of its gain fades); one without
/// is new (it goes straight to its gain).
public struct AppliedStream: Sendable, Equatable, Codable {
    // Members in key order, as the journal's text sorts them: hundreds of
    // streams are written straight through before every reaction
    // (JSONTextEncoder; JSONTextEncoderTests check the order).

    /// The gain we last set, when, and whether the daemon has reported it
    /// back yet.
    public var commandedAt: Double
    public var commandedGain: Double?
    public var confirmed: Bool
    /// We unlinked it (a hold); it must be relinked when released.
    public var held: Bool
    /// The node it was linked to when we unlinked it — held, or kept from its
    /// output by the start gate (its sink, or source for a capture stream):
    /// where we link it back if that still exists.
    public var heldFrom: UInt32?
    /// A native ramp we sent may run in the client until `rampRunsUntil`,
    /// `rampLength` of it while the stream runs: the client ignores a new
    /// ramp and overwrites a plain `volume` meanwhile (FadePacing).
    /// `landing` is the gain to send plainly once it is over.
    public var landing: Double?
    /// A later command to another stream of the same client was reported
    /// back before this one: a client reports its streams' Props in the
    /// order it got the commands, so this one was lost and is sent again
    /// without waiting for the confirmation timeout (`sentAgainEarly`).
    /// Optional: journals written before it read as not.
    public var overtaken: Bool?
    /// A fade in progress.
    public var ramp: GainRamp?
    /// See `landing`.
    public var rampLength: Double?
    public var rampRunsUntil: Double?
    /// The node's `propsReports` when the command was sent: a later report
    /// louder than the command, outside a fade, means someone overwrote it
    /// (WirePlumber restoring a saved volume to a new stream in the same
    /// moment): it counts as overtaken, and is sent again at once rather
    /// than after the timeout, while the stream may already play.
    public var reportsWhenCommanded: Int?
    /// We asked WirePlumber to move it there (target.object serial).
    public var routedTo: UInt64?
    /// It was overtaken and sent again, and until it is reported back (or
    /// another gain is sent) only the timeout sends it again — a stream that
    /// never reports our gain must not be sent it at every step of its
    /// siblings' fades (docs/POLICY.md, "Lost commands"). Optional: journals
    /// written before it read as not.
    public var sentAgainEarly: Bool?
    /// `object.serial`: node ids are reused, serials are not.
    public var serial: UInt64?
    /// Where the stream stands at the start gate (StartGate); nil: not
    /// started, nothing to pass yet.
    public var startGate: StartGate.Progress?
    /// When we last sent the held stream `Suspend`, and since when it has
    /// had no links (optional: journals written before them read as never).
    public var suspendedAt: Double?
    public var unlinkedSince: Double?

    public init(serial: UInt64?, commandedGain: Double? = nil, commandedAt: Double = 0, confirmed: Bool = true,
                held: Bool = false, ramp: GainRamp? = nil, routedTo: UInt64? = nil) {
        self.serial = serial; self.commandedGain = commandedGain; self.commandedAt = commandedAt
        self.confirmed = confirmed; self.held = held; self.ramp = ramp; self.routedTo = routedTo
    }

    /// Whether anything of ours remains on the stream.
    public var isNeutral: Bool {
        !held && heldFrom == nil && (commandedGain ?? 1) == 1 && ramp == nil && rampRunsUntil == nil
    }
}
