/* cmd_groups.c: `kfsck groups`: the latest state of every group, rebuilt
 * from the __consumer_offsets partitions under the PATHs by the same job as
 * `offsets` (include/kfsck/offsets_job.h), topic ids named by
 * kf_topic_names: classic groups from their group-metadata record (members'
 * consumer-protocol subscriptions and assignments decoded), consumer/share/
 * streams groups (KIP-848, KIP-932, KIP-1071) from their records, groups
 * known only from committed offsets, and deleted groups (state dead). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/groups_print.h"
#include "cli/json_text.h"
#include "cli/partitions.h"
#include "cli/walk.h"
#include "kfsck/groups.h"
#include "kfsck/offsets_job.h"

/* ---- command ---------------------------------------------------------------- */

static void groups_usage(FILE *f)
{
    tprintf(f, "usage: kfsck groups [--group G]... [--offsets-partitions N] [--max-batch-bytes N]\n"
               "                    [--json] PATH...\n\n"
               "The latest state of every group found in the __consumer_offsets partitions\n"
               "under the PATHs: kind (classic, consumer, share, streams), state (empty,\n"
               "stable, dead), members and their assignments.\n");
}

/* Text mode: the group line written into memory, printed as indented text
 * (json_text.c) without its {"type":"group", and the memory emptied. */
static void flush_text(FILE *memf, char **mem, size_t *memlen)
{
    fflush(memf);
    char *body = strchr(*mem, ',');
    if (body) {
        *body = '{';
        json_text_print(stdout, body, *memlen - (size_t)(body - *mem), 0);
        fputc('\n', stdout);
    }
    rewind(memf);
    *memlen = 0;
    (*mem)[0] = 0;
}

typedef struct groups_opts {
    opt_list want;              /* --group */
    bool json;
    uint64_t max_batch;
    int64_t offsets_partitions;
} groups_opts;

/* The options into *op; optind is then the first PATH. -1 to go on, else
 * the exit code. */
static int parse_opts(int argc, char **argv, groups_opts *op)
{
    const opt_spec specs[] = {
        {.name = "--group", .kind = OPT_LIST, .to = &op->want},
        {.name = "--json", .kind = OPT_FLAG, .to = &op->json},
        {.name = "--offsets-partitions", .kind = OPT_NUMBER, .to = &op->offsets_partitions, .min = 1,
         .max = INT32_MAX, .refusal = "--offsets-partitions needs a positive count, not"},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &op->max_batch},
        {0},
    };
    return opt_parse("groups", argc, argv, specs, groups_usage, "no PATH given");
}

static bool selected(const groups_opts *op, const char *g)
{
    bool yes = op->want.n == 0;
    for (size_t k = 0; k < op->want.n && !yes; k++)
        yes = !strcmp(op->want.v[k], g);
    return yes;
}

int cmd_groups(int argc, char **argv)
{
    const char *want[argc];
    groups_opts op = {{want, 0}, false, KF_DEFAULT_MAX_BATCH_BYTES, 50};
    int status = parse_opts(argc, argv, &op);
    if (status >= 0)
        return status;
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    out o, e;
    /* Text mode: each group is written as JSON into memory, then printed as
     * indented text (json_text.c): one renderer for both. */
    char *mem = NULL;
    size_t memlen = 0;
    FILE *memf = op.json ? NULL : open_memstream(&mem, &memlen);
    if (!op.json && !memf) {
        fputs("kfsck: out of memory\n", stderr);
        return EXIT_FAIL;
    }
    out_init(&o, op.json ? stdout : memf, true);
    out_init(&e, stderr, false);
    out *perr = op.json ? &o : &e;
    report rep = {perr, NULL, 0, 0}, readers = {perr, NULL, 0, 0};
    kf_inputs in;
    int in_status = inputs_collect(argv + optind, argc - optind, &in);
    note_group_partitions(&in, op.want.v, op.want.n, (int32_t)op.offsets_partitions);
    kf_offsets_job_opts jo;
    kf_offsets_job_opts_init(&jo);
    offsets_job_opts(&jo, (size_t)op.max_batch, &rep, &readers);
    kf_offsets_job *j;
    kf_topic_names *ns;
    if (kf_offsets_job_run(&j, &in, &jo) != KF_OK ||
        kf_topic_names_build(&ns, argv + optind, (size_t)(argc - optind), &in, (size_t)op.max_batch) != KF_OK)
        cli_oom();
    const kf_group *groups;
    size_t ngroups = kf_groups_list(kf_offsets_job_groups(j), &groups);
    if (op.want.n) {
        const char **ids = must(malloc((ngroups ? ngroups : 1) * sizeof *ids));
        for (size_t i = 0; i < ngroups; i++)
            ids[i] = groups[i].id;
        note_unmatched("group", op.want.v, op.want.n, ids, ngroups);
        free(ids);
    }
    for (size_t i = 0; i < ngroups; i++) {
        if (!selected(&op, groups[i].id))
            continue;
        groups_print(&o, &groups[i], ns);
        if (memf)
            flush_text(memf, &mem, &memlen);
    }
    if (memf) {
        fclose(memf);
        free(mem);
    }
    return offsets_job_finish(j, ns, &in, in_status, &rep);
}
