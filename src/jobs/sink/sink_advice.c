/* sink_advice.c: the settings ("levers") that bound a topic's open files
 * and upload buffers while a storage sink connector catches up, weighed
 * against the heap, the suggestion that words them, and the model stated
 * with the figures filled in (include/kfsck/sink.h). The rotation and flush.size levers are the
 * alternatives simulated in the same pass over the records (sink_read.c);
 * the part size and the workers are arithmetic on the peaks. */
#include "kfsck/sink.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* "25.0 MiB", "1.5 GiB", "512 bytes" */
static void fmt_bytes(uint64_t n, char *buf, size_t cap)
{
    kf_format_bytes(n, "bytes", buf, cap);
}

/* "N open file(s) (X of buffers)" */
static void fmt_files(uint64_t files, uint64_t part_size, char *buf, size_t cap)
{
    char b[32];
    fmt_bytes(kf_sink_buffer_bytes(files, part_size), b, sizeof b);
    snprintf(buf, cap, "%" PRIu64 " open file%s (%s of buffers)", files, files == 1 ? "" : "s", b);
}

/* A topic's open files, the sum of its partitions' peaks: an upper bound,
 * "at most N open files (X of buffers)", reached only ", if every
 * partition peaks at once" when there are several. */
static void fmt_bound(uint64_t files, uint64_t part_size, uint64_t partitions, char *buf, size_t cap)
{
    char f[80];
    fmt_files(files, part_size, f, sizeof f);
    snprintf(buf, cap, "at most %s%s", f, partitions > 1 ? ", if every partition peaks at once" : "");
}

const char *kf_sink_lever_name(kf_sink_lever_kind k)
{
    static const char *const names[KF_SINK_LEVERS] = {"rotate.interval.ms", "flush.size", "s3.part.size",
                                                      "tasks.max"};
    return (unsigned)k < KF_SINK_LEVERS ? names[k] : "";
}

static void fill(kf_sink_lever *l, uint64_t value, uint64_t peak, uint64_t part_size, const kf_sink_figures *f,
                 uint64_t heap)
{
    l->on = true;
    l->value = value;
    l->peak_open_files = peak;
    l->peak_buffer_bytes = kf_sink_buffer_bytes(peak, part_size);
    l->files_committed = f->files_committed;
    l->records_written = f->records_written;
    /* every file written holds records: the committed ones and those still open */
    uint64_t files = f->files_committed + f->open_files;
    l->records_per_file = files ? f->records_written / files : 0;
    l->tiny_files = f->files_committed > 0 && l->records_per_file < KF_SINK_TINY_FILE_RECORDS;
    l->verdict = kf_sink_verdict_of(l->peak_buffer_bytes, heap);
}

/* The most open files one of k tasks holds, the partitions dealt
 * round-robin (partition i to task i mod k). */
static uint64_t largest_task(const uint64_t *peaks, size_t n, size_t k)
{
    uint64_t most = 0;
    for (size_t t = 0; t < k; t++) {
        uint64_t sum = 0;
        for (size_t i = t; i < n; i += k)
            sum += peaks[i];
        most = sum > most ? sum : most;
    }
    return most;
}

/* KF_SINK_LEVER_WORKERS: the fewest tasks from `from` (a worker each) whose
 * largest task holds at most `files` open files; n (one partition each)
 * when none does. */
static size_t workers_for(const uint64_t *peaks, size_t n, size_t from, uint64_t files, uint64_t *largest)
{
    uint64_t total = 0, biggest = 0;
    for (size_t i = 0; i < n; i++) {
        total += peaks[i];
        biggest = peaks[i] > biggest ? peaks[i] : biggest;
    }
    if (biggest <= files) {
        /* the largest task holds at least the average: fewer tasks cannot fit */
        size_t k = files ? (size_t)((total + files - 1) / files) : from;
        for (k = k < from ? from : k; k <= n; k++) {
            uint64_t l = largest_task(peaks, n, k);
            if (l <= files) {
                *largest = l;
                return k;
            }
        }
    }
    *largest = biggest;
    return n;
}

