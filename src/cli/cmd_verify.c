/* cmd_verify.c: `kfsck verify`: options, and the printing of what the
 * library's checks (include/kfsck/verify.h) find: one problem line per
 * finding and one summary line per segment. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

typedef struct verify_run {
    out *o;
    const kf_schema_tally *tally; /* --schema-ids: the segment's ids, else NULL */
} verify_run;

/* --schema-ids: an id or GUID as the key of segment's schema_ids */
/* A damaged segment's fate at the broker's next start: recovery keeps
 * valid_bytes only where the broker recovers the segment; below the
 * recovery point, or after a clean shutdown, it keeps the damage. */
static void damage_text(out *o, const char *path, const kf_segment_summary *s)
{
    kf_segment_fate_info f;
    if (kf_segment_fate(path, &f) == KF_ERR_NOMEM)
        cli_oom();
    out_text(o, ", %llu damaged", (unsigned long long)s->bad_batches);
    if (f.fate == KF_SEGMENT_KEPT_BELOW_RECOVERY_POINT)
        out_text(o, "; the broker does not recover it (below the segment holding the recovery point %lld): it keeps "
                    "the damage and serves it (recovering it would keep %llu bytes)",
                 (long long)f.recovery_point, (unsigned long long)s->valid_bytes);
    else if (f.fate == KF_SEGMENT_KEPT_CLEAN_SHUTDOWN)
        out_text(o, "; after the clean shutdown the broker does not recover it: it keeps the damage and serves it "
                    "(recovering it would keep %llu bytes)",
                 (unsigned long long)s->valid_bytes);
    else
        out_text(o, ", broker recovery keeps %llu bytes", (unsigned long long)s->valid_bytes);
}

static void print_segment(void *ctx, const char *path, const kf_segment_summary *s)
{
    out *o = ((verify_run *)ctx)->o;
    if (o->json) {
        kf_verify_segment_json(&o->w, path, s, ((verify_run *)ctx)->tally);
        return;
    }
    out_text(o, "%s: %llu bytes, %llu batches, %llu records", path, (unsigned long long)s->size,
             (unsigned long long)s->batches, (unsigned long long)s->records);
    if (s->has_offsets)
        out_text(o, ", offsets %lld..%lld", (long long)s->first_offset, (long long)s->last_offset);
    if (s->bad_batches || s->valid_bytes != s->size)
        damage_text(o, path, s);
    const kf_schema_tally *t = ((verify_run *)ctx)->tally;
    if (t) {
        out_text(o, ", schema ids:");
        size_t n = kf_schema_tally_count(t);
        for (size_t i = 0; i < n; i++) {
            kf_schema_frame f;
            uint64_t c;
            char name[37];
            kf_schema_tally_get(t, i, &f, &c);
            kf_schema_id_name(&f, name);
            out_text(o, "%s %s x%llu", i ? "," : "", name, (unsigned long long)c);
        }
        if (!n)
            out_text(o, " none");
        if (kf_schema_tally_omitted(t))
            out_text(o, " and %llu more", (unsigned long long)kf_schema_tally_omitted(t));
    }
    out_text(o, "%s\n", s->errors ? "" : (s->warnings ? " (warnings only)" : " - ok"));
}

static void show_progress(void *ctx, const char *path, uint64_t position, uint64_t size)
{
    (void)ctx;
    progress_show((void *)path, position, size);
}

static void path_done(void *ctx, const char *path)
{
    (void)ctx;
    (void)path;
    progress_done();
}

static void verify_usage(FILE *f)
{
    tprintf(f, "usage: kfsck verify [--schema-ids key|value|both] [--max-batch-bytes N] [--json] PATH...\n\n"
               "PATH: a segment or other Kafka file, a partition dir, or a broker data dir.\n"
               "Reports each problem (code, byte position, offset) and one summary per segment,\n"
               "with valid_bytes: where a recovering broker would truncate the segment.\n"
               "  --schema-ids key|value|both  also flag every non-null key/value not framed for the\n"
               "                     Confluent Schema Registry (schema_framing warnings) and count\n"
               "                     the schema ids seen per segment\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json               newline-delimited JSON\n"
               "exit: 0 no error found (warnings alone: 0); 1 an error found; 2 usage error;\n"
               "3 a path cannot be read or the output cannot be written.\n");
}

int cmd_verify(int argc, char **argv)
{
    static const char *const schema_choices[] = {"key", "value", "both", NULL};
    static const unsigned schema_checks[] = {KF_SCHEMA_CHECK_KEY, KF_SCHEMA_CHECK_VALUE,
                                             KF_SCHEMA_CHECK_KEY | KF_SCHEMA_CHECK_VALUE};
    bool json = false, schema_given = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    int schema = 0;
    const opt_spec specs[] = {
        {.name = "--json", .kind = OPT_FLAG, .to = &json},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {.name = "--schema-ids", .kind = OPT_CHOICE, .to = &schema, .choices = schema_choices,
         .given = &schema_given, .refusal = "--schema-ids is key, value or both, not"},
        {0},
    };
    int st = opt_parse("verify", argc, argv, specs, verify_usage, "no PATH given");
    if (st >= 0)
        return st;
    unsigned schema_fields = schema_given ? schema_checks[schema] : 0;
    out o;
    out_init(&o, stdout, json);
    report rep = {&o, NULL, 0, 0};
    verify_run run = {&o, NULL};
    kf_verify_opts vo;
    kf_verify_opts_init(&vo);
    kf_schema_tally *tally = NULL;
    if (schema_fields) {
        if (kf_schema_tally_new(&tally) != KF_OK)
            cli_oom();
        vo.schema_fields = schema_fields;
        vo.schema_tally = tally;
        run.tally = tally;
    }
    vo.max_batch_bytes = (size_t)max_batch;
    reader_tuning(&vo.threads, &vo.chunk_bytes);
    vo.problem_fn = report_problem;
    vo.problem_ctx = &rep;
    vo.segment_fn = print_segment;
    vo.segment_ctx = &run;
    vo.progress_fn = show_progress;
    vo.path_error_fn = print_path_error;
    vo.path_done_fn = path_done;
    kf_verify_result res = {0};
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    int rc = kf_verify_paths(argv + optind, (size_t)(argc - optind), &vo, &res);
    kf_schema_tally_free(tally);
    if (rc == KF_ERR_NOMEM)
        return EXIT_FAIL;
    int status = rc == KF_OK ? EXIT_CLEAN : EXIT_FAIL;
    if (!json) {
        /* the counts of problems, then the paths that could not be read
         * (an unreadable file's problem line is counted in both) */
        out_text(&o, "%llu error%s, %llu warning%s", (unsigned long long)res.errors, res.errors == 1 ? "" : "s",
                 (unsigned long long)res.warnings, res.warnings == 1 ? "" : "s");
        if (res.unreadable_paths)
            out_text(&o, "; could not check %llu path%s", (unsigned long long)res.unreadable_paths,
                     res.unreadable_paths == 1 ? "" : "s");
        out_text(&o, "\n");
    }
    fflush(stdout);
    if (status == EXIT_FAIL || res.unreadable)
        return EXIT_FAIL;
    return res.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}
