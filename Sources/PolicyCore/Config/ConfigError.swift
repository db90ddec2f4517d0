/// A configuration problem, located in its file: `file:line:col: message`.
///
/// One pass reports every problem it can find; the first one is the error
/// itself and the rest ride along in `additionalErrors`, so the CLI can show
/// all of them while code that only needs one still has it.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the problem concerns the whole file (it cannot be read).
    public var line: Int
    public var column: Int
    public var message: String
    /// Further problems found in the same pass, in file order.
    public var additionalErrors: [ConfigError]

    public init(file: String, line: Int, column: Int, message: String, additionalErrors: [ConfigError] = []) {
        self.file = file; self.line = line; self.column = column
        self.message = message; self.additionalErrors = additionalErrors
    }

    public init(at position: SourcePosition, _ message: String) {
        self.init(file: position.file, line: position.line, column: position.column, message: message)
    }

    /// A problem with a whole file (missing, unreadable).
    public init(file: String, _ message: String) {
        self.init(file: file, line: 0, column: 0, message: message)
    }

    /// Several problems as one error; nil when there are none.
    public init?(collecting errors: [ConfigError]) {
        let flat = errors.flatMap(\.all)
        guard var first = flat.first else { return nil }
        first.additionalErrors = Array(flat.dropFirst())
        self = first
    }

    /// `file:line:col`, or just `file` when the problem has no place in it.
    public var location: String {
        line > 0 ? "\(file):\(line):\(column)" : file
    }

    /// This error and every additional one, each on its own.
    public var all: [ConfigError] {
        var head = self
        head.additionalErrors = []
        return [head] + additionalErrors.flatMap(\.all)
    }

    /// One line per problem.
    public var description: String {
        all.map { "\($0.location): \($0.message)" }.joined(separator: "\n")
    }
}
