/* sorted.h: the search of sorted arrays that C's bsearch lacks: where a key
 * is, or would go (C++'s std::lower_bound). Internal to the library. */
#ifndef KFSCK_BYTES_SORTED_H
#define KFSCK_BYTES_SORTED_H

#include <stdbool.h>
#include <stddef.h>

/* The index of the first of the n elements at base (size bytes each, in
 * ascending order) that is not below key, n when none: where key is, or
 * where it would be inserted. below(element, key): whether the element
 * sorts before key. Always inlined, so that a constant below is inlined
 * too (no call through a pointer per step). */
static inline __attribute__((always_inline)) size_t kf_lower_bound(const void *base, size_t n, size_t size,
                                                                  const void *key,
                                                                  bool (*below)(const void *element, const void *key))
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (below((const char *)base + mid * size, key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
