/* stats_sink.c: `kfsck stats --sink-partition-duration`: for every topic
 * partition under the PATHs, what a storage sink connector with a
 * time-based partitioner holds open while it catches up (the simulation is
 * the library's, include/kfsck/sink.h); per topic the sums and a
 * suggestion. Copies of a partition are read as one. With --from-group,
 * each partition resumes at the group's committed offset, rebuilt from the
 * __consumer_offsets partitions among the PATHs by the replay `offsets`
 * runs. */
#include "cli/stats_sink.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "cli/walk.h"

typedef struct topic_sum {
    const char *topic;      /* "" when unknown (loose segment files) */
    kf_sink_topic t;
    uint64_t damaged;       /* damaged ranges no copy covers + batches skipped */
    size_t first;           /* its partitions: sink_run.peaks[first .. first + t.partitions) */
} topic_sum;

/* One task's share of a topic (sink_summary.tasks). */
typedef struct task_row {
    uint64_t partitions, peak_open_files;
} task_row;

/* One committed offset of the --from-group group. */
typedef struct group_commit {
    char *topic;
    int32_t partition;
    int64_t offset;
} group_commit;

typedef struct sink_run {
    const stats_sink_args *a;
    const kf_sink_opts *o;
    uint64_t part_size;
    size_t max_batch;
    bool json;
    out *o_out, *perr;
    bool damaged, unreadable;
    group_commit *commits;  /* --from-group: the group's commits, by topic and partition */
    size_t ncommits;
    uint64_t *peaks;        /* every partition simulated, in (topic, partition) order: its peak_open_files */
    size_t npeaks;          /* the index of the next one: its task is kf_sink_task_of(npeaks) */
    task_row *task_rows; /* a topic's tasks, a->tasks of them (reused) */
} sink_run;

static void topic_field(out *o, const char *topic)
{
    if (topic[0])
        out_str(o, "topic", topic);
    else
        out_null(o, "topic");
}

static void print_partition(sink_run *R, const kf_partition *p, const kf_sink_partition *s, uint64_t damaged)
{
    out *o = R->o_out;
    uint64_t buffers = kf_sink_buffer_bytes(s->figures.peak_open_files, R->part_size);
    if (R->json) {
        out_begin(o, "sink_partition");
        topic_field(o, p->topic);
        if (p->partition >= 0)
            out_int(o, "partition", p->partition);
        else
            out_null(o, "partition");
        out_uint(o, "records", s->records);
        out_uint(o, "files_committed", s->figures.files_committed);
        out_uint(o, "peak_open_files", s->figures.peak_open_files);
        if (s->figures.has_peak)
            out_int(o, "peak_at_offset", s->figures.peak_at_offset);
        else
            out_null(o, "peak_at_offset");
        out_uint(o, "peak_buffer_bytes", buffers);
        if (s->has_resume)
            out_int(o, "resume_offset", s->resume_offset);
        else
            out_null(o, "resume_offset");
        out_uint(o, "records_written", s->figures.records_written);
        out_uint(o, "records_without_timestamp", s->records_without_timestamp);
        out_uint(o, "control_records", s->control_records);
        out_uint(o, "open_files_at_end", s->figures.open_files);
        out_uint(o, "damaged_ranges", damaged);
        out_end(o);
        return;
    }
    char label[300], at[32] = "-", resume[32] = "-", buf[32];
    partition_label(p, label, sizeof label);
    if (s->figures.has_peak)
        snprintf(at, sizeof at, "%" PRId64, s->figures.peak_at_offset);
    if (s->has_resume)
        snprintf(resume, sizeof resume, "%" PRId64, s->resume_offset);
    fmt_bytes(buffers, buf, sizeof buf);
    fprintf(o->f, "  %-24s %11s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %11s %12s\n", label, resume, s->records,
            s->figures.files_committed, s->figures.peak_open_files, at, buf);
    if (s->records_without_timestamp)
        fprintf(o->f, "    %" PRIu64 " record%s without a timestamp left out\n", s->records_without_timestamp,
                s->records_without_timestamp == 1 ? "" : "s");
    if (damaged)
        fprintf(o->f, "    damage: %" PRIu64 " damaged range%s skipped, the figures may be low\n", damaged,
                damaged == 1 ? "" : "s");
}

