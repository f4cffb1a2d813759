/* Room jobs/sink/: a storage sink connector catching up, simulated.
 * sink.c, one partition's open files (this file); sink_read.c, where the
 * connector resumes and the read from there; sink_topic.c, a topic's sums
 * and tasks; sink_advice.c, the settings that bound it and the suggestion;
 * sink_run.c, the simulation over the inputs (where each partition
 * resumes, with a group's commits from the offsets replay).
 *
 * sink.c: one topic partition's storage-sink simulation (include/kfsck/sink.h):
 * the files a time-based partitioner keeps open as records arrive in offset
 * order, their commits by flush.size, rotate.interval.ms and
 * rotate.schedule.interval.ms (counted in records), and the peak.
 *
 * The open files are a set of time buckets: an open-addressing table whose
 * slots carry the generation they were filled in, so that a commit (which
 * closes every open file at once) is one increment, whatever the number of
 * files. The table grows with the most files open at once, nothing else.
 * It is its own table, not the shared one (src/bytes/htab.h), for that
 * increment: emptying an htab is a pass over its entries and a free of
 * each key's copy, at every commit. */
#include "jobs/stats/stats_internal.h"
#include "bytes/error.h"
#include "bytes/htab.h"
#include "bytes/openaddr.h"
#include "kfsck/sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/stats.h"

typedef struct slot {
    int64_t bucket; /* kf_bucket_start of the file's records */
    uint32_t gen;   /* the slot is an open file when gen == kf_sink.gen */
} slot;

struct kf_sink {
    kf_sink_config c;
    slot *slots;
    size_t cap;        /* a power of two, or 0 */
    uint32_t gen;      /* >= 1 */
    uint64_t open;     /* files open now */
    uint64_t since_commit;  /* records written since the last commit */
    int64_t first_ts;  /* of the first of them */
    uint64_t schedule;       /* records between scheduled commits; 0: none */
    uint64_t since_schedule; /* records written since the previous scheduled commit */
    bool has_prev;
    int64_t prev_bucket;    /* of the previous record written */
    kf_sink_figures f;
};

int kf_sink_new(kf_sink **out, const kf_sink_config *c)
{
    *out = NULL;
    if (c->partition_duration_ms <= 0 || c->flush_size == 0 || c->rotate_interval_ms < 0)
        return kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL,
                            "the sink needs a positive partition duration and flush.size and an interval not negative");
    kf_sink *s = calloc(1, sizeof *s);
    if (!s)
        return kf_error_nomem();
    s->c = *c;
    s->gen = 1;
    *out = s;
    return KF_OK;
}

void kf_sink_free(kf_sink *s)
{
    if (!s)
        return;
    free(s->slots);
    free(s);
}

/* The open files on the probe loops of src/bytes/openaddr.h: a slot holds
 * an open file when filled in the current generation (ctx: &kf_sink.gen),
 * and a bucket is its key. */
_Static_assert(offsetof(slot, bucket) == 0, "a bucket is its slot's int64_t key");

static bool slot_used(const void *sl, const void *gen) { return ((const slot *)sl)->gen == *(const uint32_t *)gen; }

static const kf_oa_shape shape = {.size = sizeof(slot), .used = slot_used, .hash = kf_oa_int64_hash};

/* Close every open file. */
static void commit(kf_sink *s)
{
    s->f.files_committed += s->open;
    s->open = 0;
    s->since_commit = 0;
    if (++s->gen == 0) { /* wrapped after 2^32 commits: clear for real */
        if (s->slots)
            memset(s->slots, 0, s->cap * sizeof *s->slots);
        s->gen = 1;
    }
}

/* Open the file of `bucket` unless it is open. KF_OK or KF_ERR_NOMEM. */
static int open_file(kf_sink *s, int64_t bucket)
{
    if ((s->open + 1) * 4 > (uint64_t)s->cap * 3 && !kf_oa_grow(&shape, &s->slots, &s->cap, 16, &s->gen))
        return kf_error_nomem();
    uint64_t hash = htab_mix64((uint64_t)bucket);
    slot *sl = &s->slots[kf_oa_probe(&shape, s->slots, s->cap, hash, kf_oa_int64_is, &bucket, &s->gen)];
    if (sl->gen == s->gen)
        return KF_OK;
    sl->bucket = bucket;
    sl->gen = s->gen;
    s->open++;
    return KF_OK;
}

