#if canImport(Glibc)
import Glibc
#endif
import CPipeWire  // SPA_IO_IN
import PolicyPipeWire

/// Watches directories (the config's, the desktop entries') with inotify on
/// the PipeWire loop and calls back (debounced) when a file in them changes:
/// no polling.
final class DirectoryWatcher {
    private let fd: Int32
    private var watch: LoopIO?
    private let changed: () -> Void
    private var debounce: LoopTimer!

    init?(loop: EventLoop, directories: [String], changed: @escaping () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.changed = changed
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
        for directory in directories {
            _ = inotify_add_watch(fd, directory, mask)  // absent directories are fine
        }
        debounce = loop.makeTimer { [unowned self] in self.changed() }
        watch = LoopIO(loop: loop, fd: fd, events: UInt32(SPA_IO_IN)) { [unowned self] _ in self.drain() }
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
        // Editors write in several steps; act once they are done.
        debounce.schedule(after: 0.2)
    }

    deinit {
        watch = nil  // the source goes before its fd
        close(fd)
    }
}
