/* partitions.c: the command line's PATHs as kf_inputs, partition readers
 * that print their problems, and the replay of every __consumer_offsets
 * partition on one time line. */
#include "cli/partitions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

static void oom(void)
{
    fputs("kfsck: out of memory\n", stderr);
    exit(EXIT_FAIL);
}

static void path_error(void *ctx, const char *path, int err_no, const char *what)
{
    (void)ctx;
    (void)err_no;
    cli_error(path, "%s", what);
}

int inputs_collect(char *const *paths, int n, kf_inputs *in)
{
    int rc = kf_inputs_collect(in, paths, (size_t)n, path_error, NULL);
    if (rc == KF_ERR_NOMEM)
        oom();
    return rc == KF_OK ? EXIT_CLEAN : EXIT_FAIL;
}

kf_part_reader *part_reader_open(const kf_partition *p, size_t max_batch_bytes, report *rep)
{
    kf_part_reader_opts o;
    kf_part_reader_opts_init(&o);
    o.max_batch_bytes = max_batch_bytes;
    reader_tuning(&o.threads, &o.chunk_bytes);
    o.problem_fn = report_problem;
    o.problem_ctx = rep;
    kf_part_reader *r;
    if (kf_part_reader_open(&r, p, &o) != KF_OK)
        oom();
    return r;
}

/* ---- replay of the offsets topic on one time line -------------------------- */

static bool next_batch(kf_part_reader *r, kf_batch *b)
{
    int rc = kf_part_reader_next(r, b);
    if (rc < 0)
        oom();
    return rc == 1;
}

uint64_t replay_offsets_topic(const kf_inputs *in, kf_replay *r, report *rep, out *perr, uint64_t *found,
                              bool *unreadable)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += !strcmp(in->parts[i].topic, "__consumer_offsets");
    *found = n;
    kf_part_reader **us = calloc(n ? n : 1, sizeof *us);
    kf_batch *cur = calloc(n ? n : 1, sizeof *cur);
    bool *has = calloc(n ? n : 1, sizeof *has);
    int32_t *part = calloc(n ? n : 1, sizeof *part);
    if (!us || !cur || !has || !part) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    /* damage counts only where no copy covers it: the readers' counts are not kept */
    report urep = {perr, NULL, 0, 0};
    size_t k = 0;
    for (size_t i = 0; i < in->n; i++) {
        if (strcmp(in->parts[i].topic, "__consumer_offsets"))
            continue;
        part[k] = in->parts[i].partition;
        us[k] = part_reader_open(&in->parts[i], KF_DEFAULT_MAX_BATCH_BYTES, &urep);
        has[k] = next_batch(us[k], &cur[k]);
        k++;
    }
    /* each partition in offset order; across partitions, by batch time */
    for (;;) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (has[i] && (best == n || cur[i].max_timestamp < cur[best].max_timestamp))
                best = i;
        if (best == n)
            break;
        kf_batch *b = &cur[best];
        if (!(b->magic == 2 && b->count == 0)) { /* empty batches kept by the cleaner */
            if (rep)
                rep->file = kf_part_reader_file(us[best]);
            kf_replay_partition(r, part[best]);
            if (kf_replay_batch(r, b) == KF_ERR_NOMEM) {
                fputs("kfsck: out of memory\n", stderr);
                exit(EXIT_FAIL);
            }
        }
        has[best] = next_batch(us[best], &cur[best]);
    }
    uint64_t uncovered = 0;
    for (size_t i = 0; i < n; i++) {
        kf_part_result ur;
        kf_part_reader_close(us[i], &ur);
        uncovered += ur.uncovered;
        *unreadable |= ur.unreadable;
    }
    if (rep)
        rep->file = NULL; /* what the end reports (open transactions) names its partition */
    kf_replay_finish(r);
    free(us);
    free(cur);
    free(has);
    free(part);
    return uncovered;
}

void note_group_partitions(const kf_inputs *in, const char *const *groups, size_t n, int32_t partitions)
{
    for (size_t i = 0; i < n; i++) {
        const char *g = groups[i];
        int32_t p = kf_coordinator_partition((const uint8_t *)g, strlen(g), partitions);
        if (!kf_inputs_find(in, "__consumer_offsets", p))
            fprintf(stderr,
                    "kfsck: __consumer_offsets-%d: not among the inputs, but group '%s' is stored there (of %d "
                    "partitions)\n",
                    p, g, partitions);
        else
            fprintf(stderr, "kfsck: group '%s' is stored in __consumer_offsets-%d (of %d partitions)\n", g, p,
                    partitions);
    }
}
