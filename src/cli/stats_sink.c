/* stats_sink.c: `kfsck stats --sink-partition-duration`: for every topic
 * partition under the PATHs, what a storage sink connector with a
 * time-based partitioner holds open while it catches up, per topic the sums,
 * the tasks' shares and a suggestion, and the verdict against one worker's
 * heap. The library runs it (kf_sink_run, src/jobs/sink/sink_run.c: where
 * each partition resumes, with --from-group the group's commits rebuilt by
 * the replay `offsets` runs, the simulation, the sums); this file prints. */
#include "cli/stats_sink.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "cli/walk.h"

typedef struct sink_run {
    const kf_sink_run_opts *o;
    bool json;
    out *o_out, *perr;
    const kf_sink_run_result *res; /* the run's result, once it is back */
    kf_sink_task_row *task_rows;   /* a topic's tasks, o->tasks of them (reused) */
} sink_run;

/* A topic's name as its lines' "topic" field: null when it has none. */
static const char *topic_or_null(const char *topic) { return topic[0] ? topic : NULL; }

static void print_partition(void *ctx, const kf_partition *p, const kf_sink_partition *s, uint64_t damaged)
{
    sink_run *R = ctx;
    out *o = R->o_out;
    uint64_t buffers = kf_sink_buffer_bytes(s->figures.peak_open_files, R->o->part_size);
    if (R->json) {
        kf_jsonl_begin(&o->w, "sink_partition");
        kf_jsonl_fields(&o->w, KF_JS("topic", topic_or_null(p->topic)),
                        KF_JOPT("partition", p->partition >= 0, p->partition), KF_JU("records", s->records),
                        KF_JU("files_committed", s->figures.files_committed),
                        KF_JU("peak_open_files", s->figures.peak_open_files),
                        KF_JOPT("peak_at_offset", s->figures.has_peak, s->figures.peak_at_offset),
                        KF_JU("peak_buffer_bytes", buffers), KF_JOPT("resume_offset", s->has_resume, s->resume_offset),
                        KF_JU("records_written", s->figures.records_written),
                        KF_JU("records_without_timestamp", s->records_without_timestamp),
                        KF_JU("control_records", s->control_records),
                        KF_JU("open_files_at_end", s->figures.open_files), KF_JU("damaged_ranges", damaged));
        kf_jsonl_end(&o->w);
        return;
    }
    char label[300], at[32] = "-", resume[32] = "-", buf[32];
    partition_label(p, label, sizeof label);
    if (s->figures.has_peak)
        snprintf(at, sizeof at, "%" PRId64, s->figures.peak_at_offset);
    if (s->has_resume)
        snprintf(resume, sizeof resume, "%" PRId64, s->resume_offset);
    fmt_bytes(buffers, buf, sizeof buf);
    tprintf(o->f, "  %-24s %11s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %11s %12s\n", label, resume, s->records,
            s->figures.files_committed, s->figures.peak_open_files, at, buf);
    if (s->records_without_timestamp)
        tprintf(o->f, "    %" PRIu64 " record%s without a timestamp left out\n", s->records_without_timestamp,
                s->records_without_timestamp == 1 ? "" : "s");
    if (damaged)
        tprintf(o->f, "    damage: %" PRIu64 " damaged range%s skipped, the figures may be low\n", damaged,
                damaged == 1 ? "" : "s");
}

/* A topic about to be read: with --from-group, on stderr, that the group
 * committed nothing of it (its partitions start at their log start); in
 * text, its header. */
