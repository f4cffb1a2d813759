/* opts.c: how an entry point takes the caller's options (opts.h): the
 * version check, the defaults, and the new object that keeps them. */
#include "bytes/opts.h"

#include <errno.h>
#include <stdlib.h>

#include "bytes/error.h"
#include "kfsck/common.h"

int kf_opts_take(void *own, const void *given, size_t size, unsigned latest, size_t *max_batch_bytes)
{
    memset(own, 0, size);
    memcpy(own, &latest, sizeof latest);
    if (given) {
        unsigned version;
        memcpy(&version, given, sizeof version);
        if (version == 0 || version > latest)
            return kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL,
                                "options version %u is not one this library knows (1 to %u; 0: not started from its INIT)",
                                version, latest);
        memcpy(own, given, size);
    }
    if (max_batch_bytes && *max_batch_bytes == 0)
        *max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    return KF_OK;
}

int kf_opts_new_(void *pobj, size_t size, size_t opts_at, const void *given, size_t given_size, unsigned latest,
                 size_t batch_at)
{
    void *obj = NULL;
    memcpy(pobj, &obj, sizeof obj); /* the caller's pointer, whatever its type */
    obj = calloc(1, size);
    if (!obj)
        return kf_error_nomem();
    char *at = obj;
    int rc = kf_opts_take(at + opts_at, given, given_size, latest, (size_t *)(void *)(at + batch_at));
    if (rc != KF_OK) {
        free(obj);
        return rc;
    }
    memcpy(pobj, &obj, sizeof obj);
    return KF_OK;
}

void kf_opts_nested(unsigned *version, unsigned current)
{
    if (*version == 0)
        *version = current;
}
