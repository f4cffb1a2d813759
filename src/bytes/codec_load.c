/* codec_load.c: libsnappy, loaded with dlopen when the first snappy batch
 * needs it, instead of linked into every run.
 *
 * Why: libsnappy is a C++ library; linking it makes every process load
 * libstdc++, libm and libgcc_s too and run their start-up, snappy batches
 * or not. Measured with perf stat on an empty C program linked with
 * kfsck's libraries: 1.68 ms from exec to exit against 1.04 ms without
 * libsnappy, where cat takes 0.97 ms; that difference was most of what a
 * verify of a page-cached 256 MiB segment lost to cat (issue 19). The
 * library itself is still what decompresses: it is the well-kept one.
 *
 * A build linked with libsnappy (make static passes it with -u for these
 * two symbols) finds the functions through the weak references below and
 * loads nothing.
 *
 * When the library cannot be loaded (an installation without it: the
 * Debian package depends on it), a snappy batch cannot be read. That must
 * not read as damage in the data, so besides the batch's decompress_error
 * the failure is kept for the whole process (kf_codec_load_error): the
 * writer refuses to commit any output of the run and the tool exits 3. */
#include "bytes/codec_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/codec.h"

#ifndef KF_SNAPPY_SONAME
#define KF_SNAPPY_SONAME "libsnappy.so.1" /* the Makefile passes the installed one's */
#endif

#pragma weak snappy_uncompress
#pragma weak snappy_uncompressed_length

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static kf_snappy_fns fns;
static atomic_int state; /* 0: not tried, 1: loaded, 2: failed (load_error says why) */
static char load_error[320];

static void load(void)
{
    if (snappy_uncompress && snappy_uncompressed_length) { /* linked in */
        fns.uncompressed_length = snappy_uncompressed_length;
        fns.uncompress = snappy_uncompress;
        atomic_store_explicit(&state, 1, memory_order_release);
        return;
    }
    void *h = dlopen(KF_SNAPPY_SONAME, RTLD_NOW | RTLD_LOCAL);
    const char *why = NULL;
    if (!h) {
        why = dlerror();
        if (!why)
            why = "dlopen failed";
    } else {
        void *a = dlsym(h, "snappy_uncompressed_length"), *b = dlsym(h, "snappy_uncompress");
        if (!a || !b)
            why = "it has no snappy_uncompress or snappy_uncompressed_length";
        else { /* dlsym's void * into function pointers through memcpy: ISO C
                  has no such cast, POSIX makes them the same representation */
            memcpy(&fns.uncompressed_length, &a, sizeof a);
            memcpy(&fns.uncompress, &b, sizeof b);
        }
    }
    if (why) {
        snprintf(load_error, sizeof load_error, "%s could not be loaded, so snappy batches could not be read (%s)",
                 KF_SNAPPY_SONAME, why);
        atomic_store_explicit(&state, 2, memory_order_release);
        return;
    }
    atomic_store_explicit(&state, 1, memory_order_release);
}

const kf_snappy_fns *kf_snappy_load(void)
{
    if (atomic_load_explicit(&state, memory_order_acquire) != 1) {
        pthread_once(&load_once, load);
        if (atomic_load_explicit(&state, memory_order_acquire) != 1) {
            kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL, "snappy: %s", load_error);
            return NULL;
        }
    }
    return &fns;
}

const char *kf_codec_load_error(void)
{
    return atomic_load_explicit(&state, memory_order_acquire) == 2 ? load_error : NULL;
}
