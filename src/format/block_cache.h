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

/* Gives buf (of cap bytes, from kf_block_take; NULL is ignored) back: kept
 * for the next reader while the cache holds less than its bound, else
 * freed. */
void kf_block_give(void *buf, size_t cap);

#endif
