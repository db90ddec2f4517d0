extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: what
    /// Foundation's `trimmingCharacters(in: .whitespaces)` does (Unicode
    /// space separators and tab, not newlines), without Foundation, which the
    /// agent does not load (docs/PERFORMANCE.md, "Memory").
    public func trimmingWhitespace() -> String {
        func isWhitespace(_ character: Character) -> Bool {
            character.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
              let last = lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return String(self[first...last])
    }
}