static void print_topic_header(void *ctx, const kf_sink_run_topic *t)
{
    sink_run *R = ctx;
    const kf_sink_run_opts *o = R->o;
    const char *topic = t->topic;
    if (o->from_group && !t->committed)
        tprintf(stderr, "kfsck: --from-group %s: no committed offset for topic '%s': its partitions start at their "
                        "log start (auto.offset.reset=earliest)\n", o->from_group, topic[0] ? topic : "(unknown)");
    if (R->json)
        return;
    const kf_sink_config *c = &o->sink.config;
    char d[32], r[64], ps[32], from[96];
    fmt_duration_unit(c->partition_duration_ms, d, sizeof d);
    if (c->rotate_interval_ms > 0)
        snprintf(r, sizeof r, "rotate.interval.ms=%" PRId64, c->rotate_interval_ms);
    else
        snprintf(r, sizeof r, "no rotate.interval.ms");
    fmt_bytes(o->part_size, ps, sizeof ps);
    if (o->from_group)
        snprintf(from, sizeof from, "from the commits of group %.*s", 40, o->from_group);
    else if (o->sink.from == KF_SINK_FROM_OFFSET)
        snprintf(from, sizeof from, "from offset %" PRId64, o->sink.from_value);
    else if (o->sink.from == KF_SINK_FROM_TIME)
        snprintf(from, sizeof from, "from time %" PRId64 " ms", o->sink.from_value);
    else
        snprintf(from, sizeof from, "from the start");
    FILE *f = R->o_out->f;
    tprintf(f,
            "%s: sink catch-up with partition.duration.ms=%" PRId64 " (%s), flush.size=%" PRIu64 ", %s, "
            "%s part size, %s\n",
            topic[0] ? topic : "(unknown topic)", c->partition_duration_ms, d, c->flush_size, r, ps, from);
    if (o->schedule_interval_ms)
        tprintf(f,
                "  rotate.schedule.interval.ms=%" PRId64 " at a catch-up rate of %" PRIu64 " records/s per "
                "partition%s: a scheduled commit every %" PRIu64 " records\n",
                o->schedule_interval_ms, o->catch_up_rate,
                o->catch_up_rate == STATS_SINK_DEFAULT_CATCH_UP_RATE ? " (the default; --catch-up-rate)" : "",
                o->sink.schedule_records);
    tprintf(f, "  %-24s %11s %10s %10s %10s %11s %12s\n", "PARTITION", "RESUME AT", "RECORDS", "COMMITTED",
            "PEAK OPEN", "AT OFFSET", "BUFFERS");
}

static void alt_json(out *o, const char *key, const kf_sink_alt *a, uint64_t part_size)
{
    if (!a->on) {
        kf_jsonl_null(&o->w, key);
        return;
    }
    kf_jsonl_obj_open(&o->w, key);
    kf_jsonl_fields(&o->w, KF_JU("flush_size", a->config.flush_size),
                    KF_JOPT("rotate_interval_ms", a->config.rotate_interval_ms > 0, a->config.rotate_interval_ms),
                    KF_JU("peak_open_files", a->figures.peak_open_files),
                    KF_JU("peak_buffer_bytes", kf_sink_buffer_bytes(a->figures.peak_open_files, part_size)),
                    KF_JU("files_committed", a->figures.files_committed));
    kf_jsonl_obj_close(&o->w);
}

static void tasks_json(sink_run *R, out *o)
{
    kf_jsonl_arr_open(&o->w, "tasks");
    for (uint32_t k = 0; k < R->o->tasks; k++) {
        const kf_sink_task_row *row = &R->task_rows[k];
        kf_jsonl_obj_open(&o->w, NULL);
        kf_jsonl_fields(&o->w, KF_JU("task", k), KF_JU("partitions", row->partitions),
                        KF_JU("peak_open_files", row->peak_open_files),
                        KF_JU("peak_buffer_bytes", kf_sink_buffer_bytes(row->peak_open_files, R->o->part_size)));
        kf_jsonl_obj_close(&o->w);
    }
    kf_jsonl_arr_close(&o->w);
}

