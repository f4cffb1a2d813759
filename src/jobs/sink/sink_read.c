/* sink_read.c: one partition read for the sink simulation
 * (include/kfsck/sink.h): find where the connector resumes, take the data
 * records from there in offset order, and feed their timestamps to the
 * simulation of the given settings and of the alternatives.
 *
 * A batch's records count only when the whole batch reads cleanly, as in
 * `stats`: they are staged (offset and timestamp, 16 bytes a record, so at
 * most a small multiple of the batch's decompressed size) and fed once the
 * batch has ended well. Batches wholly before the resume point are not
 * decoded at all. */
#include "bytes/error.h"
#include "bytes/grow.h"
#include "bytes/opts.h"
#include "kfsck/sink.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/batch.h"
#include "kfsck/sys/part_feed.h"

typedef struct staged {
    int64_t offset, ts;
} staged;

typedef struct sink_read {
    const kf_sink_opts *o;
    kf_part_reader *r;
    kf_sink_partition *out;
    kf_sink *sim[1 + KF_SINK_ALTS];
    kf_sink_figures *fig[1 + KF_SINK_ALTS];
    size_t nsim;
    staged *st;
    size_t nst, cap;
    int64_t from_offset;  /* records below it are not the connector's */
    bool started;         /* the resume point is found */
} sink_read;

void kf_sink_opts_init(kf_sink_opts *o)
{
    *o = (kf_sink_opts)KF_SINK_OPTIONS_INIT;
}

/* The bytes of the caller's kf_sink_opts: version 1 ends before
 * schedule_records. */
static size_t sink_opts_size(const kf_sink_opts *o)
{
    return o && o->version == 1 ? offsetof(kf_sink_opts, schedule_records) : sizeof(kf_sink_opts);
}

static int stage(sink_read *R, int64_t offset, int64_t ts)
{
    if (!KF_GROW(R->st, R->nst, R->cap, 256))
        return kf_error_nomem();
    R->st[R->nst].offset = offset;
    R->st[R->nst].ts = ts;
    R->nst++;
    return KF_OK;
}

/* Stage b's records: 1 when all of them read cleanly, 0 when the batch is
 * skipped (reported), or a negative kf_err. */
static int stage_batch(sink_read *R, kf_batch *b)
{
    R->nst = 0;
    kf_record_iter it;
    int rc = kf_part_reader_records(R->r, b, &it);
    if (rc == KF_OK) {
        kf_record rec;
        while ((rc = kf_records_next(&it, &rec)) == 1)
            if (stage(R, rec.offset, rec.timestamp) != KF_OK)
                return -KF_ERR_NOMEM;
    }
    if (rc == KF_OK || rc == 0)
        return 1;
    R->out->skipped_batches++;
    if (R->o->problem_fn) {
        kf_problem p;
        memset(&p, 0, sizeof p);
        p.code = it.err_code ? it.err_code : KF_P_BAD_RECORD;
        p.file = kf_part_reader_file(R->r);
        p.severity = KF_SEV_ERROR;
        p.position = b->position;
        p.has_offset = true;
        p.offset = b->base_offset;
        /* message[240] holds the reason: err_msg is cut at 180 characters */
        snprintf(p.message, sizeof p.message, "batch skipped by the sink simulation (figures may be low): %.180s",
                 it.err_msg);
        R->o->problem_fn(R->o->problem_ctx, &p);
    }
    R->nst = 0;
    return 0;
}

/* Hand the staged records at or after the resume point to the simulations. */
static int feed(sink_read *R, bool control)
{
    kf_sink_partition *out = R->out;
    for (size_t i = 0; i < R->nst; i++) {
        const staged *s = &R->st[i];
        if (s->offset < R->from_offset)
            continue;
        if (!out->has_resume) {
            out->has_resume = true;
            out->resume_offset = s->offset;
        }
        if (control) {
            out->control_records++;
            continue;
        }
        out->records++;
        /* Kafka Connect gives a sink -1 (no timestamp, and every magic-0
         * record) as null and rejects other negative timestamps: a
         * time-based partitioner cannot place such a record */
        if (s->ts < 0) {
            out->records_without_timestamp++;
            continue;
        }
        for (size_t k = 0; k < R->nsim; k++) {
            int rc = kf_sink_add(R->sim[k], s->offset, s->ts);
            if (rc != KF_OK)
                return rc;
        }
    }
    return KF_OK;
}

