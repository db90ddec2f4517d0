/// A release number such as PipeWire's `0.3.65` or `1.4.2`, or WirePlumber's
/// `0.5.8`: what the agent compares to decide which mechanisms the stack
/// offers (docs/PROTOCOL.md, `stack`).
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major; self.minor = minor; self.patch = patch
    }

    /// Reads `MAJOR.MINOR[.PATCH]` at the start of `text`, ignoring what
    /// follows a complete number: distributions append their own revision
    /// (`1.4.2-1~bpo12+1`), builds from git a suffix (`1.1.82-dirty`). Nil for
    /// anything else (empty, `x.y`, a lone number, a number too large): an
    /// unknown version, never a guess.
    public init?(parsing text: String) {
        var rest = Substring(text.drop { $0 == " " || $0 == "\t" })
        var numbers: [Int] = []
        while numbers.count < 3 {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let value = Int(digits) else { return nil }
            numbers.append(value)
            rest = rest.dropFirst(digits.count)
            guard numbers.count < 3, rest.first == "." else { break }
            rest = rest.dropFirst()
        }
        // A lone number is no version; `1.2.` and `1.2.x` failed above.
        guard numbers.count >= 2 else { return nil }
        self.init(numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
    }

    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}
