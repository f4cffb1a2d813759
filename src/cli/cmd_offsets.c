/* cmd_offsets.c: `kfsck offsets`: the committed consumer offsets, rebuilt
 * by replaying every __consumer_offsets partition under the PATHs the way
 * the group coordinator does (src/jobs/replay.c), over the union of all copies
 * given; as a table, JSON lines, CSV, or the CSV that
 * `kafka-consumer-groups.sh --reset-offsets --from-file` reads (with a group
 * column unless exactly one --group). --history prints the replay's change
 * stream; --as-of the table folded from that same stream (a prefix of it).
 * With --connect, Kafka Connect source-connector offsets instead. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/kraft_names.h"
#include "cli/partitions.h"
#include "cli/walk.h"
#include "kfsck/replay.h"

enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_RESET_CSV };

typedef struct offsets_opts {
    const char **groups;
    size_t ngroups;
    const char **topics;
    size_t ntopics;
    bool history, connect, has_as_of;
    int64_t as_of;
    const char *connect_topic;
    int32_t offsets_partitions;
    int format;
    uint64_t max_batch_bytes;
} offsets_opts;

typedef struct leo_cache {
    char *topic; /* a copy: the values' strings come and go during replay */
    int32_t partition;
    bool known;
    int64_t leo;
} leo_cache;

typedef struct offsets_run {
    const offsets_opts *opts;
    out *o;          /* stdout (JSON or text) */
    out *perr;       /* where problems go: stdout in JSON, stderr otherwise */
    report rep;
    const kf_inputs *in;
    kf_replay *replay;
    leo_cache *leos;
    size_t nleos;
    uint64_t changes;  /* history: changes seen (wanted or not) */
    uint64_t last_change; /* history with --as-of: print only changes up to this one */
    int gw, tw;      /* table column widths */
    int64_t at_offset; /* history: where the change took effect */
    int64_t change_time; /* history: the time --as-of compares */
    kf_metadata *meta; /* the KRaft metadata log among the inputs: topic ids by name */
} offsets_run;

static bool wanted(const offsets_opts *op, const char *group, const char *topic)
{
    bool g = op->ngroups == 0, t = op->ntopics == 0;
    for (size_t i = 0; i < op->ngroups && !g; i++)
        g = !strcmp(op->groups[i], group);
    for (size_t i = 0; i < op->ntopics && !t; i++)
        t = !strcmp(op->topics[i], topic);
    return g && t;
}