static void tasks_text(sink_run *R, FILE *f)
{
    for (uint32_t k = 0; k < R->o->tasks; k++) {
        const kf_sink_task_row *row = &R->task_rows[k];
        char b[32];
        fmt_bytes(kf_sink_buffer_bytes(row->peak_open_files, R->o->part_size), b, sizeof b);
        /* a task of several partitions: the sum of their peaks, an upper bound */
        tprintf(f, "    task %" PRIu32 ": %" PRIu64 " partition%s, %s %" PRIu64 " open file%s = %s%s\n", k,
                row->partitions, row->partitions == 1 ? "" : "s", row->partitions > 1 ? "at most" : "peak",
                row->peak_open_files, row->peak_open_files == 1 ? "" : "s", b,
                row->partitions > 1 ? ", if they peak at once" : "");
    }
}

/* sink_summary.levers: every lever that is on (kf_sink_levers). */
static void levers_json(out *o, const kf_sink_topic *t, const kf_sink_advice_in *adv)
{
    kf_sink_lever lever[KF_SINK_LEVERS];
    kf_sink_levers(t, adv, lever);
    kf_jsonl_arr_open(&o->w, "levers");
    for (int k = 0; k < KF_SINK_LEVERS; k++) {
        const kf_sink_lever *l = &lever[k];
        if (!l->on)
            continue;
        kf_jsonl_obj_open(&o->w, NULL);
        kf_jsonl_fields(&o->w, KF_JS("setting", kf_sink_lever_name((kf_sink_lever_kind)k)), KF_JU("value", l->value),
                        KF_JU("peak_open_files", l->peak_open_files), KF_JU("peak_buffer_bytes", l->peak_buffer_bytes),
                        KF_JU("files_committed", l->files_committed), KF_JU("records_per_file", l->records_per_file),
                        KF_JB("tiny_files", l->tiny_files), KF_JS("verdict", kf_sink_verdict_name(l->verdict)));
        kf_jsonl_obj_close(&o->w);
    }
    kf_jsonl_arr_close(&o->w);
}

/* A topic's sums, tasks and suggestion: in text as soon as its partitions
 * are read (topic_end_fn), in JSON after every partition line. */
