/// Nearest-rank percentiles of a set of durations (seconds).
struct Percentiles {
    let count: Int
    let p50: Double
    let p95: Double
    let p99: Double
    let max: Double

    init?(_ values: [Double?]) {
        let sorted = values.compactMap { $0 }.sorted()
        guard !sorted.isEmpty else { return nil }
        func rank(_ percent: Double) -> Double {
            let index = Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        p50 = rank(50)
        p95 = rank(95)
        p99 = rank(99)
        max = sorted[sorted.count - 1]
    }
}
