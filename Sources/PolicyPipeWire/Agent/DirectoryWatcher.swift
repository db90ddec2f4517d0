#if canImport(Glibc)
import Glibc
#endif
import CPipeWire

/// Watches directories (the config's, the desktop entries') with inotify on
/// the PipeWire loop and calls back (debounced) when a file in them changes:
/// no polling.
final class DirectoryWatcher {
    private let loop: EventLoop
    private let fd: Int32
    private var source: UnsafeMutablePointer<spa_source>?
    private let changed: () -> Void
    private var debounce: LoopTimer!

    init?(loop: EventLoop, directories: [String], changed: @escaping () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        self.loop = loop
        self.fd = fd
        self.changed = changed
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
        for directory in directories {
            _ = inotify_add_watch(fd, directory, mask)  // absent directories are fine
        }
        debounce = loop.makeTimer { [unowned self] in self.changed() }
        source = cpw_loop_add_io(loop.pwLoop, fd, UInt32(SPA_IO_IN), false, { data, _, _ in
            Unmanaged<DirectoryWatcher>.fromOpaque(data!).takeUnretainedValue().drain()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
        // Editors write in several steps; act once they are done.
        debounce.schedule(after: 0.2)
    }

    deinit {
        if let source { cpw_loop_destroy_source(loop.pwLoop, source) }
        close(fd)
    }
}
