import Foundation

/// Test audio: writing tones and measuring what reached a sink.
enum Audio {
    /// Writes a 48 kHz stereo 16-bit WAV sine tone; silent from `quietAfter`
    /// seconds on (a prompt that speaks, then keeps its stream open).
    static func writeTone(to path: String, seconds: Double, frequency: Double = 440, amplitude: Double = 0.5,
                          quietAfter: Double? = nil) throws {
        let rate = 48_000, channels = 2
        let frames = Int(seconds * Double(rate))
        let loudFrames = quietAfter.map { Int($0 * Double(rate)) } ?? frames
        var samples = Data(capacity: frames * channels * 2)
        for frame in 0..<frames {
            let value = frame >= loudFrames ? 0
                : Int16(amplitude * 32767 * sin(2 * .pi * frequency * Double(frame) / Double(rate)))
            for _ in 0..<channels {
                withUnsafeBytes(of: value.littleEndian) { samples.append(contentsOf: $0) }
            }
        }
        var header = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        header.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples.count))
        header.append(contentsOf: Array("WAVE".utf8))
        header.append(contentsOf: Array("fmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(channels))
        append(UInt32(rate)); append(UInt32(rate * channels * 2)); append(UInt16(channels * 2)); append(UInt16(16))
        header.append(contentsOf: Array("data".utf8)); append(UInt32(samples.count))
        try (header + samples).write(to: URL(fileURLWithPath: path))
    }

    /// Root-mean-square of the samples of a float32 WAV written by pw-record
    /// (`--format f32`), skipping the first `skip` seconds. pw-record may be
    /// stopped before it fixes the header up, so the data runs to the end.
    static func rms(ofWAV path: String, skip: Double = 0) throws -> Double {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let dataRange = data.range(of: Data("data".utf8)) else { return 0 }
        var channels = 2, rate = 48_000
        if let fmt = data.range(of: Data("fmt ".utf8)) {
            let base = fmt.upperBound + 4
            channels = Int(data[base + 2]) | Int(data[base + 3]) << 8
            rate = Int(data[base + 4]) | Int(data[base + 5]) << 8 | Int(data[base + 6]) << 16
        }
        let start = dataRange.upperBound + 4 + Int(skip * Double(rate)) * channels * 4
        guard start < data.count else { return 0 }
        let count = (data.count - start) / 4
        guard count > 0 else { return 0 }
        var sum = 0.0
        data[start..<(start + count * 4)].withUnsafeBytes { raw in
            for index in 0..<count {
                let sample = Double(Float(bitPattern: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                sum += sample * sample
            }
        }
        return (sum / Double(count)).squareRoot()
    }

    /// The loudest sample of each `block` frames of a float32 stereo WAV
    /// (as `rms(ofWAV:)` reads it), first channel: of a steady tone, its
    /// level over time (10 ms blocks by default; a 440 Hz tone has four
    /// periods in each).
    static func envelope(ofWAV path: String, block: Int = 480) throws -> [Double] {
        try perBlock(ofWAV: path, block: block) { raw, first in
            (first..<(first + block)).reduce(0.0) { loudest, frame in
                max(loudest, Double(abs(Float(bitPattern: raw.loadUnaligned(fromByteOffset: frame * 8, as: UInt32.self)))))
            }
        }
    }

    /// `measure` of each `block` frames of a float32 stereo WAV's samples
    /// (as `rms(ofWAV:)` reads it), given the block's first frame.
    static func perBlock(ofWAV path: String, block: Int,
                         _ measure: (UnsafeRawBufferPointer, Int) -> Double) throws -> [Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let dataRange = data.range(of: Data("data".utf8)) else { return [] }
        let base = dataRange.upperBound + 4
        let frames = max(0, (data.count - base) / 8)
        return data[base..<(base + frames * 8)].withUnsafeBytes { raw in
            stride(from: 0, to: frames - block + 1, by: block).map { measure(raw, $0) }
        }
    }

    /// How many frames of a float32 stereo WAV (as `rms(ofWAV:)` reads it)
    /// have a sample louder than `threshold` in any channel: the frames of
    /// `frames` (counted from the start of the data; nil: all of them), less
    /// the first `skip` seconds.
    static func loudFrames(ofWAV path: String, threshold: Float = 0.01, skip: Double = 0,
                           frames range: Range<Int>? = nil) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let dataRange = data.range(of: Data("data".utf8)) else { return 0 }
        let channels = 2, rate = 48_000
        let base = dataRange.upperBound + 4
        let available = max(0, (data.count - base) / (4 * channels))
        let first = max(Int(skip * Double(rate)), range?.lowerBound ?? 0)
        let end = min(available, range?.upperBound ?? available)
        guard first < end else { return 0 }
        var loud = 0
        data[base..<(base + end * channels * 4)].withUnsafeBytes { raw in
            for frame in first..<end {
                for channel in 0..<channels {
                    let sample = Float(bitPattern: raw.loadUnaligned(fromByteOffset: (frame * channels + channel) * 4, as: UInt32.self))
                    if abs(sample) > threshold { loud += 1; break }
                }
            }
        }
        return loud
    }

    /// How many frames a float32 stereo WAV that pw-record is still writing
    /// holds so far: it writes each graph cycle's buffer as it gets it, so
    /// this marks a moment in the recording.
    static func framesWritten(toWAV path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let dataRange = data.range(of: Data("data".utf8)) else { return 0 }
        return max(0, (data.count - dataRange.upperBound - 4) / (4 * 2))
    }

    /// Records what reaches `sink` for `seconds` and returns its RMS.
    /// `pumping` keeps a test client's loop turning meanwhile.
    static func recordRMS(sandbox: Sandbox, sink: String, seconds: Double, name: String = "monitor",
                          pumping client: TestClient? = nil) throws -> Double {
        let path = sandbox.path("\(name)-\(UUID().uuidString).wav")
        let recorder = try sandbox.spawn(["pw-record", "--target", sink, "--format", "f32", "--rate", "48000",
                                          "--channels", "2", "-P", "{ stream.capture.sink=true node.name=pw-policy-test-monitor }", path])
        if let client { client.pump(seconds) } else { usleep(UInt32(seconds * 1_000_000)) }
        recorder.stop(signal: SIGINT)
        // The first 0.2 s hold the recorder's own start-up.
        return try rms(ofWAV: path, skip: 0.2)
    }
}
