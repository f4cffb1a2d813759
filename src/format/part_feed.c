/* part_feed.c: open a partition reader, feed the job every batch, close it
 * and return its result (include/kfsck/sys/part_feed.h). */
#include "kfsck/sys/part_feed.h"

int kf_part_feed_reader(kf_part_reader *r, kf_part_batch_fn fn, void *ctx)
{
    kf_batch b;
    int got;
    while ((got = kf_part_reader_next(r, &b)) == 1) {
        int rc = fn(ctx, r, &b);
        if (rc != KF_OK)
            return rc == KF_PART_FEED_STOP ? KF_OK : rc;
    }
    return got < 0 ? -got : KF_OK;
}

int kf_part_feed(const kf_partition *p, const kf_part_reader_opts *o, kf_part_batch_fn fn, void *ctx,
                 kf_part_result *res)
{
    kf_part_reader *r;
    int rc = kf_part_reader_open(&r, p, o);
    if (rc != KF_OK) {
        if (res)
            *res = (kf_part_result){0};
        return rc;
    }
    rc = kf_part_feed_reader(r, fn, ctx);
    kf_part_reader_close(r, res);
    return rc;
}
