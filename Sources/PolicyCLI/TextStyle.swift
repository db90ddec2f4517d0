/// Colours for terminal output: only on a terminal, never with `NO_COLOR`
/// (https://no-color.org), `TERM=dumb` or `-N/--no-color`.
public struct TextStyle: Sendable, Equatable {
    public var isColored: Bool

    public init(isColored: Bool) { self.isColored = isColored }

    public static let plain = TextStyle(isColored: false)

    public static func decide(isTerminal: Bool, environment: [String: String], noColorFlag: Bool) -> TextStyle {
        if noColorFlag || !isTerminal { return .plain }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .plain }
        if environment["TERM"] == "dumb" { return .plain }
        return TextStyle(isColored: true)
    }

    public func bold(_ text: String) -> String { wrap(text, "1") }
    public func dim(_ text: String) -> String { wrap(text, "2") }
    public func red(_ text: String) -> String { wrap(text, "31") }
    public func green(_ text: String) -> String { wrap(text, "32") }
    public func yellow(_ text: String) -> String { wrap(text, "33") }
    public func magenta(_ text: String) -> String { wrap(text, "35") }
    public func cyan(_ text: String) -> String { wrap(text, "36") }

    public func effect(_ effect: PolicyEffect) -> String {
        let text = "[\(effect.text)]"
        switch effect.severity {
        case .held: return red(text)
        case .silenced: return magenta(text)
        case .ducked: return yellow(text)
        case .note: return dim(text)
        }
    }

    private func wrap(_ text: String, _ code: String) -> String {
        isColored && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
