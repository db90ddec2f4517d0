// A peak meter on one playback stream (docs/POLICY.md, "Ducking while
// audible"): a pw_filter with one DSP input port, linked by the agent to the
// stream's output ports. Its process callback runs on libpipewire's data
// thread, once per graph cycle while the stream runs, so it is C: no Swift
// runtime (reference counts, allocation) on that thread. It keeps three
// facts in one atomic word and wakes the agent's loop only when whether the
// latest block was loud changes, or on the first block: what it measured
// becomes an Audibility in the core (AudibilityMeter.Blocks).
//
// The filter lives on a connection of its own thread (ThreadConnection): the
// daemon starts it, with its format and buffers, when the stream it meters
// is linked, and the agent's loop may be reconciling then. Its state
// changes reach the agent's loop as wakes too, and what the agent reads of
// it is atomic.
#include "CPipeWire.h"
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

// The packed state: bits 0-13 the generation, 14 measured, 15 loud, 16-63
// the last loud block's CLOCK_MONOTONIC time in microseconds (+1; 0: none;
// 48 bits last 8 years of uptime). The first loud block's time is packed
// the same way beside it, with the generation and no flags.
#define GENERATION_MASK 0x3fffu
#define MEASURED (1u << 14)
#define LOUD (1u << 15)
#define FLAGS_MASK 0xffffu

struct cpw_peak_meter {
    struct pw_thread_loop *thread;
    struct pw_filter *filter;
    struct spa_hook listener;
    struct pw_loop *loop;
    struct spa_source *wake;
    void *port;
    float level;
    void (*changed)(void *data);
    void *data;
    // Written by the data thread (the state), the agent's loop (the
    // generation) and the filter's thread (its state and node id); read by all.
    _Atomic uint64_t state;
    _Atomic uint64_t first_loud;
    _Atomic uint32_t generation;
    _Atomic int filter_state;
    _Atomic uint32_t node_id;
};

static uint64_t now_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void on_process(void *data, struct spa_io_position *position) {
    struct cpw_peak_meter *meter = data;
    (void)position;
    struct pw_buffer *b;
    float peak = 0.0f;
    int buffers = 0;
    while ((b = pw_filter_dequeue_buffer(meter->port)) != NULL) {
        struct spa_buffer *buf = b->buffer;
        if (buf->n_datas > 0 && buf->datas[0].data != NULL && buf->datas[0].chunk != NULL) {
            const struct spa_data *d = &buf->datas[0];
            uint32_t offset = SPA_MIN(d->chunk->offset, d->maxsize);
            uint32_t size = SPA_MIN(d->chunk->size, d->maxsize - offset);
            const float *samples = SPA_PTROFF(d->data, offset, const float);
            for (uint32_t i = 0; i < size / sizeof(float); i++) {
                float v = fabsf(samples[i]);
                if (v > peak)
                    peak = v;
            }
        }
        buffers++;
        pw_filter_queue_buffer(meter->port, b);
    }
    if (buffers == 0)
        return;
    uint32_t generation = atomic_load_explicit(&meter->generation, memory_order_acquire) & GENERATION_MASK;
    uint64_t old = atomic_load_explicit(&meter->state, memory_order_relaxed);
    uint64_t next;
    bool loud = peak >= meter->level;
    if ((old & GENERATION_MASK) != generation)
        old = generation;  // a new stream: nothing measured yet
    if (loud) {
        uint64_t stamp = (now_usec() + 1) << 16;
        next = stamp | generation | MEASURED | LOUD;
        if ((old >> 16) == 0)
            atomic_store_explicit(&meter->first_loud, stamp | generation, memory_order_relaxed);
    } else
        next = (old & ~(uint64_t)FLAGS_MASK) | generation | MEASURED;
    atomic_store_explicit(&meter->state, next, memory_order_release);
    if ((old & FLAGS_MASK) != (next & FLAGS_MASK))
        pw_loop_signal_event(meter->loop, meter->wake);
}

// On the filter's thread.
static void on_state_changed(void *data, enum pw_filter_state old, enum pw_filter_state state, const char *error) {
    struct cpw_peak_meter *meter = data;
    (void)old;
    (void)error;
    atomic_store(&meter->node_id, pw_filter_get_node_id(meter->filter));
    atomic_store(&meter->filter_state, (int)state);
    pw_loop_signal_event(meter->loop, meter->wake);
}