void kf_sink_levers(const kf_sink_topic *t, const kf_sink_advice_in *a, kf_sink_lever lever[KF_SINK_LEVERS])
{
    memset(lever, 0, KF_SINK_LEVERS * sizeof *lever);
    const kf_sink_figures *f = &t->figures;
    for (size_t k = 0; k < KF_SINK_ALTS; k++) {
        const kf_sink_alt *alt = &t->alt[k];
        if (!alt->on)
            continue;
        if (k == KF_SINK_WITH_ROTATE)
            fill(&lever[KF_SINK_LEVER_ROTATE], (uint64_t)alt->config.rotate_interval_ms,
                 alt->figures.peak_open_files, a->part_size, &alt->figures, a->heap);
        else
            fill(&lever[KF_SINK_LEVER_FLUSH], alt->config.flush_size, alt->figures.peak_open_files, a->part_size,
                 &alt->figures, a->heap);
    }
    /* The part size and the workers are chosen to leave the worker room:
     * their buffers stay below the heap (at most heap - 1 bytes). */
    uint64_t peak = f->peak_open_files;
    if (a->part_size > KF_SINK_MIN_PART_SIZE && peak) {
        uint64_t ps = KF_SINK_MIN_PART_SIZE;
        if (a->heap) { /* the largest whole MiB below the heap, not below the minimum */
            uint64_t fit = (a->heap - 1) / peak >> 20 << 20;
            ps = fit < KF_SINK_MIN_PART_SIZE ? KF_SINK_MIN_PART_SIZE : fit;
        }
        if (ps < a->part_size)
            fill(&lever[KF_SINK_LEVER_PART_SIZE], ps, peak, ps, f, a->heap);
    }
    /* more tasks than given, never fewer: the first offered is one more */
    size_t from = (size_t)(a->tasks > 1 ? a->tasks : 1) + 1;
    if (a->npartitions >= from && a->partition_peaks) {
        uint64_t most;
        size_t k = a->npartitions;
        if (a->heap)
            k = workers_for(a->partition_peaks, a->npartitions, from,
                            (a->heap - 1) / (a->part_size ? a->part_size : 1), &most);
        else
            most = largest_task(a->partition_peaks, a->npartitions, k);
        fill(&lever[KF_SINK_LEVER_WORKERS], k, most, a->part_size, f, a->heap);
    }
}

