/// What the desktop's Do Not Disturb mechanisms say now, combined: on when
/// any source that answered says so (docs/POLICY.md, "Do Not Disturb").
public struct DoNotDisturb: Sendable, Equatable {
    /// What was read from one source.
    public enum Reading: Sendable, Equatable {
        /// Its value, as text (a boolean as `true`/`false`, numbers in
        /// decimal, strings as they are).
        case value(String)
        /// Not there: the bus name has no owner, the schema is not
        /// installed. Says nothing about Do Not Disturb.
        case absent
        /// There but unusable: a value of the wrong type, no reply. Says
        /// nothing either; the adapter logs it once.
        case unusable(String)
    }

    /// The sources saying "do not disturb" now, by name, in source order.
    public var onIn: [String]
    /// The sources that answered with a value, on or off.
    public var answering: [String]

    public init(onIn: [String] = [], answering: [String] = []) {
        self.onIn = onIn; self.answering = answering
    }

    /// Nothing is known: no source answered (no desktop mechanism, or not
    /// read yet).
    public static let unknown = DoNotDisturb()

    public var isOn: Bool { !onIn.isEmpty }
    /// Whether any source answered: only then can Do Not Disturb change.
    public var isKnown: Bool { !answering.isEmpty }

    public static func combine(_ sources: [DoNotDisturbSource], readings: [DoNotDisturbSource: Reading]) -> DoNotDisturb {
        var state = DoNotDisturb()
        for source in sources {
            guard case .value(let value) = readings[source] else { continue }
            state.answering.append(source.name)
            if value == source.doNotDisturbValue { state.onIn.append(source.name) }
        }
        return state
    }

    /// For status: "on in dunst", "off (GNOME, dunst)", "no desktop
    /// mechanism answers".
    public var summary: String {
        if isOn { return "on in " + onIn.joined(separator: ", ") }
        if isKnown { return "off (" + answering.joined(separator: ", ") + ")" }
        return "no desktop mechanism answers"
    }
}
