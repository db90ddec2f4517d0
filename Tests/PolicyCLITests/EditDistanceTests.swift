import Testing
@testable import PolicyCLI

@Suite struct EditDistanceTests {
    @Test(arguments: [
        ("spotify", "spotify", 0), ("spotifi", "spotify", 1), ("Spotify", "spotify", 0),
        ("sptoify", "spotify", 1), ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3),
    ])
    func distances(a: String, b: String, expected: Int) {
        #expect(EditDistance.between(a, b) == expected)
    }

    @Test func closestPicksTheNearestWithinTolerance() {
        #expect(EditDistance.closest(to: "spotifi", in: ["firefox", "spotify", "Maps"]) == "spotify")
        #expect(EditDistance.closest(to: "playbak", in: ["playback", "record"]) == "playback")
        #expect(EditDistance.closest(to: "zzzzzz", in: ["playback", "record"]) == nil)
    }

    @Test func aPrefixCountsAsClose() {
        #expect(EditDistance.closest(to: "fire", in: ["spotify", "firefox"]) == "firefox")
    }
}
