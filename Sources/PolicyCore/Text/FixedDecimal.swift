extension Double {
    /// The number with `places` digits after the point, as `%.Nf` prints it
    /// ("0.250", "-1.000", "nan"), without Foundation's `String(format:)`,
    /// which the agent does not load (docs/PERFORMANCE.md, "Memory").
    public func fixedDecimal(places: Int = 3) -> String {
        guard isFinite else { return isNaN ? "nan" : (self < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (magnitude * scale).rounded(.toNearestOrEven)
        guard scaled < 1e18 else { return "\(self)" }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale), fraction = units % UInt64(scale)
        var digits = String(fraction)
        digits = String(repeating: "0", count: places - digits.count) + digits
        return (sign == .minus ? "-" : "") + String(whole) + (places > 0 ? "." + digits : "")
    }
}
