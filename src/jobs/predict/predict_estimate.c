/* predict_estimate.c: how long a log dir's recovery takes
 * (docs/formats.md §20.8): LogManager.loadLogs gives each log dir a pool of
 * num.recovery.threads.per.data.dir threads, each partition one task; the
 * forecast takes the partitions' bytes to recover largest first, each to
 * the thread that frees up first, at a fixed rate per thread. */
#include "predict_internal.h"

#include <stdlib.h>

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

double pp_estimate_seconds(uint64_t *bytes, size_t n, uint32_t threads, uint64_t rate)
{
    if (!n || !rate)
        return 0;
    if (threads < 1)
        threads = 1;
    if (threads > n)
        threads = (uint32_t)n;
    qsort(bytes, n, sizeof *bytes, cmp_desc);
    uint64_t *busy = calloc(threads, sizeof *busy);
    if (!busy)
        return -1;
    uint64_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t t = 0;
        for (uint32_t k = 1; k < threads; k++)
            if (busy[k] < busy[t])
                t = k;
        busy[t] += bytes[i];
        if (busy[t] > longest)
            longest = busy[t];
    }
    free(busy);
    return (double)longest / (double)rate;
}
