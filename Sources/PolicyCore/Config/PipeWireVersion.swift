/// A PipeWire (and libspa) release number such as 0.3.65 or 1.4.2, as
/// `pw_get_library_version()` and `pw_get_headers_version()` write it.
/// PipeWire's development snapshots take the micro numbers from 80 on
/// (1.1.81 is a snapshot on the way to 1.2.0), so plain ordering of the three
/// numbers places them correctly.
public struct PipeWireVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var micro: Int

    public init(_ major: Int, _ minor: Int, _ micro: Int) {
        self.major = major; self.minor = minor; self.micro = micro
    }

    /// `"1.4.2"`; nil unless it starts with three dot-separated numbers
    /// (anything after them, such as a distribution suffix, is ignored).
    public init?(_ text: String) {
        var numbers: [Int] = []
        var digits = Substring(text)
        for index in 0..<3 {
            let run = digits.prefix { $0.isASCII && $0.isNumber }
            guard !run.isEmpty, run.count <= 9, let number = Int(run) else { return nil }
            numbers.append(number)
            digits = digits.dropFirst(run.count)
            if index < 2 {
                guard digits.first == "." else { return nil }
                digits = digits.dropFirst()
            }
        }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    public static func < (a: PipeWireVersion, b: PipeWireVersion) -> Bool {
        (a.major, a.minor, a.micro) < (b.major, b.minor, b.micro)
    }

    public var description: String { "\(major).\(minor).\(micro)" }
}
