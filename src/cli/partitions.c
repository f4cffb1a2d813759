/* partitions.c: the command line's PATHs as kf_inputs, the options of
 * partition readers that print their problems, and the library's replay of
 * every __consumer_offsets partition on one time line with them. */
#include "cli/partitions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"
#include "kfsck/offsets_view.h"

static void path_error(void *ctx, const char *path, int err_no, const char *what)
{
    (void)ctx;
    (void)err_no;
    cli_error(path, "%s", what);
}

/* --max-batch-bytes (a uint64_t) as a size: SIZE_MAX when larger. */
static size_t size_cap(uint64_t n) { return n > SIZE_MAX ? SIZE_MAX : (size_t)n; }

int inputs_collect(char *const *paths, int n, kf_inputs *in)
{
    int rc = kf_inputs_collect(in, paths, (size_t)n, path_error, NULL);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    return rc == KF_OK ? EXIT_CLEAN : EXIT_FAIL;
}

int inputs_collect_warn_none(char *const *paths, int n, kf_inputs *in)
{
    int status = inputs_collect(paths, n, in);
    if (!in->n && status != EXIT_FAIL)
        tprintf(stderr, "kfsck: no partition or segment found under the given paths\n");
    return status;
}

int cluster_inputs_read(cluster_inputs *ci, char *const *paths, int n, uint64_t max_batch_bytes, bool warn_none)
{
    if (cli_mixed_clusters(paths, n))
        return EXIT_FAIL;
    ci->paths = paths;
    ci->npaths = n;
    ci->in_status = warn_none ? inputs_collect_warn_none(paths, n, &ci->in) : inputs_collect(paths, n, &ci->in);
    if (kf_metadata_of_paths(&ci->metadata, paths, (size_t)n, size_cap(max_batch_bytes)) != KF_OK)
        cli_oom();
    return -1;
}

void cluster_inputs_free(cluster_inputs *ci)
{
    kf_metadata_free(ci->metadata);
    kf_inputs_free(&ci->in);
}

void part_reader_opts(kf_part_reader_opts *o, uint64_t max_batch_bytes, report *rep)
{
    kf_part_reader_opts_init(o);
    o->max_batch_bytes = size_cap(max_batch_bytes);
    reader_tuning(&o->threads, &o->chunk_bytes);
    o->problem_fn = report_problem;
    o->problem_ctx = rep;
}

/* ---- replay of the offsets topic on one time line -------------------------- */

/* An offsets_lost problem's time window: first_timestamp / last_timestamp. */
static void lost_window_fields(out *o, void *ctx)
{
    const kf_offsets_lost *l = ctx;
    kf_jsonl_opt_int(&o->w, "first_timestamp", l->has_first_timestamp, l->first_timestamp);
    kf_jsonl_opt_int(&o->w, "last_timestamp", l->has_last_timestamp, l->last_timestamp);
}

/* In JSON the window is its own fields; in text it ends the message. */
void report_offsets_lost(void *ctx, const kf_offsets_lost *l)
{
    report *rep = ctx;
    if (!rep->o || rep->o->json || (!l->has_first_timestamp && !l->has_last_timestamp)) {
        report_problem_with(rep, l->problem, lost_window_fields, (void *)l);
        return;
    }
    kf_problem p = *l->problem;
    char first[40], last[40];
    kf_format_time(l->first_timestamp, true, first, sizeof first);
    kf_format_time(l->last_timestamp, true, last, sizeof last);
    size_t n = strlen(p.message);
    snprintf(p.message + n, sizeof p.message - n, "; the lost commits were written %s%s%s%s",
             l->has_first_timestamp ? "after " : "", l->has_first_timestamp ? first : "",
             l->has_first_timestamp && l->has_last_timestamp ? " and " : "",
             l->has_last_timestamp ? "before " : "");
    n = strlen(p.message);
    if (l->has_last_timestamp)
        snprintf(p.message + n, sizeof p.message - n, "%s", last);
    report_problem_with(rep, &p, NULL, NULL);
}

