import Testing
@testable import PolicyCLI

@Suite struct TextStyleTests {
    @Test func coloursOnlyOnATerminalWithoutNoColor() {
        #expect(TextStyle.decide(isTerminal: true, environment: [:], noColorFlag: false).isColored)
        #expect(!TextStyle.decide(isTerminal: false, environment: [:], noColorFlag: false).isColored)
        #expect(!TextStyle.decide(isTerminal: true, environment: ["NO_COLOR": "1"], noColorFlag: false).isColored)
        #expect(!TextStyle.decide(isTerminal: true, environment: [:], noColorFlag: true).isColored)
        #expect(!TextStyle.decide(isTerminal: true, environment: ["TERM": "dumb"], noColorFlag: false).isColored)
        // no-color.org: an empty NO_COLOR does not count.
        #expect(TextStyle.decide(isTerminal: true, environment: ["NO_COLOR": ""], noColorFlag: false).isColored)
    }

    @Test func plainStyleWritesNoEscapes() {
        let text = StatusRenderer.text(Fixtures.busyView, style: .plain)
        #expect(!text.contains("\u{1B}["))
        let colored = StatusRenderer.text(Fixtures.busyView, style: TextStyle(isColored: true))
        #expect(colored.contains("\u{1B}[31m[HELD"))
    }
}
