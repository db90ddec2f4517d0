/// Where something was written in a configuration file (1-based line and
/// column; columns count characters, not bytes).
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file; self.line = line; self.column = column
    }

    /// `file:line:column`, the prefix of every config error.
    public var description: String { "\(file):\(line):\(column)" }

    /// `file:line`, the origin shown by `explain` for rules.
    public var fileAndLine: String { "\(file):\(line)" }
}

/// A value of PipeWire's relaxed JSON (SPA-JSON), with the place it was
/// written so every later check can point at it.
///
/// Objects keep their members in source order, duplicates included: merging
/// and validation decide what a repeated key means, not the parser.
public struct SPAJSON: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case object([Member])
        case array([SPAJSON])
        case string(String)
        /// The parsed value and the text as written, because PipeWire compares
        /// property values as strings (`client.id = 42` means "42").
        case number(Double, text: String)
        case bool(Bool)
        case null
    }

    public struct Member: Sendable, Equatable {
        public var key: String
        public var keyPosition: SourcePosition
        public var value: SPAJSON
        public init(key: String, keyPosition: SourcePosition, value: SPAJSON) {
            self.key = key; self.keyPosition = keyPosition; self.value = value
        }
    }

    public var value: Value
    public var position: SourcePosition

    public init(_ value: Value, at position: SourcePosition) {
        self.value = value; self.position = position
    }
}

extension SPAJSON {
    /// The kind of value with an article, for messages ("expected a number, got a string").
    public var kindDescription: String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    public var members: [Member]? {
        if case .object(let members) = value { return members }
        return nil
    }

    public var elements: [SPAJSON]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    public var string: String? {
        if case .string(let string) = value { return string }
        return nil
    }

    public var number: Double? {
        if case .number(let number, _) = value { return number }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let bool) = value { return bool }
        return nil
    }

    public var isNull: Bool { value == .null }


    /// A scalar as PipeWire would see it in a property list: strings as they
    /// are, numbers as written, booleans as `true`/`false`. Nil for null and
    /// containers.
    public var scalarText: String? {
        switch value {
        case .string(let string): string
        case .number(_, let text): text
        case .bool(let bool): bool ? "true" : "false"
        case .null, .object, .array: nil
        }
    }

    /// The last member with this key (a later repetition wins, as in
    /// PipeWire's property lists).
    public subscript(key: String) -> SPAJSON? {
        members?.last { $0.key == key }?.value
    }

    /// Equal values, wherever they were written.
    public func hasSameContent(as other: SPAJSON) -> Bool {
        switch (value, other.value) {
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.hasSameContent(as: $1.value) }
        case (.array(let a), .array(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.hasSameContent(as: $1) }
        case (.number(let a, _), .number(let b, _)):
            a == b
        default:
            value == other.value
        }
    }
}
