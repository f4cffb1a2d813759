/* opts.h: internal. How every entry point of the library takes a caller's
 * options struct (the convention of kfsck.h): NULL means the defaults, the
 * first member is the struct's version, and a zero field means that field's
 * default. */
#ifndef KFSCK_OPTS_H
#define KFSCK_OPTS_H

#include <stddef.h>
#include <string.h>

/* Take the caller's options `given` into `own` (both of the struct whose
 * newest version is latest, size bytes): own gets the defaults (every field
 * zero, its version latest), then, when given is not NULL, given's fields.
 * given's version (its first member, an unsigned) must be 1..latest. For
 * a struct that a later version grew, the entry point passes for size the
 * size of the caller's version (for version 1: offsetof the first field
 * version 2 added: kf_verify_opts, kf_segment_scan_opts), so that only the
 * fields the caller has are read. Then, when max_batch_bytes is not NULL (it
 * points into own), a zero there becomes KF_DEFAULT_MAX_BATCH_BYTES.
 * Returns KF_OK, or KF_ERR_UNSUPPORTED for a version 0 or past latest (own
 * then holds the defaults). */
int kf_opts_take(void *own, const void *given, size_t size, unsigned latest, size_t *max_batch_bytes);

/* kf_opts_take for a struct that a later version grew: own, own_size bytes,
 * is zeroed whole first (kf_opts_take zeroes only the caller's size), so the
 * fields the caller's version lacks get their defaults. */
static inline int kf_opts_take_grown(void *own, size_t own_size, const void *given, size_t given_size, unsigned latest,
                                     size_t *max_batch_bytes)
{
    memset(own, 0, own_size);
    return kf_opts_take(own, given, given_size, latest, max_batch_bytes);
}

/* An options struct held inside another (kf_stats_opts.read): the outer
 * struct's version covers it, so its own version may be left 0 (what the
 * outer KF_*_OPTIONS_INIT leaves); *version then becomes `current`, the one
 * the outer struct's version implies. */
void kf_opts_nested(unsigned *version, unsigned current);

#endif