static bool log_end_of(offsets_run *run, const char *topic, int32_t partition, int64_t *leo)
{
    for (size_t i = 0; i < run->nleos; i++)
        if (run->leos[i].partition == partition && !strcmp(run->leos[i].topic, topic)) {
            *leo = run->leos[i].leo;
            return run->leos[i].known;
        }
    leo_cache c = {must(strdup(topic)), partition, false, 0};
    const kf_partition *p = kf_inputs_find(run->in, topic, partition);
    if (p)
        c.known = kf_partition_log_end(p, (size_t)run->opts->max_batch_bytes, &c.leo);
    run->leos = must(realloc(run->leos, (run->nleos + 1) * sizeof *run->leos));
    run->leos[run->nleos++] = c;
    *leo = c.leo;
    return c.known;
}

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_row(offsets_run *run, const kf_offset_value *v, bool history, bool deleted)
{
    out *o = run->o;
    int64_t leo = 0;
    bool has_leo = log_end_of(run, v->topic, v->partition, &leo);
    switch (run->opts->format) {
    case FMT_JSON:
        out_begin(o, "offset");
        out_str(o, "group", v->group);
        out_str(o, "topic", v->topic);
        out_int(o, "partition", v->partition);
        if (history && deleted) {
            /* a deletion: no value; source_offset is the tombstone's */
            out_null(o, "offset");
            out_null(o, "leader_epoch");
            out_null(o, "metadata");
            out_null(o, "commit_timestamp");
            out_null(o, "expire_timestamp");
            out_int(o, "source_partition", v->source_partition);
            out_int(o, "source_offset", run->at_offset);
            out_bool(o, "transactional", false);
            out_bool(o, "deleted", true);
            out_int(o, "change_time", run->change_time);
            out_int(o, "effective_offset", run->at_offset);
            out_obj_open(o, "previous");
            out_int(o, "offset", v->offset);
            out_int(o, "commit_timestamp", v->commit_timestamp);
            out_int(o, "source_offset", v->source_offset);
            out_obj_close(o);
            out_end(o);
            break;
        }
        out_int(o, "offset", v->offset);
        if (v->leader_epoch < 0)
            out_null(o, "leader_epoch");
        else
            out_int(o, "leader_epoch", v->leader_epoch);
        out_str(o, "metadata", v->metadata);
        out_int(o, "commit_timestamp", v->commit_timestamp);
        if (v->expire_timestamp < 0)
            out_null(o, "expire_timestamp");
        else
            out_int(o, "expire_timestamp", v->expire_timestamp);
        out_int(o, "source_partition", v->source_partition);
        out_int(o, "source_offset", v->source_offset);
        out_bool(o, "transactional", v->transactional);
        if (has_leo) {
            out_int(o, "log_end_offset", leo);
            out_int(o, "lag", leo - v->offset);
        }
        out_int(o, "value_version", v->value_version);
        if (v->has_topic_id) {
            char id[23];
            kf_uuid_to_b64(v->topic_id, id);
            out_str(o, "topic_id", id);
        } else if (run->meta) {
            /* a commit without one: the topic's id in the cluster's metadata log */
            const kf_md_topic *t = kf_metadata_topic_by_name(run->meta, v->topic);
            if (t) {
                char id[23];
                kf_uuid_to_b64(t->id, id);
                out_str(o, "topic_id", id);
            }
        }
        if (history) {
            out_bool(o, "deleted", false);
            out_int(o, "change_time", run->change_time);
            out_int(o, "effective_offset", run->at_offset);
        }
        out_end(o);
        break;
    case FMT_CSV:
        csv_field(o->f, v->group);
        fputc(',', o->f);
        csv_field(o->f, v->topic);
        fprintf(o->f, ",%d,%" PRId64 ",", v->partition, v->offset);
        if (v->leader_epoch >= 0)
            fprintf(o->f, "%d", v->leader_epoch);
        fputc(',', o->f);
        csv_field(o->f, v->metadata);
        fprintf(o->f, ",%" PRId64 ",", v->commit_timestamp);
        if (v->expire_timestamp >= 0)
            fprintf(o->f, "%" PRId64, v->expire_timestamp);
        fprintf(o->f, ",%d,%" PRId64 ",%s,", v->source_partition, v->source_offset,
                v->transactional ? "true" : "false");
        if (has_leo)
            fprintf(o->f, "%" PRId64 ",%" PRId64, leo, leo - v->offset);
        else
            fputc(',', o->f);
        if (history)
            fprintf(o->f, ",%s", deleted ? "true" : "false");
        fputc('\n', o->f);
        break;
    case FMT_RESET_CSV:
        /* kafka-consumer-groups.sh takes topic,partition,offset with exactly
         * one --group, group,topic,partition,offset otherwise */
        if (run->opts->ngroups != 1) {
            csv_field(o->f, v->group);
            fputc(',', o->f);
        }
        csv_field(o->f, v->topic);
        fprintf(o->f, ",%d,%" PRId64 "\n", v->partition, v->offset);
        break;
    default: {
        char lag[64] = "-", leos[32] = "-", ep[16] = "-";
        if (has_leo) {
            snprintf(leos, sizeof leos, "%" PRId64, leo);
            snprintf(lag, sizeof lag, "%" PRId64, leo - v->offset);
        }
        if (v->leader_epoch >= 0)
            snprintf(ep, sizeof ep, "%d", v->leader_epoch);
        fprintf(o->f, "%-*s %-*s %9d %14" PRId64 " %12s %14s %10s %15" PRId64 "%s%s\n", run->gw, v->group, run->tw,
                v->topic, v->partition, v->offset, ep, leos, lag, v->commit_timestamp,
                history && deleted ? " DELETED" : "", v->transactional ? " (txn)" : "");
    }
    }
}

static void print_header(offsets_run *run)
{
    if (run->opts->format == FMT_TABLE)
        fprintf(run->o->f, "%-*s %-*s %9s %14s %12s %14s %10s %15s\n", run->gw, "GROUP", run->tw, "TOPIC", "PARTITION",
                "CURRENT-OFFSET", "LEADER-EPOCH", "LOG-END-OFFSET", "LAG", "COMMIT-TIME-MS");
    else if (run->opts->format == FMT_CSV)
        fprintf(run->o->f, "group,topic,partition,offset,leader_epoch,metadata,commit_timestamp,expire_timestamp,"
                           "source_partition,source_offset,transactional,log_end_offset,lag%s\n",
                run->opts->history ? ",deleted" : "");
}

