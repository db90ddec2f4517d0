/// Which libspa tokenizer `SPAJSONParser` reads like. PipeWire's config
/// readers are libspa's `spa_json_next`, and its rules changed once, in
/// PipeWire 1.1.81 (the first development release towards 1.2.0): a file
/// must mean to pw-policy what it would mean to the PipeWire installed beside
/// it, so the agent and `check-config` pick the dialect from the libpipewire
/// they run with. docs/CONFIG.md ("SPA-JSON dialects") has the table of
/// differences and the PipeWire commits behind each.
public enum SPAJSONDialect: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// PipeWire 0.3.x and 1.0.x (Debian 12 has 0.3.65): `:` `=` `,` are
    /// whitespace everywhere, an unquoted word runs until whitespace or one of
    /// `: , = ] }` and may hold any byte, DEL is refused in strings.
    case pipeWire0_3
    /// PipeWire 1.1.81 and later (1.2, 1.4, 1.6): `:` and `=` only between a
    /// key and its value; an unquoted word is printable ASCII without `\` and
    /// also ends at `"`, `#` and NUL; DEL is allowed in strings.
    case pipeWire1_2

    /// The first release whose libspa reads the `pipeWire1_2` way (the
    /// commits 31e5823, 921c8b9, 11e20ef and 3775e4e, March 2024).
    public static let pipeWire1_2Since = SemanticVersion(1, 1, 81)

    /// The dialect of the PipeWire a caller says is installed.
    public init(pipeWire version: SemanticVersion) {
        self = version >= Self.pipeWire1_2Since ? .pipeWire1_2 : .pipeWire0_3
    }

    /// What callers that do not say get: the dialect of the PipeWire this
    /// project targets (Debian 12's 0.3.65), so code that never asks keeps
    /// reading as it always has. The agent and the CLI never rely on it: they
    /// pass the dialect of the libpipewire they are linked with.
    public static let `default`: SPAJSONDialect = .pipeWire0_3

    public var description: String {
        switch self {
        case .pipeWire0_3: "PipeWire 0.3–1.0"
        case .pipeWire1_2: "PipeWire 1.2 and later"
        }
    }
}
