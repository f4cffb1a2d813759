/* sink_topic.c: a topic's sink catch-up figures (the sums over its
 * partitions: what one task holding every partition may hold at once), the
 * partitions' tasks and the heap's verdict, and the suggestion that names
 * the settings bounding them (include/kfsck/sink.h). */
#include "kfsck/sink.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void kf_sink_topic_init(kf_sink_topic *t, const kf_sink_opts *o)
{
    memset(t, 0, sizeof *t);
    if (!o->no_alternatives)
        kf_sink_alternatives(&o->config, t->alt);
}

static void add_figures(kf_sink_figures *sum, const kf_sink_figures *f)
{
    sum->records_written += f->records_written;
    sum->files_committed += f->files_committed;
    sum->open_files += f->open_files;
    sum->peak_open_files += f->peak_open_files;
}

void kf_sink_topic_add(kf_sink_topic *t, const kf_sink_partition *p)
{
    t->partitions++;
    t->records += p->records;
    t->records_without_timestamp += p->records_without_timestamp;
    t->control_records += p->control_records;
    t->skipped_batches += p->skipped_batches;
    add_figures(&t->figures, &p->figures);
    for (size_t k = 0; k < KF_SINK_ALTS; k++)
        if (t->alt[k].on && p->alt[k].on)
            add_figures(&t->alt[k].figures, &p->alt[k].figures);
}

uint32_t kf_sink_task_of(uint64_t index, uint32_t tasks) { return tasks > 1 ? (uint32_t)(index % tasks) : 0; }

kf_sink_verdict kf_sink_verdict_of(uint64_t peak_buffer_bytes, uint64_t heap)
{
    if (!heap)
        return KF_SINK_VERDICT_NONE;
    return peak_buffer_bytes <= heap ? KF_SINK_FITS : KF_SINK_EXCEEDS;
}

const char *kf_sink_verdict_name(kf_sink_verdict v)
{
    return v == KF_SINK_FITS ? "fits" : v == KF_SINK_EXCEEDS ? "exceeds" : NULL;
}

/* "25.0 MiB", "1.5 GiB", "512 bytes" */
static void fmt_bytes(uint64_t n, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (n < 1024) {
        snprintf(buf, cap, "%" PRIu64 " bytes", n);
        return;
    }
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", v, units[u]);
}

/* "N open file(s) (X of buffers)" */
static void fmt_files(uint64_t files, uint64_t part_size, char *buf, size_t cap)
{
    char b[32];
    fmt_bytes(kf_sink_buffer_bytes(files, part_size), b, sizeof b);
    snprintf(buf, cap, "%" PRIu64 " open file%s (%s of buffers)", files, files == 1 ? "" : "s", b);
}

size_t kf_sink_suggest(const kf_sink_topic *t, const kf_sink_config *c, uint64_t part_size, char *buf, size_t n)
{
    char now[80], a[80], b[80];
    const kf_sink_figures *f = &t->figures;
    const kf_sink_alt *r = &t->alt[KF_SINK_WITH_ROTATE], *s = &t->alt[KF_SINK_WITH_SMALLER_FLUSH];
    fmt_files(f->peak_open_files, part_size, now, sizeof now);
    int len;
    if (f->records_written == 0)
        len = snprintf(buf, n, "nothing to size: no record with a timestamp from the resume point on");
    else if (c->rotate_interval_ms > 0)
        len = snprintf(buf, n,
                       "rotate.interval.ms=%" PRId64 " already keeps at most one file open per partition: %s at "
                       "most, %" PRIu64 " files committed",
                       c->rotate_interval_ms, now, f->files_committed);
    else if (!r->on)
        len = snprintf(buf, n, "%s at most", now);
    else if (r->figures.peak_open_files >= f->peak_open_files)
        /* with rotation each partition peaks at one file: so it does without */
        len = snprintf(buf, n,
                       "already at most one file open per partition, %s: neither rotate.interval.ms nor a smaller "
                       "flush.size lowers that; a smaller s3.part.size or more tasks (fewer partitions each) does",
                       now);
    else {
        fmt_files(r->figures.peak_open_files, part_size, a, sizeof a);
        len = snprintf(buf, n,
                       "set rotate.interval.ms (e.g. %" PRId64 ", the partition duration) to keep at most one file "
                       "open per partition: %s instead of %s, but %" PRIu64 " files committed instead of %" PRIu64,
                       r->config.rotate_interval_ms, a, now, r->figures.files_committed, f->files_committed);
        if (s->on && len >= 0) {
            char more[200];
            fmt_files(s->figures.peak_open_files, part_size, b, sizeof b);
            snprintf(more, sizeof more, "; or lower flush.size to %" PRIu64 ": %s, %" PRIu64 " files committed",
                     s->config.flush_size, b, s->figures.files_committed);
            if ((size_t)len < n)
                snprintf(buf + len, n - (size_t)len, "%s", more);
            len += (int)strlen(more);
        }
    }
    return len < 0 ? 0 : (size_t)len;
}
