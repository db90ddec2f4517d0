import Foundation

extension Audio {
    /// The RMS of each `window` frames of a float32 stereo WAV (as
    /// `rms(ofWAV:)` reads it), both channels: a tone's level over time, in
    /// which a gap of a few tens of milliseconds shows.
    static func windowRMS(ofWAV path: String, window: Int = 2400) throws -> [Double] {
        try perBlock(ofWAV: path, block: window) { raw, first in
            var sum = 0.0
            for index in (first * 2)..<((first + window) * 2) {
                let sample = Double(Float(bitPattern: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                sum += sample * sample
            }
            return (sum / Double(window * 2)).squareRoot()
        }
    }

    /// The loudest sample of a float32 stereo WAV, both channels.
    static func peak(ofWAV path: String, skip: Double = 0) throws -> Double {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let dataRange = data.range(of: Data("data".utf8)) else { return 0 }
        let start = dataRange.upperBound + 4 + Int(skip * 48_000) * 8
        guard start < data.count else { return 0 }
        let count = (data.count - start) / 4
        return data[start..<(start + count * 4)].withUnsafeBytes { raw in
            (0..<count).reduce(0.0) { loudest, index in
                max(loudest, Double(abs(Float(bitPattern: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))))
            }
        }
    }
}
