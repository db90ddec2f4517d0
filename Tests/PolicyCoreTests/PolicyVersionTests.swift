import Foundation
import Testing
import PolicyCore

/// The one declaration of the release (PolicyVersion) against what must
/// restate it: the newest entry of debian/changelog, read from the source
/// tree, which gives the Debian package its version (docs/PACKAGING.md,
/// "One version"). scripts/version --check-changelog makes the same check
/// before a package is built; this one fails the suite as soon as the two
/// drift apart.
@Suite struct PolicyVersionTests {
    static let changelogPath: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("debian/changelog").path
    }()

    /// `Thu, 26 Nov 2026 12:00:00 +0000` (Debian Policy 4.4) as yyyy-mm-dd.
    static func day(rfc2822 text: Substring) -> String? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let fields = text.split(separator: " ")
        guard fields.count >= 4, let day = Int(fields[1]), let year = Int(fields[3]),
              let month = months.firstIndex(of: String(fields[2])) else { return nil }
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(twoDigits(month + 1))-\(twoDigits(day))"
    }

    @Test func theVersionAndDateAreWellFormed() {
        let parts = PolicyVersion.number.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "version \(PolicyVersion.number)")
        let date = PolicyVersion.date.split(separator: "-").map { Int($0) }
        #expect(date.count == 3 && date.allSatisfy { $0 != nil }, "date \(PolicyVersion.date)")
        if date.count == 3, let month = date[1], let day = date[2] {
            #expect((1...12).contains(month) && (1...31).contains(day), "date \(PolicyVersion.date)")
        }
    }

    @Test func theChangelogsNewestEntryIsThisRelease() throws {
        let lines = try String(contentsOfFile: Self.changelogPath, encoding: .utf8).split(separator: "\n")
        let first = try #require(lines.first)
        #expect(first.hasPrefix("pw-policy (\(PolicyVersion.number)) "),
                "debian/changelog begins '\(first)'; the binaries report \(PolicyVersion.number)")
        let trailer = try #require(lines.first { $0.hasPrefix(" -- ") }, "no trailer line in debian/changelog")
        let date = try #require(trailer.range(of: ">  ").map { trailer[$0.upperBound...] }, "trailer '\(trailer)'")
        #expect(Self.day(rfc2822: date) == PolicyVersion.date,
                "the newest entry is dated '\(date)'; \(PolicyVersion.number) was released on \(PolicyVersion.date)")
    }
}