static void on_change(void *ctx, const kf_offset_value *v, bool deleted, int64_t time, int64_t at)
{
    offsets_run *run = ctx;
    run->changes++;
    if (run->opts->has_as_of && run->changes > run->last_change)
        return; /* past the prefix the as-of table is built from */
    if (!wanted(run->opts, v->group, v->topic))
        return;
    run->at_offset = at;
    run->change_time = time;
    print_row(run, v, true, deleted);
}

static void offsets_usage(FILE *f)
{
    fprintf(f,
            "usage: kfsck offsets [--group G]... [--topic T]... [--history] [--as-of MS]\n"
            "                     [--connect [--connect-topic T]] [--offsets-partitions N]\n"
            "                     [--format table|json|csv|reset-csv] [--max-batch-bytes N]\n"
            "                     [--json] PATH...\n\n"
            "Rebuilds committed consumer offsets by replaying every __consumer_offsets partition\n"
            "under the PATHs (data dirs, partition dirs, segments; several copies may be given)\n"
            "as the group coordinator does.\n"
            "  --group G / --topic T   only these (repeatable)\n"
            "  --history               every change in the order it took effect\n"
            "  --as-of MS              the table after the last change whose time is <= MS\n"
            "                          (epoch ms or ISO 8601: 2024-02-12T01:11:26Z); with\n"
            "                          --history, the changes up to it\n"
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
            "the table may be incomplete; 2 usage error (also --json with another --format,\n"
            "reset-csv with --history or --connect, --connect with --group, --topic,\n"
            "--history or --as-of); 3 a path cannot be read or the output cannot be written.\n");
}

static int parse_i64(const char *s, int64_t *v)
{
    char *end;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end)
        return -1;
    *v = x;
    return 0;
}

/* A replay of the offsets topic: with as_of, its table is the as-of table;
 * with history_run, every change goes to on_change. Out of memory exits. */
static kf_replay *new_replay(const offsets_opts *op, bool as_of, offsets_run *history_run, report *rep)
{
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = (size_t)op->max_batch_bytes;
    ro.has_as_of = as_of;
    ro.as_of = op->as_of;
    ro.problem_fn = report_problem;
    ro.problem_ctx = rep;
    if (history_run) {
        ro.change_fn = on_change;
        ro.change_ctx = history_run;
    }
    kf_replay *r;
    if (kf_replay_new(&r, &ro) != KF_OK)
        cli_oom();
    return r;
}