// On the agent's loop, which made the meter: never before it was returned.
static void on_wake(void *data, uint64_t count) {
    struct cpw_peak_meter *meter = data;
    (void)count;
    meter->changed(meter->data);
}

static const struct pw_filter_events filter_events = {
    PW_VERSION_FILTER_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

struct cpw_peak_meter *cpw_peak_meter_new(struct pw_thread_loop *thread, struct pw_core *core, struct pw_loop *loop,
                                          const struct spa_dict *props, float level, void (*changed)(void *data),
                                          void *data) {
    struct cpw_peak_meter *meter = calloc(1, sizeof(*meter));
    if (meter == NULL)
        return NULL;
    meter->thread = thread;
    meter->loop = loop;
    meter->level = level;
    meter->changed = changed;
    meter->data = data;
    atomic_init(&meter->state, 0);
    atomic_init(&meter->first_loud, 0);
    atomic_init(&meter->generation, 0);
    atomic_init(&meter->filter_state, (int)PW_FILTER_STATE_UNCONNECTED);
    atomic_init(&meter->node_id, SPA_ID_INVALID);
    meter->wake = pw_loop_add_event(loop, on_wake, meter);
    if (meter->wake == NULL)
        goto error;
    pw_thread_loop_lock(thread);
    meter->filter = pw_filter_new(core, "pw-policy meter", pw_properties_new_dict(props));
    bool connected = false;
    if (meter->filter != NULL) {
        pw_filter_add_listener(meter->filter, &meter->listener, &filter_events, meter);
        meter->port = pw_filter_add_port(meter->filter, PW_DIRECTION_INPUT, PW_FILTER_PORT_FLAG_MAP_BUFFERS, 0,
                                         pw_properties_new(PW_KEY_FORMAT_DSP, "32 bit float mono audio",
                                                           PW_KEY_PORT_NAME, "input", "audio.channel", "MONO", NULL),
                                         NULL, 0);
        connected = meter->port != NULL && pw_filter_connect(meter->filter, PW_FILTER_FLAG_RT_PROCESS, NULL, 0) >= 0;
    }
    pw_thread_loop_unlock(thread);
    if (!connected)
        goto error;
    return meter;
error:
    cpw_peak_meter_destroy(meter);
    return NULL;
}

void cpw_peak_meter_destroy(struct cpw_peak_meter *meter) {
    if (meter == NULL)
        return;
    // The filter first: once it is gone neither its thread nor the data
    // thread signals the wake, which then goes on the agent's loop (this
    // thread), with any wake still pending.
    if (meter->filter != NULL) {
        pw_thread_loop_lock(meter->thread);
        spa_hook_remove(&meter->listener);
        pw_filter_destroy(meter->filter);
        pw_thread_loop_unlock(meter->thread);
    }
    if (meter->wake != NULL)
        pw_loop_destroy_source(meter->loop, meter->wake);
    free(meter);
}

uint32_t cpw_peak_meter_node_id(struct cpw_peak_meter *meter) { return atomic_load(&meter->node_id); }

bool cpw_peak_meter_failed(struct cpw_peak_meter *meter) {
    return atomic_load(&meter->filter_state) == (int)PW_FILTER_STATE_ERROR;
}

void cpw_peak_meter_restart(struct cpw_peak_meter *meter) {
    atomic_fetch_add_explicit(&meter->generation, 1, memory_order_acq_rel);
}

struct cpw_peak_reading cpw_peak_meter_read(struct cpw_peak_meter *meter) {
    uint32_t generation = atomic_load_explicit(&meter->generation, memory_order_acquire) & GENERATION_MASK;
    uint64_t state = atomic_load_explicit(&meter->state, memory_order_acquire);
    struct cpw_peak_reading reading = { 0 };
    if ((state & GENERATION_MASK) != generation)
        return reading;
    reading.measured = (state & MEASURED) != 0;
    reading.loud = (state & LOUD) != 0;
    uint64_t last = state >> 16;
    reading.has_loud = last != 0;
    reading.last_loud_usec = last == 0 ? 0 : last - 1;
    // Stored before the state that says a block was loud (release above).
    uint64_t first = atomic_load_explicit(&meter->first_loud, memory_order_relaxed);
    reading.first_loud_usec = reading.has_loud && (first & GENERATION_MASK) == generation && (first >> 16) != 0
        ? (first >> 16) - 1 : reading.last_loud_usec;
    return reading;
}
