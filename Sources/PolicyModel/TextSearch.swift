extension StringProtocol {
    /// Whether `part` occurs in the text, Character by Character. The
    /// standard library's `contains(_: String)` is the _StringProcessing
    /// module's, whose code and the regex parser it brings would otherwise be
    /// linked into the agent and sit among its hot pages (docs/PERFORMANCE.md,
    /// "The agent's code, scattered over its binary").
    public func containsText(_ part: some StringProtocol) -> Bool {
        firstRange(ofText: part) != nil
    }

    /// Where `part` first occurs in the text; nil when it does not (an empty
    /// `part` occurs at the start).
    public func firstRange(ofText part: some StringProtocol) -> Range<Index>? {
        var start = startIndex
        while true {
            if self[start...].starts(with: part) {
                return start..<index(start, offsetBy: part.count)
            }
            guard start < endIndex else { return nil }
            formIndex(after: &start)
        }
    }
}
