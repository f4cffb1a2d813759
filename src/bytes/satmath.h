/* satmath.h: counts of offsets that never overflow. Offsets come from the
 * data and reach 2^63-1; a count of offsets between two of them, or a sum
 * of such counts over segments, partitions or log dirs, saturates at
 * INT64_MAX (UINT64_MAX) instead of wrapping into a negative or small
 * number: a loss of "more than 2^63-1 offsets" is never reported as none.
 * Internal to the library. */
#ifndef KFSCK_BYTES_SATMATH_H
#define KFSCK_BYTES_SATMATH_H

#include <stdint.h>

/* a + b, at most INT64_MAX, at least INT64_MIN. */
static inline int64_t kf_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* a - b, at most INT64_MAX, at least INT64_MIN. */
static inline int64_t kf_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* The offsets in [from, to): to - from when to > from (at most INT64_MAX),
 * else 0. */
static inline int64_t kf_offsets_between(int64_t from, int64_t to)
{
    return to > from ? kf_sat_sub(to, from) : 0;
}

/* a + b, at most UINT64_MAX. */
static inline uint64_t kf_sat_addu(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif
