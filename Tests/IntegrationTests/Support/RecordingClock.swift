import Foundation

/// When each frame of a recording reached the file, for a pw-record
/// recording still in progress: pw-record writes every graph cycle's buffer
/// as it gets it, so the file's size, read at moments the test notes,
/// places a frame in the test's own time within about one cycle (21 ms).
/// This lines up what a sink's monitor heard (a voice starting) with what
/// the test saw in the graph (a gain changing) without a second clock.
final class RecordingClock {
    let path: String
    private(set) var marks: [(time: Date, frames: Int)] = []
    private var dataOffset: Int?

    /// `path` is a float32 stereo WAV that pw-record writes (`recordSink`).
    init(path: String) { self.path = path }

    /// Notes how many frames the file holds now.
    func mark() {
        let now = Date()
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue else { return }
        if dataOffset == nil, size > 0, let head = FileHandle(forReadingAtPath: path) {
            let bytes = head.readData(ofLength: 4096)
            try? head.close()
            if let data = bytes.range(of: Data("data".utf8)) { dataOffset = data.upperBound + 4 }
        }
        guard let dataOffset else { return }
        marks.append((now, max(0, size - dataOffset) / 8))
    }

    /// When `frame` reached the file, interpolated between the marks around
    /// it; nil outside them.
    func time(ofFrame frame: Int) -> Date? {
        guard let after = marks.firstIndex(where: { $0.frames >= frame }) else { return nil }
        guard after > 0 else { return marks[after].frames == frame ? marks[after].time : nil }
        let (t0, f0) = marks[after - 1], (t1, f1) = marks[after]
        guard f1 > f0 else { return t1 }
        return t0.addingTimeInterval(t1.timeIntervalSince(t0) * Double(frame - f0) / Double(f1 - f0))
    }

    /// How many frames the file held at `time` (the last mark before it).
    func frames(at time: Date) -> Int? {
        marks.last { $0.time <= time }?.frames
    }
}
