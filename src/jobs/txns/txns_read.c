/* txns_read.c: the txns drivers (include/kfsck/txns.h): a
 * __transaction_state partition fed to the coordinator's view, and a data
 * partition fed to the txns job, each read whole through kf_part_feed. */
#include <stdlib.h>

#include "bytes/opts.h"
#include "kfsck/sys/part_feed.h"
#include "kfsck/txns.h"

typedef struct coord_feed {
    kf_txn_coord *c;
    int32_t partition;
    kf_buf buf;
    size_t max_bytes;
    kf_problem_fn fn;
    void *ctx;
} coord_feed;

static int coord_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    (void)r;
    coord_feed *f = ctx;
    return kf_txn_coord_batch(f->c, f->partition, b, &f->buf, f->max_bytes, f->fn, f->ctx);
}

int kf_txn_coord_read(kf_txn_coord *c, const kf_partition *p, const kf_part_reader_opts *ro, kf_problem_fn fn,
                      void *ctx, kf_part_result *res)
{
    kf_part_reader_opts own;
    if (kf_opts_take(&own, ro, sizeof own, KF_PART_READER_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    ro = &own;
    coord_feed f = {c, p->partition, {0}, ro->max_batch_bytes, fn, ctx};
    int rc = kf_part_feed(p, ro, coord_batch, &f, res);
    kf_buf_free(&f.buf);
    return rc;
}

static int txns_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    return kf_txns_batch(ctx, b, kf_part_reader_file(r));
}

int kf_txns_read(kf_txns **t, const kf_partition *p, const kf_txns_opts *o, const kf_part_reader_opts *ro,
                 kf_txn_report_fn fn, void *ctx, kf_txns_result *res, kf_part_result *pres)
{
    *t = NULL;
    int rc = kf_txns_open(t, p, o);
    if (rc != KF_OK)
        return rc;
    kf_part_result ur;
    rc = kf_part_feed(p, ro, txns_batch, *t, &ur);
    if (pres)
        *pres = ur;
    if (rc != KF_OK)
        return rc;
    return kf_txns_finish(*t, ur.uncovered > 0 || ur.unreadable, fn, ctx, res);
}
