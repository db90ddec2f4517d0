import Testing
import PolicyCore

/// `containsText` and `firstRange(ofText:)`: the agent's substring search,
/// in place of _StringProcessing's (docs/PERFORMANCE.md, "Memory").
struct TextSearchTests {
    /// (text, part, where it starts and ends in Characters; nil: absent)
    static let cases: [(String, String, (Int, Int)?)] = [
        ("", "", (0, 0)),
        ("headphones", "", (0, 0)),
        ("", "x", nil),
        ("headphones", "head", (0, 4)),
        ("analog-output-headphones", "headphone", (14, 23)),
        ("speaker", "speaker", (0, 7)),
        ("speake", "speaker", nil),
        ("/org//mpris", "//", (4, 6)),
        ("aab", "ab", (1, 3)),
        ("libwireplumber-0.5.so.0.508.0", ".so.", (18, 22)),
        ("Café Alarm", "é", (3, 4)),
        ("Cafe\u{301} Alarm", "é", (3, 4)),   // the same Character, decomposed
        ("Cafe Alarm", "é", nil),
        ("Alarm", "alarm", nil),
    ]

    @Test(arguments: cases.indices)
    func findsWhereThePartStarts(_ index: Int) {
        let (text, part, expected) = Self.cases[index]
        let range = text.firstRange(ofText: part)
        let found = range.map { (text.distance(from: text.startIndex, to: $0.lowerBound),
                                 text.distance(from: text.startIndex, to: $0.upperBound)) }
        #expect(found?.0 == expected?.0 && found?.1 == expected?.1, "\(text) / \(part): \(String(describing: found))")
        #expect(text.containsText(part) == (expected != nil))
        #expect(text[...].containsText(Substring(part)) == (expected != nil))
    }
}