static void print_summary(sink_run *R, const kf_sink_run_topic *s)
{
    kf_sink_run_tasks(R->res, s, R->task_rows);
    const kf_sink_topic *t = &s->t;
    const kf_sink_run_opts *ro = R->o;
    const kf_sink_config *c = &ro->sink.config;
    const kf_sink_advice_in *adv = &s->advice;
    char sug[4096];
    kf_sink_advise(t, adv, sug, sizeof sug);
    uint64_t buffers = kf_sink_buffer_bytes(t->figures.peak_open_files, ro->part_size);
    out *o = R->o_out;
    if (R->json) {
        kf_jsonl_begin(&o->w, "sink_summary");
        bool sched = ro->schedule_interval_ms != 0;
        kf_jsonl_fields(&o->w, KF_JS("topic", topic_or_null(s->topic)), KF_JU("partitions", t->partitions),
                        KF_JU("peak_open_files", t->figures.peak_open_files), KF_JU("peak_buffer_bytes", buffers),
                        KF_JS("suggestion", sug), KF_JU("records", t->records),
                        KF_JU("records_written", t->figures.records_written),
                        KF_JU("records_without_timestamp", t->records_without_timestamp),
                        KF_JU("files_committed", t->figures.files_committed),
                        KF_JI("partition_duration_ms", c->partition_duration_ms), KF_JU("flush_size", c->flush_size),
                        KF_JOPT("rotate_interval_ms", c->rotate_interval_ms > 0, c->rotate_interval_ms),
                        KF_JU("part_size", ro->part_size),
                        KF_JOPT("rotate_schedule_interval_ms", sched, ro->schedule_interval_ms),
                        KF_JOPT("catch_up_rate", sched, (int64_t)ro->catch_up_rate)); /* at most INT64_MAX */
        alt_json(o, "with_rotate_interval", &t->alt[KF_SINK_WITH_ROTATE], ro->part_size);
        alt_json(o, "with_smaller_flush_size", &t->alt[KF_SINK_WITH_SMALLER_FLUSH], ro->part_size);
        kf_jsonl_uint(&o->w, "damaged_ranges", s->damaged);
        tasks_json(R, o);
        levers_json(o, t, adv);
        kf_jsonl_end(&o->w);
        return;
    }
    FILE *f = o->f;
    char b[32];
    fmt_bytes(buffers, b, sizeof b);
    char holder[80] = "one task holding every partition";
    if (ro->tasks > 1)
        snprintf(holder, sizeof holder, "the %" PRIu32 " tasks of one worker", ro->tasks);
    /* several partitions: the sum of their peaks, an upper bound */
    bool bound = t->partitions > 1;
    tprintf(f, "  total, %" PRIu64 " partition%s: %" PRIu64 " records, %s %" PRIu64 " open file%s = %s of upload "
               "buffers for %s%s; %" PRIu64 " files committed\n",
            t->partitions, t->partitions == 1 ? "" : "s", t->records, bound ? "at most" : "peak",
            t->figures.peak_open_files, t->figures.peak_open_files == 1 ? "" : "s", b, holder,
            bound ? ", if every partition peaks at once" : "", t->figures.files_committed);
    if (ro->tasks > 1)
        tasks_text(R, f);
    tprintf(f, "  suggestion: %s\n", sug);
    if (t->figures.records_written) {
        kf_sink_explain(t, adv, sug, sizeof sug);
        tprintf(f, "  the maths: %s\n", sug);
    }
    if (t->records_without_timestamp)
        tprintf(f, "  %" PRIu64 " record%s without a timestamp (magic 0, or -1) left out: a time-based partitioner "
                   "cannot place them, and the task fails on them unless errors.tolerance=all\n",
                t->records_without_timestamp, t->records_without_timestamp == 1 ? "" : "s");
    if (s->damaged)
        tprintf(f, "  %" PRIu64 " damaged range%s skipped: the figures may be low\n", s->damaged,
                s->damaged == 1 ? "" : "s");
    fputc('\n', f);
}

static void print_topic_end(void *ctx, const kf_sink_run_topic *t)
{
    sink_run *R = ctx;
    if (!R->json)
        print_summary(R, t);
}

/* --from-group when the group's commits are not known (nothing was read):
 * why, on stderr; EXIT_FAIL. */
static int group_unknown(const kf_sink_run_result *res, const kf_inputs *in, const char *group)
{
    if (!res->offsets_partitions) {
        tprintf(stderr, "kfsck: --from-group %s: no __consumer_offsets partition among the given paths (give the "
                        "broker's __consumer_offsets-* directories too, or use --from-offset)\n", group);
    } else if (!res->group_commits) {
        tprintf(stderr, "kfsck: --from-group %s: the group has no committed offset in the __consumer_offsets "
                        "partitions given\n", group);
        note_unmatched("group", &group, 1, (const char *const *)res->groups, res->ngroups);
        note_group_partitions(in, &group, 1, 50);
    }
    return EXIT_FAIL;
}

/* The sink_verdict line (or its text): every topic's and task's buffers
 * against one worker's heap. */
