#include "pw_policy_helper.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spa/utils/result.h>

void helper_say(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

void helper_handle_quit_signals(struct pw_loop *loop, void (*on_signal)(void *data, int signal_number), void *data) {
    pw_loop_add_signal(loop, SIGINT, on_signal, data);
    pw_loop_add_signal(loop, SIGTERM, on_signal, data);
}

static void quit_main_loop(void *data, int signal_number) {
    pw_main_loop_quit(data);
    (void)signal_number;
}

void helper_quit_on_signals(struct pw_main_loop *main_loop) {
    helper_handle_quit_signals(pw_main_loop_get_loop(main_loop), quit_main_loop, main_loop);
}

struct pw_core *helper_connect(struct pw_context *context, const char *program, const char *app_name,
                               const char *remote) {
    struct pw_properties *props = pw_properties_new(NULL, NULL);
    if (app_name != NULL)
        pw_properties_set(props, PW_KEY_APP_NAME, app_name);
    if (remote != NULL)
        pw_properties_set(props, PW_KEY_REMOTE_NAME, remote);
    struct pw_core *core = pw_context_connect(context, props, 0);
    if (core == NULL)
        fprintf(stderr, "%s: cannot connect to PipeWire: %s\n", program, strerror(errno));
    return core;
}

void helper_report_core_error(const char *program, struct pw_main_loop *main_loop, uint32_t id, int res,
                              const char *message) {
    fprintf(stderr, "%s: error on object %u: %s (%s)\n", program, id, message ? message : "", spa_strerror(res));
    if (id == PW_ID_CORE && res == -EPIPE)
        pw_main_loop_quit(main_loop);
}

static void end_of_lines(struct helper_lines *lines) {
    pw_loop_destroy_source(lines->loop, lines->source);
    lines->source = NULL;
    if (lines->on_end != NULL)
        lines->on_end(lines->data);
}

static void on_readable(void *data, int fd, uint32_t mask) {
    struct helper_lines *lines = data;
    if (!(mask & SPA_IO_IN)) {
        end_of_lines(lines);
        return;
    }
    ssize_t n = read(fd, lines->buffer + lines->used, sizeof(lines->buffer) - 1 - lines->used);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        end_of_lines(lines);
        return;
    }
    lines->used += (size_t)n;
    char *start = lines->buffer, *newline;
    while ((newline = memchr(start, '\n', lines->used - (size_t)(start - lines->buffer))) != NULL) {
        *newline = '\0';
        lines->on_line(lines->data, start);
        start = newline + 1;
    }
    lines->used -= (size_t)(start - lines->buffer);
    memmove(lines->buffer, start, lines->used);
    if (lines->used == sizeof(lines->buffer) - 1) {
        fprintf(stderr, "%s: line too long; dropped\n", lines->program);
        lines->used = 0;
    }
}

void helper_read_lines(struct helper_lines *lines, struct pw_loop *loop, int fd, const char *program,
                       void (*on_line)(void *data, char *line), void (*on_end)(void *data), void *data) {
    lines->program = program;
    lines->on_line = on_line;
    lines->on_end = on_end;
    lines->data = data;
    lines->loop = loop;
    lines->used = 0;
    lines->source = pw_loop_add_io(loop, fd, SPA_IO_IN | SPA_IO_HUP | SPA_IO_ERR, false, on_readable, lines);
}

struct pending_sync {
    struct spa_list link;
    int seq;
    char *tag;
};

void helper_syncs_init(struct helper_syncs *syncs) {
    spa_list_init(&syncs->pending);
}

void helper_sync(struct helper_syncs *syncs, struct pw_core *core, const char *tag) {
    struct pending_sync *p = calloc(1, sizeof(*p));
    if (p == NULL || (p->tag = strdup(tag)) == NULL) {
        free(p);
        return;
    }
    p->seq = pw_core_sync(core, PW_ID_CORE, 0);
    spa_list_append(&syncs->pending, &p->link);
}

static void forget(struct pending_sync *p) {
    spa_list_remove(&p->link);
    free(p->tag);
    free(p);
}

void helper_syncs_done(struct helper_syncs *syncs, int seq) {
    struct pending_sync *p, *t;
    spa_list_for_each_safe(p, t, &syncs->pending, link) {
        if (p->seq != seq)
            continue;
        helper_say("synced %s", p->tag);
        forget(p);
    }
}

void helper_syncs_clear(struct helper_syncs *syncs) {
    struct pending_sync *p, *t;
    spa_list_for_each_safe(p, t, &syncs->pending, link)
        forget(p);
}