int cmd_offsets(int argc, char **argv)
{
    offsets_opts op = {0};
    op.offsets_partitions = 50;
    op.connect_topic = "connect-offsets";
    op.max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    const char *group_buf[argc], *topic_buf[argc]; /* at most one per argument */
    op.groups = group_buf;
    op.topics = topic_buf;
    static const struct option longopts[] = {
        {"group", required_argument, 0, 'g'},   {"topic", required_argument, 0, 't'},
        {"history", no_argument, 0, 'H'},       {"as-of", required_argument, 0, 'a'},
        {"connect", no_argument, 0, 'c'},       {"connect-topic", required_argument, 0, 'C'},
        {"offsets-partitions", required_argument, 0, 'n'}, {"format", required_argument, 0, 'f'},
        {"json", no_argument, 0, 'j'},          {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
    };
    optind = 1;
    opterr = 0;
    int c, rc = EXIT_CLEAN;
    bool json_flag = false, format_set = false;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int64_t v;
        switch (c) {
        case 'g': op.groups[op.ngroups++] = optarg; break;
        case 't': op.topics[op.ntopics++] = optarg; break;
        case 'H': op.history = true; break;
        case 'a':
            if (opt_time("offsets", "--as-of", optarg, &op.as_of, offsets_usage))
                return EXIT_USAGE;
            op.has_as_of = true;
            break;
        case 'c': op.connect = true; break;
        case 'C': op.connect_topic = optarg; break;
        case 'n':
            if (parse_i64(optarg, &v) || v <= 0 || v > INT32_MAX)
                return opt_usage_error("offsets", "--offsets-partitions needs a positive count, not", optarg,
                                       offsets_usage);
            op.offsets_partitions = (int32_t)v;
            break;
        case 'f':
            format_set = true;
            if (!strcmp(optarg, "table"))
                op.format = FMT_TABLE;
            else if (!strcmp(optarg, "json"))
                op.format = FMT_JSON;
            else if (!strcmp(optarg, "csv"))
                op.format = FMT_CSV;
            else if (!strcmp(optarg, "reset-csv"))
                op.format = FMT_RESET_CSV;
            else
                return opt_usage_error("offsets", "--format is table, json, csv or reset-csv, not", optarg,
                                       offsets_usage);
            break;
        case 'j': json_flag = true; break;
        case 'B':
            if (opt_positive_size("offsets", "--max-batch-bytes", optarg, &op.max_batch_bytes))
                return EXIT_USAGE;
            break;
        case 'h': offsets_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("offsets", "unknown or incomplete option", argv[optind - 1], offsets_usage);
        }
    }
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
    if (op.connect && (op.history || op.has_as_of || op.ngroups || op.ntopics))
        return opt_usage_error("offsets", "--connect cannot be combined with --group, --topic, --history or --as-of",
                               NULL, offsets_usage);

    out o, e;
    out_init(&o, stdout, op.format == FMT_JSON);
    out_init(&e, stderr, false);
    out *perr = op.format == FMT_JSON ? &o : &e;
    kf_inputs in;
    int in_status = inputs_collect(argv + optind, argc - optind, &in);

    if (op.connect) {
        rc = connect_offsets(&in, op.connect_topic, op.max_batch_bytes, op.format == FMT_JSON, &o, perr);
        kf_inputs_free(&in);
        fflush(stdout);
        return in_status == EXIT_FAIL ? EXIT_FAIL : rc;
    }

    /* Where each named group lives (Kafka's hash rule). */
    note_group_partitions(&in, (const char *const *)op.groups, op.ngroups, op.offsets_partitions);

    offsets_run run = {.opts = &op, .o = &o, .perr = perr, .rep = {perr, NULL, 0, 0}, .in = &in, .gw = 24, .tw = 24};
    if (op.format == FMT_JSON && kf_inputs_find(&in, "__cluster_metadata", 0))
        run.meta = kraft_image_of(argv + optind, argc - optind, op.max_batch_bytes);
    if (op.history && op.has_as_of) {
        /* --history up to the as-of cut: a first, silent replay finds how
         * many changes the as-of table is built from */
        report quiet = {NULL, NULL, 0, 0};
        kf_replay *pre = new_replay(&op, true, NULL, &quiet);
        kf_offsets_topic_result pre_res;
        replay_offsets_topic(&in, pre, (size_t)op.max_batch_bytes, NULL, &pre_res);
        run.last_change = kf_replay_as_of_prefix(pre);
        kf_replay_free(pre);
    }
    run.replay = new_replay(&op, op.has_as_of && !op.history, op.history ? &run : NULL, &run.rep);
    if (op.history)
        print_header(&run);
    kf_offsets_topic_result res;
    replay_offsets_topic(&in, run.replay, (size_t)op.max_batch_bytes, perr, &res);
    if (!res.partitions)
        fprintf(stderr, "kfsck: no __consumer_offsets partition found under the given paths\n");

    if (!op.history) {
        const kf_offset_value **rows;
        size_t n = kf_replay_offsets(run.replay, &rows);
        run.gw = run.tw = 15; /* as kafka-consumer-groups.sh: max(15, longest) */
        for (size_t i = 0; i < n; i++) {
            if (!wanted(&op, rows[i]->group, rows[i]->topic))
                continue;
            int gl = (int)strlen(rows[i]->group), tl = (int)strlen(rows[i]->topic);
            run.gw = gl > run.gw ? gl : run.gw;
            run.tw = tl > run.tw ? tl : run.tw;
        }
        print_header(&run);
        for (size_t i = 0; i < n; i++)
            if (wanted(&op, rows[i]->group, rows[i]->topic))
                print_row(&run, rows[i], false, false);
    }
    kf_replay_stats st = kf_replay_get_stats(run.replay);
    kf_replay_free(run.replay);
    kf_metadata_free(run.meta);
    for (size_t i = 0; i < run.nleos; i++)
        free(run.leos[i].topic);
    free(run.leos);
    kf_inputs_free(&in);
    fflush(stdout);
    if (in_status == EXIT_FAIL || res.unreadable)
        return EXIT_FAIL;
    return (res.uncovered || st.skipped || run.rep.errors) ? EXIT_DAMAGE : EXIT_CLEAN;
}
