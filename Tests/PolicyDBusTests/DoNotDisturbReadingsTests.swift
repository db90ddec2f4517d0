@testable import PolicyDBus
import PolicyCore
import PolicyTestSupport
import Testing

/// Do Not Disturb's readings on the embedded loop: a source that flaps says
/// nothing, and the observer's timer looks again once it kept still for
/// the flap guard's window (docs/POLICY.md, "Do Not Disturb").
struct DoNotDisturbReadingsTests {
    /// The embedded loop as the bus's loop: timers only (no fd is watched here).
    final class EmbeddedBusLoop: BusLoop {
        let loop = EmbeddedEventLoop(now: 0)
        final class Timer: BusLoopTimer {
            let timer: EmbeddedEventLoop.Timer
            init(_ timer: EmbeddedEventLoop.Timer) { self.timer = timer }
            func schedule(after seconds: Double) { timer.schedule(after: seconds) }
            func cancel() { timer.cancel() }
        }
        func watch(fd: Int32, events: UInt32, _ handler: @escaping (UInt32) -> Void) -> any BusLoopWatch {
            preconditionFailure("no fd is watched on the embedded loop")
        }
        func busTimer(_ action: @escaping () -> Void) -> any BusLoopTimer { Timer(loop.makeTimer(action)) }
    }

    final class Harness {
        let bus = EmbeddedBusLoop()
        var reported: [DoNotDisturb] = []
        var logged: [String] = []
        private(set) var readings: DoNotDisturbReadings!
        init() {
            readings = DoNotDisturbReadings(sources: [.dunst], loop: bus, clock: { [unowned self] in self.bus.loop.now },
                                            log: { [unowned self] in self.logged.append($0) },
                                            onChange: { [unowned self] in self.reported.append($0) })
        }
    }

    let on = DoNotDisturb(onIn: ["dunst"], answering: ["dunst"])
    let off = DoNotDisturb(onIn: [], answering: ["dunst"])

    @Test func aPersonTogglingItIsFollowed() {
        let harness = Harness()
        harness.readings.record(.dunst, .value("false"))
        harness.bus.loop.advanceTime(by: 30)
        harness.readings.record(.dunst, .value("true"))
        #expect(harness.reported == [off, on])
        #expect(harness.logged.isEmpty)
    }

    @Test func aFlappingSourceSaysNothingUntilItKeptStillForTheWindow() {
        let harness = Harness()
        let window = FlapGuard().window
        harness.readings.record(.dunst, .value("false"))
        for change in 1...FlapGuard().limit + 1 {
            harness.bus.loop.advanceTime(by: 0.1)
            harness.readings.record(.dunst, .value(change % 2 == 1 ? "true" : "false"))
        }
        #expect(harness.readings.state == .unknown, "flapping: not followed while it flaps")
        #expect(harness.logged.count == 1, "logged once")
        let lastChange = harness.bus.loop.now
        harness.bus.loop.advanceTime(to: lastChange + window - 0.01)
        #expect(harness.readings.state == .unknown)
        harness.bus.loop.advanceTime(to: lastChange + window)
        #expect(harness.readings.state == on, "trusted again, with the value it kept, by the timer alone")
        #expect(harness.reported.last == on)
    }
}