static void print_topic_header(sink_run *R, const char *topic)
{
    const kf_sink_config *c = &R->o->config;
    char d[32], r[64], ps[32], from[96];
    fmt_duration_unit(c->partition_duration_ms, d, sizeof d);
    if (c->rotate_interval_ms > 0)
        snprintf(r, sizeof r, "rotate.interval.ms=%" PRId64, c->rotate_interval_ms);
    else
        snprintf(r, sizeof r, "no rotate.interval.ms");
    fmt_bytes(R->part_size, ps, sizeof ps);
    if (R->a->from_group)
        snprintf(from, sizeof from, "from the commits of group %.*s", 40, R->a->from_group);
    else if (R->o->from == KF_SINK_FROM_OFFSET)
        snprintf(from, sizeof from, "from offset %" PRId64, R->o->from_value);
    else if (R->o->from == KF_SINK_FROM_TIME)
        snprintf(from, sizeof from, "from time %" PRId64 " ms", R->o->from_value);
    else
        snprintf(from, sizeof from, "from the start");
    FILE *f = R->o_out->f;
    fprintf(f,
            "%s: sink catch-up with partition.duration.ms=%" PRId64 " (%s), flush.size=%" PRIu64 ", %s, "
            "%s part size, %s\n",
            topic[0] ? topic : "(unknown topic)", c->partition_duration_ms, d, c->flush_size, r, ps, from);
    if (R->a->schedule_ms)
        fprintf(f,
                "  rotate.schedule.interval.ms=%" PRId64 " at a catch-up rate of %" PRIu64 " records/s per "
                "partition%s: a scheduled commit every %" PRIu64 " records\n",
                R->a->schedule_ms, R->a->catch_up_rate,
                R->a->catch_up_rate == STATS_SINK_DEFAULT_CATCH_UP_RATE ? " (the default; --catch-up-rate)" : "",
                R->o->schedule_records);
    fprintf(f, "  %-24s %11s %10s %10s %10s %11s %12s\n", "PARTITION", "RESUME AT", "RECORDS", "COMMITTED",
            "PEAK OPEN", "AT OFFSET", "BUFFERS");
}

static void alt_json(out *o, const char *key, const kf_sink_alt *a, uint64_t part_size)
{
    if (!a->on) {
        out_null(o, key);
        return;
    }
    out_obj_open(o, key);
    out_uint(o, "flush_size", a->config.flush_size);
    if (a->config.rotate_interval_ms > 0)
        out_int(o, "rotate_interval_ms", a->config.rotate_interval_ms);
    else
        out_null(o, "rotate_interval_ms");
    out_uint(o, "peak_open_files", a->figures.peak_open_files);
    out_uint(o, "peak_buffer_bytes", kf_sink_buffer_bytes(a->figures.peak_open_files, part_size));
    out_uint(o, "files_committed", a->figures.files_committed);
    out_obj_close(o);
}

/* The rows of R->task_rows for topic s. */
static void topic_tasks(sink_run *R, const topic_sum *s)
{
    memset(R->task_rows, 0, R->a->tasks * sizeof *R->task_rows);
    for (size_t k = s->first; k < s->first + s->t.partitions; k++) {
        task_row *row = &R->task_rows[kf_sink_task_of(k, R->a->tasks)];
        row->partitions++;
        row->peak_open_files += R->peaks[k];
    }
}

