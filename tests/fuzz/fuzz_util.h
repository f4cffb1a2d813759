/* fuzz_util.h: what several fuzz targets share (static functions, header
 * only): the input as a C string; a file in memory (memfd) for the readers
 * that take a path or a kf_source; and a digest of the problems a reader
 * reports, so that two readers of the same bytes can be compared. */
#ifndef KFSCK_FUZZ_UTIL_H
#define KFSCK_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kfsck/kfsck.h"

/* The input up to its first NUL, at most cap - 1 bytes, into s; its length. */
static inline size_t fuzz_text(const uint8_t *data, size_t size, char *s, size_t cap)
{
    size_t n = 0;
    while (n < size && n + 1 < cap && data[n])
        n++;
    memcpy(s, data, n);
    s[n] = 0;
    return n;
}

/* A file in memory, made once a process, and its /proc/self/fd path. */
static inline int fuzz_memfd(const char **path)
{
    static int fd = -1;
    static char p[64];
    if (fd < 0) {
        if ((fd = memfd_create("kfsck_fuzz", 0)) < 0)
            abort();
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    }
    *path = p;
    return fd;
}

#define FUZZ_HASH_INIT 0xcbf29ce484222325ull

/* FNV-1a of n more bytes into *h. */
static inline void fuzz_hash(uint64_t *h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 0x100000001b3ull;
}

/* The problems a reader reported: how many, and a hash of all their fields
 * in order. Start with {FUZZ_HASH_INIT, 0}; fuzz_on_problem is the callback. */
typedef struct fuzz_problems {
    uint64_t hash, n;
} fuzz_problems;

static inline void fuzz_on_problem(void *ctx, const kf_problem *p)
{
    fuzz_problems *d = ctx;
    d->n++;
    fuzz_hash(&d->hash, p->code, strlen(p->code) + 1);
    fuzz_hash(&d->hash, &p->severity, sizeof p->severity);
    fuzz_hash(&d->hash, &p->position, sizeof p->position);
    fuzz_hash(&d->hash, &p->has_offset, sizeof p->has_offset);
    if (p->has_offset)
        fuzz_hash(&d->hash, &p->offset, sizeof p->offset);
    fuzz_hash(&d->hash, p->message, strlen(p->message) + 1);
}

static inline bool fuzz_problems_equal(const fuzz_problems *a, const fuzz_problems *b)
{
    return a->hash == b->hash && a->n == b->n;
}

#endif
