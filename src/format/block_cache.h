/* block_cache.h: page-aligned read buffers kept between segment readers.
 * Private to the reader (reader.c, reader_walker.c). */
#ifndef KFSCK_FORMAT_BLOCK_CACHE_H
#define KFSCK_FORMAT_BLOCK_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* A page-aligned buffer of at least n bytes: one a closed reader gave back
 * when one is large enough, else a new one (*fresh true: its pages are not
 * yet touched). *cap is its size. NULL when memory runs out. */
void *kf_block_take(size_t n, size_t *cap, bool *fresh);

/* Buffers of HUGE_PAGE and more are whole, aligned huge pages where the
 * system gives them. kf_block_huge: is buf (of cap bytes, from
 * kf_block_take, its pages touched) backed by huge pages? It asks the
 * kernel to make it so first (MADV_COLLAPSE); false when it cannot. */
#define HUGE_PAGE ((size_t)2 << 20)
bool kf_block_huge(void *buf, size_t cap);

/* Gives buf (of cap bytes, from kf_block_take; NULL is ignored) back: kept
 * for the next reader while the cache holds less than its bound, else
 * freed. */
void kf_block_give(void *buf, size_t cap);

#endif