static void tasks_json(sink_run *R, out *o)
{
    out_arr_open(o, "tasks");
    for (uint32_t k = 0; k < R->a->tasks; k++) {
        const task_row *row = &R->task_rows[k];
        out_obj_open(o, NULL);
        out_uint(o, "task", k);
        out_uint(o, "partitions", row->partitions);
        out_uint(o, "peak_open_files", row->peak_open_files);
        out_uint(o, "peak_buffer_bytes", kf_sink_buffer_bytes(row->peak_open_files, R->part_size));
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void tasks_text(sink_run *R, FILE *f)
{
    for (uint32_t k = 0; k < R->a->tasks; k++) {
        const task_row *row = &R->task_rows[k];
        char b[32];
        fmt_bytes(kf_sink_buffer_bytes(row->peak_open_files, R->part_size), b, sizeof b);
        fprintf(f, "    task %" PRIu32 ": %" PRIu64 " partition%s, peak %" PRIu64 " open file%s = %s\n", k,
                row->partitions, row->partitions == 1 ? "" : "s", row->peak_open_files,
                row->peak_open_files == 1 ? "" : "s", b);
    }
}

/* sink_summary.levers: every lever that is on (kf_sink_levers). */
static void levers_json(out *o, const kf_sink_topic *t, const kf_sink_advice_in *adv)
{
    kf_sink_lever lever[KF_SINK_LEVERS];
    kf_sink_levers(t, adv, lever);
    out_arr_open(o, "levers");
    for (int k = 0; k < KF_SINK_LEVERS; k++) {
        const kf_sink_lever *l = &lever[k];
        if (!l->on)
            continue;
        out_obj_open(o, NULL);
        out_str(o, "setting", kf_sink_lever_name((kf_sink_lever_kind)k));
        out_uint(o, "value", l->value);
        out_uint(o, "peak_open_files", l->peak_open_files);
        out_uint(o, "peak_buffer_bytes", l->peak_buffer_bytes);
        out_uint(o, "files_committed", l->files_committed);
        out_uint(o, "records_per_file", l->records_per_file);
        out_bool(o, "tiny_files", l->tiny_files);
        const char *v = kf_sink_verdict_name(l->verdict);
        if (v)
            out_str(o, "verdict", v);
        else
            out_null(o, "verdict");
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void print_summary(sink_run *R, const topic_sum *s)
{
    topic_tasks(R, s);
    const kf_sink_topic *t = &s->t;
    const kf_sink_config *c = &R->o->config;
    kf_sink_advice_in adv = {*c, R->o->schedule_records, R->a->schedule_ms, R->a->catch_up_rate, R->part_size,
                             R->a->heap, R->a->tasks, R->peaks + s->first, (size_t)t->partitions};
    char sug[4096];
    kf_sink_advise(t, &adv, sug, sizeof sug);
    uint64_t buffers = kf_sink_buffer_bytes(t->figures.peak_open_files, R->part_size);
    out *o = R->o_out;
    if (R->json) {
        out_begin(o, "sink_summary");
        topic_field(o, s->topic);
        out_uint(o, "partitions", t->partitions);
        out_uint(o, "peak_open_files", t->figures.peak_open_files);
        out_uint(o, "peak_buffer_bytes", buffers);
        out_str(o, "suggestion", sug);
        out_uint(o, "records", t->records);
        out_uint(o, "records_written", t->figures.records_written);
        out_uint(o, "records_without_timestamp", t->records_without_timestamp);
        out_uint(o, "files_committed", t->figures.files_committed);
        out_int(o, "partition_duration_ms", c->partition_duration_ms);
        out_uint(o, "flush_size", c->flush_size);
        if (c->rotate_interval_ms > 0)
            out_int(o, "rotate_interval_ms", c->rotate_interval_ms);
        else
            out_null(o, "rotate_interval_ms");
        out_uint(o, "part_size", R->part_size);
        if (R->a->schedule_ms) {
            out_int(o, "rotate_schedule_interval_ms", R->a->schedule_ms);
            out_uint(o, "catch_up_rate", R->a->catch_up_rate);
        } else {
            out_null(o, "rotate_schedule_interval_ms");
            out_null(o, "catch_up_rate");
        }
        alt_json(o, "with_rotate_interval", &t->alt[KF_SINK_WITH_ROTATE], R->part_size);
        alt_json(o, "with_smaller_flush_size", &t->alt[KF_SINK_WITH_SMALLER_FLUSH], R->part_size);
        out_uint(o, "damaged_ranges", s->damaged);
        tasks_json(R, o);
        levers_json(o, t, &adv);
        out_end(o);
        return;
    }
    FILE *f = o->f;
    char b[32];
    fmt_bytes(buffers, b, sizeof b);
    char holder[80] = "one task holding every partition";
    if (R->a->tasks > 1)
        snprintf(holder, sizeof holder, "the %" PRIu32 " tasks of one worker", R->a->tasks);
    fprintf(f, "  total, %" PRIu64 " partition%s: %" PRIu64 " records, peak %" PRIu64 " open file%s = %s of upload "
               "buffers for %s; %" PRIu64 " files committed\n",
            t->partitions, t->partitions == 1 ? "" : "s", t->records, t->figures.peak_open_files,
            t->figures.peak_open_files == 1 ? "" : "s", b, holder, t->figures.files_committed);
    if (R->a->tasks > 1)
        tasks_text(R, f);
    fprintf(f, "  suggestion: %s\n", sug);
    if (t->figures.records_written) {
        kf_sink_explain(t, &adv, sug, sizeof sug);
        fprintf(f, "  the maths: %s\n", sug);
    }
    if (t->records_without_timestamp)
        fprintf(f, "  %" PRIu64 " record%s without a timestamp (magic 0, or -1) left out: a time-based partitioner "
                   "cannot place them, and the task fails on them unless errors.tolerance=all\n",
                t->records_without_timestamp, t->records_without_timestamp == 1 ? "" : "s");
    if (s->damaged)
        fprintf(f, "  %" PRIu64 " damaged range%s skipped: the figures may be low\n", s->damaged,
                s->damaged == 1 ? "" : "s");
    fputc('\n', f);
}

static int cmp_commit(const void *a, const void *b)
{
    const group_commit *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

/* The group's committed offset of p, or NULL. */
static const group_commit *commit_of(const sink_run *R, const kf_partition *p)
{
    group_commit key = {(char *)p->topic, p->partition, 0};
    return bsearch(&key, R->commits, R->ncommits, sizeof key, cmp_commit);
}

/* --from-group: replay the __consumer_offsets partitions among in as
 * `offsets` does and keep the group's committed offsets in R. EXIT_CLEAN,
 * EXIT_DAMAGE (damage in the offsets topic: a commit may be missing), or
 * EXIT_FAIL when there is no __consumer_offsets partition or no commit of
 * the group (said on stderr). */
static int load_group(sink_run *R, const kf_inputs *in, const char *group)
{
    report rep = {R->perr, NULL, 0, 0};
    kf_replay *r = offsets_replay_new(R->max_batch, &rep);
    kf_offsets_topic_result res;
    replay_offsets_topic(in, r, R->max_batch, R->perr, &res);
    if (!res.partitions) {
        fprintf(stderr, "kfsck: --from-group %s: no __consumer_offsets partition among the given paths (give the "
                        "broker's __consumer_offsets-* directories too, or use --from-offset)\n", group);
        kf_replay_free(r);
        return EXIT_FAIL;
    }
    const kf_offset_value **rows;
    size_t n = kf_replay_offsets(r, &rows), ng = 0;
    R->commits = must(calloc(n ? n : 1, sizeof *R->commits));
    const char **groups = must(malloc((n ? n : 1) * sizeof *groups));
    for (size_t i = 0; i < n; i++) {
        if (!ng || strcmp(groups[ng - 1], rows[i]->group)) /* rows are sorted by group */
            groups[ng++] = rows[i]->group;
        if (strcmp(rows[i]->group, group))
            continue;
        group_commit *c = &R->commits[R->ncommits++];
        c->topic = must(strdup(rows[i]->topic));
        c->partition = rows[i]->partition;
        c->offset = rows[i]->offset;
    }
    int status = EXIT_CLEAN;
    if (res.unreadable)
        status = EXIT_FAIL;
    else if (res.uncovered || kf_replay_get_stats(r).skipped)
        status = EXIT_DAMAGE; /* a commit may be missing */
    if (!R->ncommits) {
        fprintf(stderr, "kfsck: --from-group %s: the group has no committed offset in the __consumer_offsets "
                        "partitions given\n", group);
        note_unmatched("group", &group, 1, groups, ng);
        note_group_partitions(in, &group, 1, 50);
        status = EXIT_FAIL;
    }
    free(groups);
    kf_replay_free(r);
    qsort(R->commits, R->ncommits, sizeof *R->commits, cmp_commit);
    return status;
}

/* --from-group: on stderr, a topic of which the group committed nothing
 * (every partition starts at its log start). */
static void note_uncommitted_topic(const sink_run *R, const char *topic)
{
    for (size_t i = 0; i < R->ncommits; i++)
        if (!strcmp(R->commits[i].topic, topic))
            return;
    fprintf(stderr, "kfsck: --from-group %s: no committed offset for topic '%s': its partitions start at their log "
                    "start (auto.offset.reset=earliest)\n", R->a->from_group, topic[0] ? topic : "(unknown)");
}

static void free_commits(sink_run *R)
{
    for (size_t i = 0; i < R->ncommits; i++)
        free(R->commits[i].topic);
    free(R->commits);
}

static void read_partition(sink_run *R, const kf_partition *p, topic_sum *s)
{
    report rep = {R->perr, NULL, 0, 0};
    kf_part_reader_opts ro;
    part_reader_opts(&ro, R->max_batch, &rep);
    kf_sink_opts po = *R->o;
    if (R->a->from_group) { /* the group's commit, else the log start (auto.offset.reset=earliest) */
        const group_commit *c = commit_of(R, p);
        po.from = c ? KF_SINK_FROM_OFFSET : KF_SINK_FROM_START;
        po.from_value = c ? c->offset : 0;
    }
    po.problem_fn = report_problem;
    po.problem_ctx = &rep;
    kf_sink_partition sp;
    kf_part_result ur;
    if (kf_sink_read(p, &ro, &po, &sp, &ur) != KF_OK)
        cli_oom();
    uint64_t damaged = ur.uncovered + sp.skipped_batches;
    if (damaged)
        R->damaged = true;
    if (ur.unreadable)
        R->unreadable = true;
    s->damaged += damaged;
    kf_sink_topic_add(&s->t, &sp);
    R->peaks[R->npeaks++] = sp.figures.peak_open_files;
    print_partition(R, p, &sp, damaged);
}

/* The sink_verdict line (or its text): every topic's and task's buffers
 * against one worker's heap. */
static void print_verdict(sink_run *R)
{
    uint64_t files = 0;
    for (size_t k = 0; k < R->npeaks; k++)
        files += R->peaks[k];
    uint64_t buffers = kf_sink_buffer_bytes(files, R->part_size);
    kf_sink_verdict v = kf_sink_verdict_of(buffers, R->a->heap);
    out *o = R->o_out;
    if (R->json) {
        out_begin(o, "sink_verdict");
        out_uint(o, "peak_buffer_bytes", buffers);
        if (R->a->heap)
            out_uint(o, "heap", R->a->heap);
        else
            out_null(o, "heap");
        if (v != KF_SINK_VERDICT_NONE)
            out_str(o, "verdict", kf_sink_verdict_name(v));
        else
            out_null(o, "verdict");
        out_uint(o, "peak_open_files", files);
        out_uint(o, "partitions", R->npeaks);
        out_uint(o, "tasks", R->a->tasks);
        out_uint(o, "part_size", R->part_size);
        out_end(o);
        return;
    }
    char b[32], h[32];
    fmt_bytes(buffers, b, sizeof b);
    FILE *f = o->f;
    fprintf(f, "verdict: %zu partition%s in %" PRIu32 " task%s of one worker (they share its heap): peak %" PRIu64
               " open file%s = %s of upload buffers",
            R->npeaks, R->npeaks == 1 ? "" : "s", R->a->tasks, R->a->tasks == 1 ? "" : "s", files,
            files == 1 ? "" : "s", b);
    if (v == KF_SINK_VERDICT_NONE) {
        fprintf(f, "; no heap given (--heap)\n");
        return;
    }
    fmt_bytes(R->a->heap, h, sizeof h);
    fprintf(f, ", %s the %s heap\n", v == KF_SINK_FITS ? "fits" : "exceeds", h);
}

int stats_sink(char *const *paths, int npaths, const stats_sink_args *a)
{
    const kf_sink_opts *opts = &a->so;
    bool json = a->json;
    out o, e;
    out_init(&o, stdout, json);
    out_init(&e, stderr, false);
    sink_run R = {.a = a, .o = opts, .part_size = a->part_size, .max_batch = a->max_batch, .json = json,
                  .o_out = &o, .perr = json ? &o : &e};
    kf_inputs in;
    int in_status = inputs_collect(paths, npaths, &in);
    if (!in.n && in_status != EXIT_FAIL)
        fprintf(stderr, "kfsck: no partition or segment found under the given paths\n");
    int group_status = EXIT_CLEAN;
    if (a->from_group && in.n) {
        group_status = load_group(&R, &in, a->from_group);
        if (group_status == EXIT_FAIL) {
            free_commits(&R);
            kf_inputs_free(&in);
            return EXIT_FAIL;
        }
    }
    topic_sum *sums = must(calloc(in.n ? in.n : 1, sizeof *sums));
    R.peaks = must(calloc(in.n ? in.n : 1, sizeof *R.peaks));
    R.task_rows = must(calloc(a->tasks, sizeof *R.task_rows));
    size_t nsums = 0;
    /* in.parts is sorted by topic, then partition */
    for (size_t i = 0; i < in.n;) {
        size_t j = i + 1;
        while (j < in.n && !strcmp(in.parts[j].topic, in.parts[i].topic))
            j++;
        if (a->from_group && !strcmp(in.parts[i].topic, "__consumer_offsets")) {
            i = j; /* where the group's offsets come from, not what the connector reads */
            continue;
        }
        if (a->from_group)
            note_uncommitted_topic(&R, in.parts[i].topic);
        topic_sum *s = &sums[nsums++];
        s->topic = in.parts[i].topic;
        s->first = R.npeaks;
        kf_sink_topic_init(&s->t, opts);
        if (!json)
            print_topic_header(&R, s->topic);
        for (size_t k = i; k < j; k++)
            read_partition(&R, &in.parts[k], s);
        if (!json)
            print_summary(&R, s);
        i = j;
    }
    if (json)
        for (size_t i = 0; i < nsums; i++)
            print_summary(&R, &sums[i]);
    print_verdict(&R);
    free(sums);
    free(R.peaks);
    free(R.task_rows);
    free_commits(&R);
    kf_inputs_free(&in);
    if (in_status == EXIT_FAIL || R.unreadable)
        return EXIT_FAIL;
    return R.damaged || group_status == EXIT_DAMAGE ? EXIT_DAMAGE : EXIT_CLEAN;
}
