// The sd-bus API as the agent uses it. Variadic calls (sd_bus_call_method,
// sd_bus_message_append, sd_bus_message_read) are not importable and are not
// used: messages are built with sd_bus_message_append_basic and read with
// sd_bus_message_read_basic and the container calls.
#pragma once
#include <systemd/sd-bus.h>