/* Before the resume time is found: is it in b? (offsetsForTimes: the first
 * batch whose max timestamp reaches the time, then the first record in it
 * that does). 1 found (from_offset set), 0 not, negative kf_err. */
static int find_time(sink_read *R, kf_batch *b)
{
    int64_t t = R->o->from_value;
    if (b->max_timestamp < t)
        return 0;
    int rc = stage_batch(R, b);
    if (rc <= 0)
        return rc;
    for (size_t i = 0; i < R->nst; i++)
        if (R->st[i].ts >= t) {
            R->from_offset = R->st[i].offset;
            return 1;
        }
    return 0;
}

/* One batch of the partition (kf_part_batch_fn): find the resume point,
 * then stage and feed the records from it on. */
static int read_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    sink_read *R = ctx;
    R->r = r;
    int rc;
    if (!R->started) {
        rc = find_time(R, b);
        if (rc < 0)
            return -rc;
        if (rc == 0)
            return KF_OK;
        R->started = true;
        return feed(R, b->control);
    }
    if (b->last_offset < R->from_offset)
        return KF_OK;
    if (b->control && b->magic >= 2) {
        /* not decoded: a sink never sees these records */
        if (!R->out->has_resume) {
            R->out->has_resume = true;
            R->out->resume_offset = b->base_offset > R->from_offset ? b->base_offset : R->from_offset;
        }
        R->out->control_records += b->count > 0 ? (uint64_t)b->count : 0;
        return KF_OK;
    }
    rc = stage_batch(R, b);
    if (rc < 0)
        return -rc;
    return rc == 1 ? feed(R, false) : KF_OK;
}

/* The simulations of o->config (and its alternatives) for one partition. */
static int sink_begin(sink_read *R, kf_sink_opts *own, const kf_sink_opts *o, kf_sink_partition *out)
{
    memset(out, 0, sizeof *out);
    memset(R, 0, sizeof *R);
    if (kf_opts_take_grown(own, sizeof *own, o, sink_opts_size(o), KF_SINK_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = own;
    R->o = o;
    R->out = out;
    R->started = o->from != KF_SINK_FROM_TIME;
    R->from_offset = o->from == KF_SINK_FROM_OFFSET ? o->from_value : INT64_MIN;
    if (o->from == KF_SINK_FROM_OFFSET) {
        out->has_resume = true;
        out->resume_offset = o->from_value;
    }
    R->fig[0] = &out->figures;
    int rc = kf_sink_new(&R->sim[0], &o->config);
    if (rc != KF_OK)
        return rc;
    kf_sink_set_schedule(R->sim[0], o->schedule_records);
    R->nsim = 1;
    if (rc == KF_OK && !o->no_alternatives) {
        kf_sink_alternatives(&o->config, out->alt);
        for (size_t k = 0; k < KF_SINK_ALTS && rc == KF_OK; k++) {
            if (!out->alt[k].on)
                continue;
            R->fig[R->nsim] = &out->alt[k].figures;
            rc = kf_sink_new(&R->sim[R->nsim], &out->alt[k].config);
            if (rc == KF_OK)
                kf_sink_set_schedule(R->sim[R->nsim++], o->schedule_records);
        }
    }
    return rc;
}

/* The figures, when the read went well, and the simulations freed. */
static int sink_end(sink_read *R, int rc)
{
    for (size_t k = 0; k < R->nsim; k++) {
        if (rc == KF_OK)
            kf_sink_figures_get(R->sim[k], R->fig[k]);
        kf_sink_free(R->sim[k]);
    }
    free(R->st);
    return rc;
}

int kf_sink_read_partition(kf_part_reader *r, const kf_sink_opts *o, kf_sink_partition *out)
{
    kf_sink_opts own;
    sink_read R;
    int rc = sink_begin(&R, &own, o, out);
    if (rc == KF_OK)
        rc = kf_part_feed_reader(r, read_batch, &R);
    return sink_end(&R, rc);
}

int kf_sink_read(const kf_partition *p, const kf_part_reader_opts *ro, const kf_sink_opts *o, kf_sink_partition *out,
                 kf_part_result *res)
{
    kf_sink_opts own;
    sink_read R;
    int rc = sink_begin(&R, &own, o, out);
    if (rc == KF_OK)
        rc = kf_part_feed(p, ro, read_batch, &R, res);
    else if (res)
        *res = (kf_part_result){0};
    return sink_end(&R, rc);
}
