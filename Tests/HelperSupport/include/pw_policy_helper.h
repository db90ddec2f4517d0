// The plumbing the helper programs share: pw-policy-test-card,
// pw-policy-test-player, pw-policy-test-screencast (Tests/) and
// pw-policy-load (bench/Load). Each is driven by commands on stdin and
// answers on stdout, which tests and benchmarks read while it runs
// (docs/TESTING.md, "The helper programs"). `program` names the messages a
// function prints on stderr.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <pipewire/pipewire.h>
#include <spa/utils/defs.h>
#include <spa/utils/list.h>

/* Prints one line on stdout and flushes it: whoever reads the output waits
 * for that line while the program goes on running. */
void helper_say(const char *format, ...) SPA_PRINTF_FUNC(1, 2);

/* SIGINT and SIGTERM call on_signal on the loop. Call it before
 * pw_context_new: the loop blocks the signals in the calling thread only,
 * and the data-loop thread pw_context_new starts would otherwise take them
 * with their default action. */
void helper_handle_quit_signals(struct pw_loop *loop, void (*on_signal)(void *data, int signal_number), void *data);

/* The same for a program that has nothing to do on a signal but quit its
 * main loop. */
void helper_quit_on_signals(struct pw_main_loop *main_loop);

/* Connects to the daemon: at remote, or the default one when NULL; the
 * client is named app_name, or after the program (libpipewire's default)
 * when NULL. NULL with a message on stderr when it cannot. */
struct pw_core *helper_connect(struct pw_context *context, const char *program, const char *app_name,
                               const char *remote);

/* For a core's error event: prints it on stderr, and quits the main loop
 * when it says the connection is gone, since nothing works without it. */
void helper_report_core_error(const char *program, struct pw_main_loop *main_loop, uint32_t id, int res,
                              const char *message);

/* Room for pw-policy-load's longest commands: `play ID PROPS` with many
 * properties. */
#define HELPER_LINE_MAX 65536

/* Commands, one per line, read from a descriptor as they arrive on the
 * loop, so that a program never blocks on its input. A line that does not
 * fit is dropped, with a message on stderr. */
struct helper_lines {
    const char *program;
    void (*on_line)(void *data, char *line);
    void (*on_end)(void *data);
    void *data;
    struct pw_loop *loop;
    struct spa_source *source;
    size_t used;
    char buffer[HELPER_LINE_MAX];
};

/* Calls on_line with each line read from fd (without its newline); once the
 * input ends (end of file, hang-up, error) it stops watching fd and calls
 * on_end (if not NULL): once, so that it may quit, or go on without input. */
void helper_read_lines(struct helper_lines *lines, struct pw_loop *loop, int fd, const char *program,
                       void (*on_line)(void *data, char *line), void (*on_end)(void *data), void *data);

/* "sync TAG" answered with "synced TAG" once the daemon has processed
 * everything the program sent before: how a test knows a command took
 * effect, without sleeping. */
struct helper_syncs {
    struct spa_list pending;
};

void helper_syncs_init(struct helper_syncs *syncs);
/* Starts a round trip on core for tag. */
void helper_sync(struct helper_syncs *syncs, struct pw_core *core, const char *tag);
/* For the core's done event (id PW_ID_CORE): says "synced TAG" for the
 * round trip that ended. */
void helper_syncs_done(struct helper_syncs *syncs, int seq);
/* Forgets the round trips still under way (at exit). */
void helper_syncs_clear(struct helper_syncs *syncs);