static void print_verdict(sink_run *R)
{
    const kf_sink_run_opts *ro = R->o;
    uint64_t files = R->res->peak_open_files;
    size_t n = R->res->npartitions;
    uint64_t buffers = kf_sink_buffer_bytes(files, ro->part_size);
    kf_sink_verdict v = kf_sink_verdict_of(buffers, ro->heap);
    out *o = R->o_out;
    if (R->json) {
        kf_jsonl_begin(&o->w, "sink_verdict");
        kf_jsonl_uint(&o->w, "peak_buffer_bytes", buffers);
        if (ro->heap)
            kf_jsonl_uint(&o->w, "heap", ro->heap);
        else
            kf_jsonl_null(&o->w, "heap");
        kf_jsonl_fields(&o->w, KF_JS("verdict", kf_sink_verdict_name(v)), /* none without a heap: null */
                        KF_JU("peak_open_files", files), KF_JU("partitions", n), KF_JU("tasks", ro->tasks),
                        KF_JU("part_size", ro->part_size));
        kf_jsonl_end(&o->w);
        return;
    }
    char b[32], h[32];
    fmt_bytes(buffers, b, sizeof b);
    FILE *f = o->f;
    tprintf(f, "verdict: %zu partition%s in %" PRIu32 " task%s of one worker (they share its heap): %s %" PRIu64
               " open file%s = %s of upload buffers%s",
            n, n == 1 ? "" : "s", ro->tasks, ro->tasks == 1 ? "" : "s", n > 1 ? "at most" : "peak", files,
            files == 1 ? "" : "s", b, n > 1 ? ", if every partition peaks at once" : "");
    if (v == KF_SINK_VERDICT_NONE) {
        tprintf(f, "; no heap given (--heap)\n");
        return;
    }
    fmt_bytes(ro->heap, h, sizeof h);
    /* buffers that fill the heap exactly fit by the JSON rule, not in words */
    tprintf(f, ", %s the %s heap%s\n", v == KF_SINK_FITS ? "fits" : v == KF_SINK_FILLS ? "fills" : "exceeds", h,
            v == KF_SINK_FILLS ? " exactly, leaving nothing for the worker itself" : "");
}

void stats_sink_args_init(stats_sink_args *a)
{
    memset(a, 0, sizeof *a);
    kf_sink_run_opts_init(&a->run);
    kf_sink_opts_init(&a->run.sink);
    a->run.part_size = KF_SINK_DEFAULT_PART_SIZE;
    a->run.catch_up_rate = STATS_SINK_DEFAULT_CATCH_UP_RATE;
    a->run.tasks = 1;
}

int stats_sink(char *const *paths, int npaths, const stats_sink_args *a)
{
    bool json = a->json;
    out o, e;
    out_init(&o, stdout, json);
    out_init(&e, stderr, false);
    sink_run R = {.o = &a->run, .json = json, .o_out = &o, .perr = json ? &o : &e};
    kf_inputs in;
    int in_status = inputs_collect_warn_none(paths, npaths, &in);
    report rep = {R.perr, NULL, 0, 0};
    kf_sink_run_opts ro = a->run;
    part_reader_opts(&ro.read, a->max_batch, &rep);
    ro.sink.problem_fn = report_problem;
    ro.sink.problem_ctx = &rep;
    ro.offsets_problem_fn = report_problem;
    ro.offsets_problem_ctx = &rep;
    ro.load_error_fn = report_load_error;
    ro.load_error_ctx = &rep;
    ro.lost_fn = report_offsets_lost;
    ro.lost_ctx = &rep;
    ro.topic_begin_fn = print_topic_header;
    ro.partition_fn = print_partition;
    ro.topic_end_fn = print_topic_end;
    ro.ctx = &R;
    R.o = &ro;
    R.task_rows = must(calloc(ro.tasks, sizeof *R.task_rows));
    kf_sink_run_result res;
    R.res = &res;
    if (kf_sink_run(&in, &ro, &res) != KF_OK)
        cli_oom();
    int status = EXIT_CLEAN;
    if (ro.from_group && in.n && (!res.offsets_partitions || res.offsets_unreadable || !res.group_commits)) {
        status = group_unknown(&res, &in, ro.from_group);
    } else {
        if (json)
            for (size_t i = 0; i < res.ntopics; i++)
                print_summary(&R, &res.topics[i]);
        print_verdict(&R);
        if (in_status == EXIT_FAIL || res.unreadable)
            status = EXIT_FAIL;
        else if (res.damaged || (ro.from_group && res.offsets_damaged))
            status = EXIT_DAMAGE;
    }
    free(R.task_rows);
    kf_sink_run_free(&res);
    kf_inputs_free(&in);
    return status;
}
