#if canImport(Glibc)
import Glibc
#endif

/// Replaces one file on a thread of its own, the latest contents winning:
/// for a file whose write must not hold up the agent's loop. A replace on
/// a disk file system waits for the disk when it is busy — measured beside
/// WirePlumber saving its own state, up to a second (docs/PERFORMANCE.md,
/// "The journal on disk").
final class BackgroundFileWriter: @unchecked Sendable {
    private let path: String
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()
    // Under `lock`: the contents not yet taken, whether one is being written,
    // the last write's failure not yet taken, and whether the thread is to end.
    private var pending: (data: [UInt8], sync: Bool)?
    private var writing = false
    private var failure: FileError?
    private var stopping = false

    init?(path: String) {
        self.path = path
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
        // Started with every signal blocked, which it keeps: SIGTERM and
        // SIGINT are the agent loop's, to restore the streams before exiting,
        // and a thread that did not block them could take them and die.
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<BackgroundFileWriter>.fromOpaque(context!).takeUnretainedValue().serve()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque())
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard started == 0 else {
            pthread_cond_destroy(changed)
            pthread_mutex_destroy(lock)
            lock.deallocate()
            changed.deallocate()
            return nil
        }
    }

    /// Replaces what waits to be written; `sync` stays asked for until written.
    func write(_ data: [UInt8], sync: Bool) {
        pthread_mutex_lock(lock)
        pending = (data, sync || pending?.sync == true)
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
    }

    /// Returns once everything handed over is written (or failed).
    func finish() {
        pthread_mutex_lock(lock)
        while pending != nil || writing { pthread_cond_wait(changed, lock) }
        pthread_mutex_unlock(lock)
    }

    /// Why a write failed since the last call, if one did: told on the
    /// caller's thread, which logs it (the writer's own thread logs nothing).
    func takeFailure() -> FileError? {
        pthread_mutex_lock(lock)
        defer { failure = nil; pthread_mutex_unlock(lock) }
        return failure
    }

    private func serve() {
        pthread_mutex_lock(lock)
        while true {
            while pending == nil, !stopping { pthread_cond_wait(changed, lock) }
            guard let next = pending else { break }
            pending = nil
            writing = true
            pthread_mutex_unlock(lock)
            var failed: FileError?
            do {
                try JournalFile.write(next.data, to: path, sync: next.sync)
            } catch {
                failed = error
            }
            pthread_mutex_lock(lock)
            if let failed { failure = failed }
            writing = false
            pthread_cond_broadcast(changed)
        }
        pthread_mutex_unlock(lock)
    }

    /// Writes what is left, then ends the thread.
    deinit {
        pthread_mutex_lock(lock)
        stopping = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
        pthread_join(thread, nil)
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        changed.deallocate()
    }
}
