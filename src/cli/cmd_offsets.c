/* cmd_offsets.c: `kfsck offsets`: the committed consumer offsets, rebuilt
 * by replaying every __consumer_offsets partition under the PATHs the way
 * the group coordinator does, over the union of all copies given (the
 * library's offsets job, include/kfsck/offsets_job.h); printed as a table,
 * JSON lines, CSV, or the CSV that `kafka-consumer-groups.sh
 * --reset-offsets --from-file` reads (offsets_print.c). --history prints
 * the replay's change stream, --as-of the table of the changes up to a
 * time. With --connect, Kafka Connect source-connector offsets instead. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/offsets_print.h"
#include "cli/partitions.h"
#include "cli/walk.h"
#include "kfsck/offsets_job.h"

typedef struct offsets_opts {
    const char **groups;
    size_t ngroups;
    const char **topics;
    size_t ntopics;
    bool history, connect, has_as_of, has_now;
    int64_t as_of, now;
    int64_t retention_minutes;
    const char *connect_topic;
    int32_t offsets_partitions;
    int format;
    uint64_t max_batch_bytes;
} offsets_opts;

static void offsets_usage(FILE *f)
{
    tprintf(f,
            "usage: kfsck offsets [--group G]... [--topic T]... [--history] [--as-of MS]\n"
            "                     [--now MS] [--offsets-retention-minutes N]\n"
            "                     [--connect [--connect-topic T]] [--offsets-partitions N]\n"
            "                     [--format table|json|csv|reset-csv] [--max-batch-bytes N]\n"
            "                     [--json] PATH...\n\n"
            "Rebuilds committed consumer offsets by replaying every __consumer_offsets partition\n"
            "under the PATHs (data dirs, partition dirs, segments; several copies may be given)\n"
            "as the group coordinator does.\n"
            "  --group G / --topic T   only these (repeatable)\n"
            "  --history               every change in the order it took effect\n"
            "  --as-of MS              the table of every change whose time is <= MS (a\n"
            "                          commit's commit_timestamp, a deletion's batch time;\n"
            "                          epoch ms or ISO 8601: 2024-02-12T01:11:26Z); with\n"
            "                          --history, those changes\n"            "  --now MS                when expiry is judged (default: the newest batch time);\n"
            "                          each row's expires_at/expired by the coordinator's rule\n"
            "  --offsets-retention-minutes N  offsets.retention.minutes (default 10080)\n"
            "  --format table|json|csv the columns of kafka-consumer-groups.sh --describe\n"
            "                          (default), JSON lines (as --json), or CSV with a header\n"
            "  --format reset-csv      the file kafka-consumer-groups.sh --reset-offsets\n"
            "                          --from-file reads: topic,partition,offset with exactly\n"
            "                          one --group, else group,topic,partition,offset\n"
            "  --connect               Kafka Connect source offsets (topic --connect-topic,\n"
            "                          default connect-offsets) instead\n"
            "  --offsets-partitions N  offsets.topic.num.partitions, to name a group's partition (50)\n"
            "  --max-batch-bytes N     cap on one batch's decompressed size (default 128M)\n"
            "  --json                  newline-delimited JSON, problems included\n"
            "exit: 0 nothing wrong; 1 damaged batches or undecodable records were skipped, so\n"
            "the table may be incomplete (or the coordinator would fail to load a partition);\n"
            "2 usage error (also --json with another --format, reset-csv with --history or\n"
            "--connect, --connect with --group, --topic, --history, --as-of, --now or\n"
            "--offsets-retention-minutes); 3 a path cannot be read, the PATHs are of\n"
            "different clusters (their meta.properties' cluster.id), or the output cannot be\n"
            "written.\n");
}

/* --group / --topic values that match nothing among the groups and the
 * committed topics: said on stderr with the closest names. */
static void note_unmatched_names(const offsets_opts *op, kf_offsets_job *j)
{
    if (!op->ngroups && !op->ntopics)
        return;
    const kf_group *groups;
    size_t ng = kf_groups_list(kf_offsets_job_groups(j), &groups);
    const char **names = must(malloc((ng ? ng : 1) * sizeof *names));
    for (size_t i = 0; i < ng; i++)
        names[i] = groups[i].id;
    note_unmatched("group", op->groups, op->ngroups, names, ng);
    free(names);
    const char *const *topics;
    size_t nt;
    if (kf_offsets_job_topics(j, &topics, &nt) != KF_OK)
        cli_oom();
    note_unmatched("topic", op->topics, op->ntopics, topics, nt);
}

static void print_change(void *ctx, const kf_offsets_row *r) { offsets_print_row(ctx, r); }

