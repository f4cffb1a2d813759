/* order.h: the one order kfsck lists partitions in, whichever job lists
 * them: by topic name (its bytes), then partition number. Internal to the
 * library. */
#ifndef KFSCK_FORMAT_ORDER_H
#define KFSCK_FORMAT_ORDER_H

#include <stdint.h>
#include <string.h>

/* < 0, 0 or > 0 as partition (ta, pa) comes before, with or after (tb, pb). */
static inline int kf_cmp_topic_partition(const char *ta, int32_t pa, const char *tb, int32_t pb)
{
    int c = strcmp(ta, tb);
    return c ? c : (pa > pb) - (pa < pb);
}

#endif