/* Appending to the suggestion: the length it needs, as snprintf. */
typedef struct text {
    char *buf;
    size_t cap, len;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->len < t->cap ? t->buf + t->len : NULL, t->len < t->cap ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

/* The words of buffers weighed against the heap (KF_SINK_FITS: below it;
 * KF_SINK_FILLS: exactly it, which the contract's JSON calls "fits" but
 * which leaves the worker nothing). */
static const char *const FILLS_WORDS = "exactly, leaving nothing for the worker itself";

/* What a lever's files (when it changes them) and the heap say of it. */
static void lever_tail(text *t, const kf_sink_lever *l, bool own_files, const char *heap)
{
    if (own_files && l->tiny_files)
        put(t, " (files of %" PRIu64 " records on average: files of fewer than 1,000 records flood object storage)",
            l->records_per_file);
    if (l->verdict == KF_SINK_FITS)
        put(t, ", fits the %s heap", heap);
    else if (l->verdict == KF_SINK_FILLS)
        put(t, ", fills the %s heap %s", heap, FILLS_WORDS);
    else if (l->verdict == KF_SINK_EXCEEDS)
        put(t, ", still over the %s heap", heap);
}

size_t kf_sink_advise(const kf_sink_topic *t, const kf_sink_advice_in *a, char *buf, size_t n)
{
    text out = {buf, n, 0};
    if (n)
        buf[0] = 0;
    const kf_sink_figures *f = &t->figures;
    char now[160], b[80], heap[32] = "", full[128] = "";
    fmt_bound(f->peak_open_files, a->part_size, t->partitions, now, sizeof now);
    if (a->heap)
        fmt_bytes(a->heap, heap, sizeof heap);
    if (f->records_written == 0) {
        put(&out, "nothing to size: no record with a timestamp from the resume point on");
        return out.len;
    }
    kf_sink_verdict v = kf_sink_verdict_of(kf_sink_buffer_bytes(f->peak_open_files, a->part_size), a->heap);
    if (v == KF_SINK_FITS) {
        put(&out, "nothing to change: %s, within the %s heap", now, heap);
        return out.len;
    }
    if (v == KF_SINK_FILLS)
        snprintf(full, sizeof full, ", which fill the %s heap %s", heap, FILLS_WORDS);
    kf_sink_lever lever[KF_SINK_LEVERS];
    kf_sink_levers(t, a, lever);
    const kf_sink_lever *r = &lever[KF_SINK_LEVER_ROTATE], *fl = &lever[KF_SINK_LEVER_FLUSH];
    bool lowers = r->on && r->peak_open_files < f->peak_open_files;
    const char *sep = "";
    if (a->config.rotate_interval_ms > 0) {
        put(&out,
            "rotate.interval.ms=%" PRId64 " already keeps at most one file open per partition: %s, "
            "%" PRIu64 " files committed%s",
            a->config.rotate_interval_ms, now, f->files_committed, full);
        sep = "; or ";
    } else if (r->on && !lowers) {
        /* with rotation each partition peaks at one file: so it does without */
        put(&out, "already at most one file open per partition, %s%s: neither rotate.interval.ms nor a smaller "
            "flush.size lowers that", now, full);
        sep = "; ";
    } else if (!r->on || full[0]) {
        put(&out, "%s%s", now, full);
        sep = "; or ";
    }
    if (lowers) {
        fmt_files(r->peak_open_files, a->part_size, b, sizeof b);
        put(&out, "%sset rotate.interval.ms (e.g. %" PRIu64 ", the partition duration) to keep at most one file "
            "open per partition: %s instead of %s, but %" PRIu64 " files committed instead of %" PRIu64,
            full[0] ? "; " : "", r->value, b, now, r->files_committed, f->files_committed);
        lever_tail(&out, r, true, heap);
        sep = "; or ";
        if (fl->on) {
            fmt_files(fl->peak_open_files, a->part_size, b, sizeof b);
            put(&out, "; or lower flush.size to %" PRIu64 ": at most %s, %" PRIu64 " files committed", fl->value, b,
                fl->files_committed);
            lever_tail(&out, fl, true, heap);
        }
    }
    const kf_sink_lever *p = &lever[KF_SINK_LEVER_PART_SIZE], *w = &lever[KF_SINK_LEVER_WORKERS];
    if (p->on) {
        fmt_bytes(p->peak_buffer_bytes, b, sizeof b);
        put(&out, "%sa smaller s3.part.size=%" PRIu64 " MiB%s: the same open files (at most %" PRIu64 ") hold %s "
            "of buffers, the same files", sep, p->value >> 20, p->value == KF_SINK_MIN_PART_SIZE ? " (its minimum)" : "",
            p->peak_open_files, b);
        lever_tail(&out, p, false, heap);
        sep = "; or ";
    }
    if (w->on) {
        fmt_files(w->peak_open_files, a->part_size, b, sizeof b);
        put(&out, "%smore workers: tasks.max=%" PRIu64 " on %" PRIu64 " workers, a task each (this topic's %zu "
            "partitions round-robin): the largest task holds at most %s, the same files", sep, w->value, w->value,
            a->npartitions, b);
        lever_tail(&out, w, false, heap);
    }
    return out.len;
}

size_t kf_sink_explain(const kf_sink_topic *t, const kf_sink_advice_in *a, char *buf, size_t n)
{
    text out = {buf, n, 0};
    if (n)
        buf[0] = 0;
    const kf_sink_config *c = &a->config;
    put(&out, "each record goes to the file of its time bucket, floor(timestamp / %" PRId64 " ms), and all open "
        "files of a partition are committed together every %" PRIu64 " records written (flush.size)",
        c->partition_duration_ms, c->flush_size);
    if (a->schedule_records) {
        char secs[40];
        if (a->schedule_interval_ms % 1000)
            snprintf(secs, sizeof secs, "%.3f", (double)a->schedule_interval_ms / 1000);
        else
            snprintf(secs, sizeof secs, "%" PRId64, a->schedule_interval_ms / 1000);
        put(&out, " and every %s s x %" PRIu64 " records/s = %" PRIu64 " records written "
            "(rotate.schedule.interval.ms at the catch-up rate), whichever comes first", secs, a->catch_up_rate,
            a->schedule_records);
    }
    if (c->rotate_interval_ms > 0)
        put(&out, ", and before a record of another bucket or %" PRId64 " ms past the first since the last commit "
            "(rotate.interval.ms)", c->rotate_interval_ms);
    uint64_t most = 0, sum = 0;
    for (size_t i = 0; i < a->npartitions && a->partition_peaks; i++) {
        most = a->partition_peaks[i] > most ? a->partition_peaks[i] : most;
        sum += a->partition_peaks[i];
    }
    char b[32], total[32];
    fmt_bytes(kf_sink_buffer_bytes(most, a->part_size), b, sizeof b);
    fmt_bytes(kf_sink_buffer_bytes(t->figures.peak_open_files, a->part_size), total, sizeof total);
    char ps[32];
    fmt_bytes(a->part_size, ps, sizeof ps);
    uint64_t peak = t->figures.peak_open_files;
    put(&out, ". So the open files of a partition ~ the time buckets spanned by the records written between two "
        "commits (disorder and late data widen the span): here at most %" PRIu64 ", %.1f on average over %zu "
        "partition%s. Buffers ~ open files x s3.part.size = %" PRIu64 " x %s = %s for the largest partition; x the "
        "partitions of one worker: %zu partition%s in %" PRIu32 " task%s hold%s at most %" PRIu64 " open file%s%s = %s",
        most, a->npartitions ? (double)sum / (double)a->npartitions : 0.0, a->npartitions,
        a->npartitions == 1 ? "" : "s", most, ps, b, a->npartitions, a->npartitions == 1 ? "" : "s",
        a->tasks ? a->tasks : 1, a->tasks > 1 ? "s" : "", a->npartitions == 1 ? "s" : "", peak, peak == 1 ? "" : "s",
        a->npartitions > 1 ? ", if every partition peaks at once (the sum of the partitions' peaks)" : "", total);
    kf_sink_verdict v = kf_sink_verdict_of(kf_sink_buffer_bytes(peak, a->part_size), a->heap);
    if (v != KF_SINK_VERDICT_NONE) {
        char h[32];
        fmt_bytes(a->heap, h, sizeof h);
        if (v == KF_SINK_FILLS)
            put(&out, ", against the %s heap: fills it %s", h, FILLS_WORDS);
        else
            put(&out, ", against the %s heap: %s", h, kf_sink_verdict_name(v));
    }
    put(&out, ". For other settings: records between commits = the smaller of flush.size and "
        "rotate.schedule.interval.ms (s) x records/s; open files ~ 1 + the time they span / partition.duration.ms.");
    return out.len;
}