/* rotate.interval.ms: has ts reached first + interval? (no overflow) */
static bool interval_passed(int64_t first, int64_t ts, int64_t interval)
{
    return ts >= first && (uint64_t)ts - (uint64_t)first >= (uint64_t)interval;
}

int kf_sink_add(kf_sink *s, int64_t offset, int64_t ts)
{
    int64_t bucket = kf_bucket_start(ts, s->c.partition_duration_ms);
    if (s->c.rotate_interval_ms > 0 && s->since_commit > 0 &&
        (bucket != s->prev_bucket || interval_passed(s->first_ts, ts, s->c.rotate_interval_ms)))
        commit(s);
    if (s->since_commit == 0)
        s->first_ts = ts;
    /* the previous record's file is open unless a commit came since */
    if (!(s->since_commit > 0 && bucket == s->prev_bucket)) {
        int rc = open_file(s, bucket);
        if (rc != KF_OK)
            return rc;
    }
    s->since_commit++;
    s->f.records_written++;
    s->has_prev = true;
    s->prev_bucket = bucket;
    if (s->open > s->f.peak_open_files) {
        s->f.peak_open_files = s->open;
        s->f.peak_at_offset = offset;
        s->f.has_peak = true;
    }
    /* rotate.schedule.interval.ms: the wall clock of a connector catching
     * up, counted in the records it writes, runs on through flush commits */
    if (__builtin_expect(s->schedule != 0, 0) && ++s->since_schedule >= s->schedule) {
        s->since_schedule = 0;
        commit(s);
    } else if (s->since_commit >= s->c.flush_size)
        commit(s);
    return KF_OK;
}

void kf_sink_figures_get(const kf_sink *s, kf_sink_figures *f)
{
    *f = s->f;
    f->open_files = s->open;
}

void kf_sink_set_schedule(kf_sink *s, uint64_t records)
{
    s->schedule = records;
    s->since_schedule = 0;
}

uint64_t kf_sink_schedule_records(int64_t interval_ms, uint64_t rate)
{
    if (interval_ms <= 0 || rate == 0)
        return 0;
    unsigned __int128 r = (unsigned __int128)(uint64_t)interval_ms * rate / 1000;
    return r == 0 ? 1 : r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

void kf_sink_reset(kf_sink *s)
{
    commit(s); /* closes the open files (a fresh generation) */
    s->has_prev = false;
    s->prev_bucket = 0;
    s->first_ts = 0;
    s->since_schedule = 0;
    memset(&s->f, 0, sizeof s->f);
}

uint64_t kf_sink_buffer_bytes(uint64_t files, uint64_t part_size)
{
    uint64_t r;
    return __builtin_mul_overflow(files, part_size, &r) ? UINT64_MAX : r;
}

void kf_sink_alternatives(const kf_sink_config *c, kf_sink_alt alt[KF_SINK_ALTS])
{
    memset(alt, 0, KF_SINK_ALTS * sizeof *alt);
    if (c->rotate_interval_ms > 0)
        return; /* already at most one open file per partition */
    alt[KF_SINK_WITH_ROTATE].on = true;
    alt[KF_SINK_WITH_ROTATE].config = *c;
    alt[KF_SINK_WITH_ROTATE].config.rotate_interval_ms = c->partition_duration_ms;
    if (c->flush_size > 1) {
        alt[KF_SINK_WITH_SMALLER_FLUSH].on = true;
        alt[KF_SINK_WITH_SMALLER_FLUSH].config = *c;
        alt[KF_SINK_WITH_SMALLER_FLUSH].config.flush_size = c->flush_size / 10 ? c->flush_size / 10 : 1;
    }
}
