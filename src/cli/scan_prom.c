/* scan_prom.c: `kfsck scan --format prometheus`: the scan's health as gauges
 * in the Prometheus text exposition format (version 0.0.4), for
 * node_exporter's textfile collector. Per partition, labelled datadir, topic
 * and partition: errors, warnings, bytes, segments, log end offset (none
 * for a partition with no segment) and the log end the broker's recovery
 * after an unclean shutdown would leave (none when unknown); per run: errors, partitions, duration
 * and the time it ended. A metric family's samples must stand together, so
 * the partitions' figures are kept (a few numbers and two strings each) and
 * printed after the last data dir. Problems go to stderr as text lines; the
 * metrics are all that stdout holds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/scan_prom.h"
#include "cli/walk.h"

typedef struct prom_row {
    char *datadir, *topic;
    int32_t partition;
    uint64_t errors, warnings, bytes, segments;
    bool has_log_end, has_recovery_end;
    int64_t log_end_offset, recovery_end_offset;
} prom_row;

struct scan_prom {
    prom_row *rows;
    size_t n, cap;
    out err;              /* problems, as text lines on stderr */
    struct timespec start;
};

scan_prom *scan_prom_new(void)
{
    scan_prom *sp = must(calloc(1, sizeof *sp));
    out_init(&sp->err, stderr, false);
    clock_gettime(CLOCK_MONOTONIC, &sp->start);
    return sp;
}

void scan_prom_dir_problem(void *ctx, const kf_problem *p)
{
    report r = {&((scan_prom *)ctx)->err, NULL, 0, 0};
    report_problem(&r, p);
}

void scan_prom_partition(void *ctx, const kf_datadir_partition *p)
{
    scan_prom *sp = ctx;
    if (sp->n == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 64;
        sp->rows = must(realloc(sp->rows, cap * sizeof *sp->rows));
        sp->cap = cap;
    }
    sp->rows[sp->n++] = (prom_row){
        .datadir = must(strdup(p->id.datadir)),
        .topic = must(strdup(p->id.topic)),
        .partition = p->id.partition,
        .errors = p->errors,
        .warnings = p->warnings,
        .bytes = p->log.bytes,
        .segments = p->log.segments,
        .has_log_end = p->log.has_log_end,
        .log_end_offset = p->log.log_end_offset,
        .has_recovery_end = p->has_recovery_end,
        .recovery_end_offset = p->recovery_end_offset,
    };
    for (size_t i = 0; i < p->n_problems; i++)
        scan_prom_dir_problem(sp, &p->problems[i]);
}

/* A label value: escaped by the one rule of human-facing output first
 * (escape.h: no control character, CR, BEL or ESC, reaches a terminal or a
 * scraper's log, and invalid UTF-8 is \xNN), then quoted and escaped as the
 * format wants (backslash, double quote). */
static void put_label(FILE *f, const char *name, const char *v)
{
    size_t cap = strlen(v) * 4 + 1;
    char *e = must(malloc(cap));
    esc_str(v, e, cap);
    tprintf(f, "%s=\"", name);
    for (const char *c = e; *c; c++) {
        if (*c == '\\' || *c == '"')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputc('"', f);
    free(e);
}

static void family(FILE *f, const char *name, const char *help)
{
    tprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

enum prom_field { F_ERRORS, F_WARNINGS, F_BYTES, F_SEGMENTS, F_LOG_END, F_RECOVERY_END };

static const struct {
    const char *name, *help;
} partition_families[] = {
    [F_ERRORS] = {"kfsck_partition_errors", "Errors kfsck scan found in the partition."},
    [F_WARNINGS] = {"kfsck_partition_warnings", "Warnings kfsck scan found in the partition."},
    [F_BYTES] = {"kfsck_partition_bytes", "Total size of the partition's .log segments in bytes."},
    [F_SEGMENTS] = {"kfsck_partition_segments", "Number of the partition's .log segments."},
    [F_LOG_END] = {"kfsck_partition_log_end_offset",
                   "Log end offset of the partition as its segments give it (last offset + 1 of the last intact "
                   "batch)."},
    [F_RECOVERY_END] = {"kfsck_partition_recovery_end_offset",
                        "Log end offset the broker's recovery of the partition would leave after an unclean "
                        "shutdown (the end of the last batch before the first damage it truncates at)."},
};

static void partition_samples(FILE *f, const scan_prom *sp, enum prom_field field)
{
    family(f, partition_families[field].name, partition_families[field].help);
    for (size_t i = 0; i < sp->n; i++) {
        const prom_row *r = &sp->rows[i];
        if ((field == F_LOG_END && !r->has_log_end) || (field == F_RECOVERY_END && !r->has_recovery_end))
            continue;
        char part[16];
        snprintf(part, sizeof part, "%d", (int)r->partition);
        tprintf(f, "%s{", partition_families[field].name);
        put_label(f, "datadir", r->datadir);
        fputc(',', f);
        put_label(f, "topic", r->topic);
        fputc(',', f);
        put_label(f, "partition", part);
        switch (field) {
        case F_ERRORS: tprintf(f, "} %llu\n", (unsigned long long)r->errors); break;
        case F_WARNINGS: tprintf(f, "} %llu\n", (unsigned long long)r->warnings); break;
        case F_BYTES: tprintf(f, "} %llu\n", (unsigned long long)r->bytes); break;
        case F_SEGMENTS: tprintf(f, "} %llu\n", (unsigned long long)r->segments); break;
        case F_LOG_END: tprintf(f, "} %lld\n", (long long)r->log_end_offset); break;
        case F_RECOVERY_END: tprintf(f, "} %lld\n", (long long)r->recovery_end_offset); break;
        }
    }
}

void scan_prom_finish(scan_prom *sp, FILE *f, const kf_datadir_totals *tot)
{
    struct timespec end, now;
    clock_gettime(CLOCK_MONOTONIC, &end);
    clock_gettime(CLOCK_REALTIME, &now);
    double secs = (double)(end.tv_sec - sp->start.tv_sec) + (double)(end.tv_nsec - sp->start.tv_nsec) / 1e9;

    for (enum prom_field field = F_ERRORS; field <= F_RECOVERY_END; field++)
        partition_samples(f, sp, field);
    family(f, "kfsck_scan_errors", "Errors kfsck scan found in all the data dirs scanned.");
    tprintf(f, "kfsck_scan_errors %llu\n", (unsigned long long)tot->errors);
    family(f, "kfsck_scan_partitions", "Partitions kfsck scan checked.");
    tprintf(f, "kfsck_scan_partitions %llu\n", (unsigned long long)tot->partitions);
    family(f, "kfsck_scan_duration_seconds", "How long the scan took in seconds.");
    tprintf(f, "kfsck_scan_duration_seconds %.3f\n", secs);
    family(f, "kfsck_scan_timestamp_seconds", "When the scan ended, in seconds since the Unix epoch.");
    tprintf(f, "kfsck_scan_timestamp_seconds %lld.%03ld\n", (long long)now.tv_sec, now.tv_nsec / 1000000);

    for (size_t i = 0; i < sp->n; i++) {
        free(sp->rows[i].datadir);
        free(sp->rows[i].topic);
    }
    free(sp->rows);
    free(sp);
}
