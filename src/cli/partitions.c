/* partitions.c: the command line's PATHs as kf_inputs, the options of
 * partition readers that print their problems, and the library's replay of
 * every __consumer_offsets partition on one time line with them. */
#include "cli/partitions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

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
        cli_oom();
    return rc == KF_OK ? EXIT_CLEAN : EXIT_FAIL;
}

void part_reader_opts(kf_part_reader_opts *o, size_t max_batch_bytes, report *rep)
{
    kf_part_reader_opts_init(o);
    o->max_batch_bytes = max_batch_bytes;
    reader_tuning(&o->threads, &o->chunk_bytes);
    o->problem_fn = report_problem;
    o->problem_ctx = rep;
}

/* ---- replay of the offsets topic on one time line -------------------------- */

void replay_offsets_topic(const kf_inputs *in, kf_replay *r, size_t max_batch_bytes, out *perr,
                          kf_offsets_topic_result *res)
{
    /* damage counts only where no copy covers it: the readers' counts are not kept */
    report urep = {perr, NULL, 0, 0};
    kf_offsets_topic_opts o;
    kf_offsets_topic_opts_init(&o);
    part_reader_opts(&o.read, max_batch_bytes, &urep);
    if (kf_replay_offsets_topic(r, in, &o, res) != KF_OK)
        cli_oom();
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
