// glibc's allocator controls the agent uses: malloc_trim, which gives the
// free pages inside the heap back to the system (IdleMemoryTrim).
#pragma once
#include <malloc.h>
