import Glibc

/// Seconds on a monotonic clock: what timers, debounce and fades are measured in.
public enum MonotonicClock {
    public static var now: Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
