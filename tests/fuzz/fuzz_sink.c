/* fuzz_sink.c: fuzz target for the storage-sink simulation (kf_sink): any
 * settings and any (offset, timestamp) sequence, checked against a naive
 * model of the same rules kept here (a list of open buckets searched
 * linearly), and the topic's levers and suggestion built from the result.
 * Input: [u64 duration][u32 flush.size][u64 rotate][(i64 offset, i64 ts)...],
 * big-endian; the settings are folded into valid ranges (the duration's
 * high bits also give rotate.schedule.interval.ms in records, the rotate
 * field's a heap). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/stats/stats_internal.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 2048

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static int64_t floor_div_start(int64_t ts, int64_t d)
{
    return kf_bucket_start(ts, d);
}

/* The rules of cli.md, written out plainly. */
typedef struct naive {
    int64_t open[MAX_RECORDS];
    size_t nopen;
    uint64_t since, since_scheduled, committed, peak, written;
    int64_t first_ts, prev, peak_at;
} naive;

static void naive_commit(naive *m)
{
    m->committed += m->nopen;
    m->nopen = 0;
    m->since = 0;
}

static void naive_add(naive *m, const kf_sink_config *c, uint64_t schedule, int64_t off, int64_t ts)
{
    int64_t b = floor_div_start(ts, c->partition_duration_ms);
    if (c->rotate_interval_ms > 0 && m->since > 0) {
        __int128 diff = (__int128)ts - m->first_ts;
        if (b != m->prev || diff >= c->rotate_interval_ms)
            naive_commit(m);
    }
    if (m->since == 0)
        m->first_ts = ts;
    size_t i = 0;
    while (i < m->nopen && m->open[i] != b)
        i++;
    if (i == m->nopen)
        m->open[m->nopen++] = b;
    m->since++;
    m->written++;
    m->prev = b;
    if (m->nopen > m->peak) {
        m->peak = m->nopen;
        m->peak_at = off;
    }
    bool scheduled = schedule && ++m->since_scheduled == schedule;
    if (scheduled)
        m->since_scheduled = 0;
    if (scheduled || m->since >= c->flush_size)
        naive_commit(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 20)
        return 0;
    kf_sink_config c;
    uint64_t d = be64(data), r = be64(data + 12);
    uint32_t f = (uint32_t)data[8] << 24 | (uint32_t)data[9] << 16 | (uint32_t)data[10] << 8 | data[11];
    /* small durations and intervals make the interesting cases likely */
    c.partition_duration_ms = (int64_t)(d % 4 == 0 ? 1 + d % 1000000000000ull : 1 + d % 100);
    c.flush_size = 1 + f % (f & 0x80000000u ? 100000u : 50u);
    c.rotate_interval_ms = r % 3 == 0 ? 0 : (int64_t)(1 + (r >> 2) % (r % 3 == 1 ? 200 : 10000000000ull));
    uint64_t schedule = (d >> 40) % 4 == 0 ? 0 : 1 + (d >> 42) % 300;
    uint64_t heap = (r >> 8) % 2 ? 0 : (r >> 16) % (1ull << 36);
    data += 20;
    size -= 20;
    size_t n = size / 16;
    if (n > MAX_RECORDS)
        n = MAX_RECORDS;

    kf_sink *s;
    if (kf_sink_new(&s, &c) != KF_OK)
        abort();
    kf_sink_set_schedule(s, schedule);
    naive *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    for (size_t i = 0; i < n; i++) {
        int64_t off = (int64_t)be64(data + 16 * i), ts = (int64_t)be64(data + 16 * i + 8);
        if (kf_sink_add(s, off, ts) != KF_OK)
            abort();
        naive_add(m, &c, schedule, off, ts);
    }
    kf_sink_figures fig;
    kf_sink_figures_get(s, &fig);
    if (fig.records_written != m->written || fig.files_committed != m->committed || fig.open_files != m->nopen ||
        fig.peak_open_files != m->peak || fig.has_peak != (n > 0) || (n && fig.peak_at_offset != m->peak_at))
        abort();

    /* the topic sums and the suggestion, with the figures as alternatives too */
    kf_sink_opts o;
    kf_sink_opts_init(&o);
    o.config = c;
    kf_sink_topic t;
    kf_sink_topic_init(&t, &o);
    kf_sink_partition p;
    memset(&p, 0, sizeof p);
    p.records = n;
    p.figures = fig;
    kf_sink_alternatives(&c, p.alt);
    for (size_t k = 0; k < KF_SINK_ALTS; k++)
        p.alt[k].figures = fig;
    kf_sink_topic_add(&t, &p);
    /* the topic's partitions: this one and copies of its peak, halved */
    uint64_t peaks[3] = {fig.peak_open_files, fig.peak_open_files / 2, fig.peak_open_files / 4};
    kf_sink_advice_in adv = {c, schedule, 0, 0, f, heap, 1 + (f >> 8) % 8, peaks, 1 + d % 3};
    kf_sink_lever lever[KF_SINK_LEVERS];
    kf_sink_levers(&t, &adv, lever);
    const kf_sink_lever *w = &lever[KF_SINK_LEVER_WORKERS];
    uint64_t all = 0;
    for (size_t i = 0; i < adv.npartitions; i++)
        all += peaks[i];
    /* task 0 holds partition 0: the largest task holds at least its peak */
    if (w->on && (w->value < 2 || w->value > adv.npartitions || w->peak_open_files > all ||
                  w->peak_open_files < peaks[0]))
        abort();
    const kf_sink_lever *ps = &lever[KF_SINK_LEVER_PART_SIZE];
    if (ps->on && (ps->value < KF_SINK_MIN_PART_SIZE || ps->value >= adv.part_size))
        abort();
    char buf[64], big[4096];
    size_t need = kf_sink_advise(&t, &adv, big, sizeof big);
    if (need != strlen(big) || kf_sink_advise(&t, &adv, buf, sizeof buf) != need || strlen(buf) >= sizeof buf)
        abort();
    free(m);
    kf_sink_free(s);
    return 0;
}
