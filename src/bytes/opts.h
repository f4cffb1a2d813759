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
 * Returns KF_OK, or KF_ERR_UNSUPPORTED with the last error set for a
 * version 0 or past latest (own then holds the defaults): its only
 * failure, so an entry point may return KF_ERR_UNSUPPORTED for any other
 * result than KF_OK. */
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

/* KF_OPTS_NEW(obj, type, given, latest, batch): the start of a constructor
 * whose object keeps the caller's options in its member `o`. *obj (obj a
 * type **) becomes a new object, zeroed, whose o holds the options given
 * as kf_opts_take takes them, a zero o.<batch> (the path of the options'
 * cap under o: max_batch_bytes, read.max_batch_bytes) made
 * KF_DEFAULT_MAX_BATCH_BYTES. Returns KF_OK; or, with *obj NULL and the
 * last error set, KF_ERR_UNSUPPORTED for a version the library does not
 * know or KF_ERR_NOMEM. The caller frees the object as it frees the rest
 * of it. */
#define KF_OPTS_NEW(obj, type, given, latest, batch)                                                          \
    KF_OPTS_NEW_GROWN(obj, type, given, sizeof(((type *)NULL)->o), latest, batch)

/* KF_OPTS_NEW for options a later version grew: given_size is the size of
 * the caller's version, as for kf_opts_take (the fields past it keep their
 * zero default). */
#define KF_OPTS_NEW_GROWN(obj, type, given, given_size, latest, batch)                                        \
    kf_opts_new_(1 ? (obj) : (type **)NULL /* obj must be a type ** */, sizeof(type), offsetof(type, o), (given), \
                 (given_size), (latest), offsetof(type, o.batch))

/* KF_OPTS_NEW's work: pobj the address of the caller's pointer, size the
 * object's size, opts_at and batch_at the offsets in it of its options and
 * of their cap. */
int kf_opts_new_(void *pobj, size_t size, size_t opts_at, const void *given, size_t given_size, unsigned latest,
                 size_t batch_at);

/* An options struct held inside another (kf_stats_opts.read): the outer
 * struct's version covers it, so its own version may be left 0 (what the
 * outer KF_*_OPTIONS_INIT leaves); *version then becomes `current`, the one
 * the outer struct's version implies. */
void kf_opts_nested(unsigned *version, unsigned current);

#endif