void replay_offsets_topic(const kf_inputs *in, kf_replay *r, size_t max_batch_bytes, out *perr,
                          kf_offsets_topic_result *res)
{
    /* damage counts only where no copy covers it: the readers' counts are not kept */
    report urep = {perr, NULL, 0, 0};
    kf_offsets_topic_opts o;
    kf_offsets_topic_opts_init(&o);
    part_reader_opts(&o.read, max_batch_bytes, &urep);
    o.lost_fn = report_offsets_lost;
    o.lost_ctx = &urep;
    if (kf_replay_offsets_topic(r, in, &o, res) != KF_OK)
        cli_oom();
}

void note_group_partitions(const kf_inputs *in, const char *const *groups, size_t n, int32_t partitions)
{
    for (size_t i = 0; i < n; i++) {
        const char *g = groups[i];
        int32_t p = kf_coordinator_partition((const uint8_t *)g, strlen(g), partitions);
        if (!kf_inputs_find(in, "__consumer_offsets", p))
            tprintf(stderr,
                    "kfsck: __consumer_offsets-%d: not among the inputs, but group '%s' is stored there (of %d "
                    "partitions)\n",
                    p, g, partitions);
        else
            tprintf(stderr, "kfsck: group '%s' is stored in __consumer_offsets-%d (of %d partitions)\n", g, p,
                    partitions);
    }
}

/* A coordinator_load_error's own fields: source_partition, decode_error. */
static void load_error_fields(out *o, void *ctx)
{
    const kf_coord_load_error *e = ctx;
    kf_jsonl_int(&o->w, "source_partition", e->source_partition);
    kf_jsonl_str(&o->w, "decode_error", e->decode_error);
}

void report_load_error(void *ctx, const kf_coord_load_error *e)
{
    report_problem_with(ctx, e->problem, load_error_fields, (void *)e);
}

void replay_report_load_errors(kf_replay *r, report *rep) { kf_replay_on_load_error(r, report_load_error, rep); }

void offsets_job_opts(kf_offsets_job_opts *o, size_t max_batch_bytes, report *rep, report *readers)
{
    part_reader_opts(&o->read, max_batch_bytes, readers);
    o->problem_fn = report_problem;
    o->problem_ctx = rep;
    o->load_error_fn = report_load_error;
    o->load_error_ctx = rep;
    o->lost_fn = report_offsets_lost;
    o->lost_ctx = readers;
}

int offsets_job_finish(kf_offsets_job *j, kf_topic_names *names, kf_inputs *in, int in_status, const report *rep)
{
    kf_offsets_job_result res = kf_offsets_job_get_result(j);
    kf_offsets_job_free(j);
    kf_topic_names_free(names);
    kf_inputs_free(in);
    fflush(stdout);
    if (in_status == EXIT_FAIL || res.unreadable)
        return EXIT_FAIL;
    return (res.uncovered || res.skipped || rep->errors) ? EXIT_DAMAGE : EXIT_CLEAN;
}

kf_replay *offsets_replay_new(size_t max_batch_bytes, report *rep)
{
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = max_batch_bytes;
    ro.problem_fn = report_problem;
    ro.problem_ctx = rep;
    kf_replay *r;
    if (kf_replay_new(&r, &ro) != KF_OK)
        cli_oom();
    replay_report_load_errors(r, rep);
    return r;
}

void note_unmatched(const char *what, const char *const *wanted, size_t n, const char *const *names, size_t nnames)
{
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (size_t k = 0; k < nnames && !found; k++)
            found = !strcmp(names[k], wanted[i]);
        if (found)
            continue;
        const char *close[3];
        size_t nc = kf_closest_names(wanted[i], names, nnames, close, 3);
        tprintf(stderr, "kfsck: %s '%s' matches nothing in the inputs", what, wanted[i]);
        for (size_t k = 0; k < nc; k++) {
            tprintf(stderr, "%s'%s'", k ? ", " : "; closest: ", close[k]);
            size_t cl = strlen(close[k]), wl = strlen(wanted[i]);
            if (!strncmp(close[k], "connect-", 8) && !strcmp(close[k] + 8, wanted[i]))
                fputs(" (a sink connector's group is connect-<name>)", stderr);
            else if (wl > cl + 1 && !strncmp(wanted[i], close[k], cl) && wanted[i][cl] == '-')
                tprintf(stderr, " ('%s' is partition %s of it)", wanted[i], wanted[i] + cl + 1);
        }
        fputc('\n', stderr);
    }
}