/* The replay and its rows, printed; the exit code. */
static int offsets_run(const offsets_opts *op, char *const *paths, int npaths)
{
    out o, e;
    out_init(&o, stdout, op->format == FMT_JSON);
    out_init(&e, stderr, false);
    out *perr = op->format == FMT_JSON ? &o : &e;
    kf_inputs in;
    int in_status = inputs_collect(paths, npaths, &in);
    if (op->connect) {
        int rc = connect_offsets(&in, op->connect_topic, op->max_batch_bytes, op->format == FMT_JSON, &o, perr);
        kf_inputs_free(&in);
        fflush(stdout);
        return in_status == EXIT_FAIL ? EXIT_FAIL : rc;
    }
    /* Where each named group lives (Kafka's hash rule). */
    note_group_partitions(&in, op->groups, op->ngroups, op->offsets_partitions);
    report rep = {perr, NULL, 0, 0}, readers = {perr, NULL, 0, 0};
    offsets_printer pr = {op->format, op->history, op->ngroups != 1, &o, &rep, 24, 24};
    kf_topic_names *names = NULL; /* topic ids: only JSON prints them */
    if (op->format == FMT_JSON &&
        kf_topic_names_build(&names, paths, (size_t)npaths, &in, (size_t)op->max_batch_bytes) != KF_OK)
        cli_oom();
    kf_offsets_job_opts jo;
    kf_offsets_job_opts_init(&jo);
    offsets_job_opts(&jo, (size_t)op->max_batch_bytes, &rep, &readers);
    jo.groups = op->groups;
    jo.ngroups = op->ngroups;
    jo.topics = op->topics;
    jo.ntopics = op->ntopics;
    jo.has_as_of = op->has_as_of;
    jo.as_of = op->as_of;
    jo.has_now = op->has_now;
    jo.now = op->now;
    jo.retention_ms = op->retention_minutes * 60000;
    jo.names = names;
    if (op->history) {
        jo.change_fn = print_change;
        jo.change_ctx = &pr;
        offsets_print_header(&pr);
    }
    kf_offsets_job *j;
    if (kf_offsets_job_run(&j, &in, &jo) != KF_OK)
        cli_oom();
    kf_offsets_job_result res = kf_offsets_job_get_result(j);
    if (!res.partitions)
        tprintf(stderr, "kfsck: no __consumer_offsets partition found under the given paths\n");
    note_unmatched_names(op, j);
    if (!op->history) {
        const kf_offsets_row *rows;
        size_t n;
        if (kf_offsets_job_table(j, &rows, &n) != KF_OK)
            cli_oom();
        if (op->format == FMT_TABLE)
            offsets_print_widths(&pr, rows, n);
        offsets_print_header(&pr);
        flockfile(o.f); /* one lock for the table: each field of a row is a stdio call */
        for (size_t i = 0; i < n; i++)
            offsets_print_row(&pr, &rows[i]);
        funlockfile(o.f);
    }
    return offsets_job_finish(j, names, &in, in_status, &rep);
}

int cmd_offsets(int argc, char **argv)
{
    offsets_opts op = {0};
    op.offsets_partitions = 50;
    op.connect_topic = "connect-offsets";
    op.max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    const char *group_buf[argc], *topic_buf[argc]; /* at most one per argument */
    opt_list groups = {group_buf, 0}, topics = {topic_buf, 0};
    static const char *const formats[] = {"table", "json", "csv", "reset-csv", NULL}; /* FMT_* */
    bool json_flag = false, format_set = false;
    int64_t partitions = op.offsets_partitions;
    const opt_spec specs[] = {
        {.name = "--group", .kind = OPT_LIST, .to = &groups},
        {.name = "--topic", .kind = OPT_LIST, .to = &topics},
        {.name = "--history", .kind = OPT_FLAG, .to = &op.history},
        {.name = "--as-of", .kind = OPT_TIME, .to = &op.as_of, .given = &op.has_as_of},
        {.name = "--connect", .kind = OPT_FLAG, .to = &op.connect},
        {.name = "--connect-topic", .kind = OPT_STRING, .to = &op.connect_topic},
        {.name = "--offsets-partitions", .kind = OPT_NUMBER, .to = &partitions, .min = 1, .max = INT32_MAX,
         .refusal = "--offsets-partitions needs a positive count, not"},
        {.name = "--format", .kind = OPT_CHOICE, .to = &op.format, .choices = formats, .given = &format_set,
         .refusal = "--format is table, json, csv or reset-csv, not"},
        {.name = "--json", .kind = OPT_FLAG, .to = &json_flag},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &op.max_batch_bytes},
        {.name = "--now", .kind = OPT_TIME, .to = &op.now, .given = &op.has_now},
        /* offsets.retention.minutes is an INT of at least 1 (GroupCoordinatorConfig) */
        {.name = "--offsets-retention-minutes", .kind = OPT_NUMBER, .to = &op.retention_minutes, .min = 1,
         .max = INT32_MAX,
         .refusal = "--offsets-retention-minutes needs a count of minutes from 1 to 2147483647 "
                    "(offsets.retention.minutes is an int), not"},
        {0},
    };
    int st = opt_parse("offsets", argc, argv, specs, offsets_usage, NULL);
    if (st >= 0)
        return st;
    op.groups = groups.v;
    op.ngroups = groups.n;
    op.topics = topics.v;
    op.ntopics = topics.n;
    op.offsets_partitions = (int32_t)partitions;
    if (json_flag) {
        if (format_set && op.format != FMT_JSON)
            return opt_usage_error("offsets", "--json contradicts --format", NULL, offsets_usage);
        op.format = FMT_JSON;
    }
    if (optind >= argc)
        return opt_usage_error("offsets", "no PATH given", NULL, offsets_usage);
    if (op.format == FMT_RESET_CSV && (op.history || op.connect))
        return opt_usage_error("offsets", "--format reset-csv cannot be combined with --history or --connect", NULL,
                               offsets_usage);
    if (op.connect && (op.history || op.has_as_of || op.ngroups || op.ntopics || op.has_now || op.retention_minutes))
        return opt_usage_error("offsets",
                               "--connect cannot be combined with --group, --topic, --history, --as-of, --now or "
                               "--offsets-retention-minutes",
                               NULL, offsets_usage);

    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    return offsets_run(&op, argv + optind, argc - optind);
}
