/* cmd_merge.c: `kfsck merge`: rebuild one partition from several damaged
 * copies (PARTDIRs from different brokers or backups) into
 * OUTDIR/<partition dir name>/, reporting conflicts (same offsets, other
 * bytes: the higher leader epoch wins) and holes (offsets no copy holds
 * intact) on stdout and in OUTDIR/merge.json. The work is done by
 * kf_merge_partitions (src/jobs/merge.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/outdir.h"
#include "cli/walk.h"
#include "kfsck/repair.h"

typedef struct merge_cli {
    out *o;
    bool json;
    char *const *labels;
    out jc, jh, js, jf;
    char *bc, *bh, *bs, *bf;
    size_t lc, lh, ls, lf;
    FILE *fc, *fh, *fs, *ff;
    uint64_t problems;
    name_set written;   /* base names of the files written */
} merge_cli;

static void conflict_fields(merge_cli *m, out *o, const kf_merge_conflict *c)
{
    out_int(o, "start_offset", c->start_offset);
    out_int(o, "end_offset", c->end_offset);
    out_str(o, "chosen", m->labels[c->chosen]);
    out_arr_open(o, "leader_epochs");
    for (size_t i = 0; i < c->ncopies; i++) {
        if (c->has[i])
            out_int(o, NULL, c->leader_epochs[i]);
        else
            out_null(o, NULL);
    }
    out_arr_close(o);
    out_arr_open(o, "copies");
    for (size_t i = 0; i < c->ncopies; i++)
        if (c->has[i])
            out_str(o, NULL, m->labels[i]);
    out_arr_close(o);
}

static void on_conflict(void *ctx, const kf_merge_conflict *c)
{
    merge_cli *m = ctx;
    if (m->json) {
        out_begin(m->o, "conflict");
        conflict_fields(m, m->o, c);
        out_end(m->o);
    } else {
        out_text(m->o, "conflict: offsets %lld..%lld differ between copies; took %s (leader epochs", (long long)c->start_offset,
                 (long long)c->end_offset, m->labels[c->chosen]);
        for (size_t i = 0; i < c->ncopies; i++)
            if (c->has[i])
                out_text(m->o, " %s=%d", m->labels[i], c->leader_epochs[i]);
        out_text(m->o, ")\n");
    }
    out_obj_open(&m->jc, NULL);
    conflict_fields(m, &m->jc, c);
    out_obj_close(&m->jc);
}

static void hole_fields(out *o, const kf_merge_hole *h)
{
    out_int(o, "start_offset", h->start_offset);
    if (h->has_end)
        out_int(o, "end_offset", h->end_offset);
    else
        out_null(o, "end_offset");
}

static void on_hole(void *ctx, const kf_merge_hole *h)
{
    merge_cli *m = ctx;
    if (m->json) {
        out_begin(m->o, "hole");
        hole_fields(m->o, h);
        out_end(m->o);
    } else if (h->has_end && h->discarded) {
        out_text(m->o, "hole: offsets %lld..%lld are held only by a discarded history (a lower leader epoch)\n",
                 (long long)h->start_offset, (long long)h->end_offset);
    } else if (h->has_end) {
        out_text(m->o, "hole: offsets %lld..%lld are intact in no copy\n", (long long)h->start_offset,
                 (long long)h->end_offset);
    } else {
        out_text(m->o, "hole: offsets from %lld are intact in no copy\n", (long long)h->start_offset);
    }
    out_obj_open(&m->jh, NULL);
    hole_fields(&m->jh, h);
    out_obj_close(&m->jh);
}

static void on_segment(void *ctx, const kf_repair_segment *s)
{
    merge_cli *m = ctx;
    name_set_add_segment(&m->written, s->output);
    if (m->json) {
        out_begin(m->o, "segment");
        segment_fields(m->o, s, false);
        out_end(m->o);
    } else {
        out_text(m->o, "wrote %s: %llu batches, %llu bytes\n", s->output, (unsigned long long)s->batches,
                 (unsigned long long)s->size);
    }
    out_obj_open(&m->js, NULL);
    segment_fields(&m->js, s, false);
    out_obj_close(&m->js);
}

static void on_file(void *ctx, const kf_repair_file *f)
{
    merge_cli *m = ctx;
    name_set_add(&m->written, f->output);
    file_record(m->o, &m->jf, f);
}

static void on_problem(void *ctx, const kf_problem *p)
{
    merge_cli *m = ctx;
    m->problems++;
    report r = {m->o, p->file, 0, 0};
    report_problem(&r, p);
}

static void merge_usage(FILE *f)
{
    fprintf(f, "usage: kfsck merge [--force] [--max-batch-bytes N] [--json] -o OUTDIR PARTDIR PARTDIR...\n\n"
               "Each PARTDIR is a copy of the same partition (from another broker or a backup).\n"
               "Writes OUTDIR/<partition dir name>/ holding, for every offset range, a valid batch\n"
               "from some copy (same offsets with other bytes: the higher leader epoch wins, and\n"
               "the conflict is reported), and OUTDIR/merge.json with the conflicts and the holes\n"
               "(offset ranges no copy holds intact). Segments start at the inputs' base offsets.\n"
               "The merged log never goes back to a lower leader epoch: a copy's batches of a\n"
               "lower epoch past the start of a higher one are left out as conflicts.\n"
               "  --force     overwrite existing output files\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json      newline-delimited JSON on stdout (merge.json is written either way)\n"
               "Exit 0: nothing left out; 1: a hole or a conflict; 2: usage error; 3: cannot\n"
               "read or write.\n");
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"force", no_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    bool json = false, force = false;
    const char *outdir = NULL;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'f': force = true; break;
        case 'o': outdir = optarg; break;
        case 'B':
            if (opt_positive_size("merge", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': merge_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("merge", "unknown or incomplete option", argv[optind - 1], merge_usage);
        }
    }
    if (!outdir || !outdir[0])
        return opt_usage_error("merge", "no output directory given (-o OUTDIR)", NULL, merge_usage);
    if (optind >= argc)
        return opt_usage_error("merge", "no PARTDIR given", NULL, merge_usage);
    if (argc - optind < 2)
        return opt_usage_error("merge", "two or more PARTDIRs are needed (to repair one copy: kfsck repair --salvage):",
                               argv[optind], merge_usage);
    int n = argc - optind;
    char *const *dirs = argv + optind;
    for (int i = 0; i < n; i++) {
        int err_no = 0;
        kf_path_kind k = kf_classify_path(dirs[i], &err_no);
        if (k == KF_PATH_ERROR) {
            cli_error(dirs[i], "%s", kf_path_error_str(err_no));
            return EXIT_FAIL;
        }
        if (k != KF_PATH_PARTITION)
            return opt_usage_error("merge", "not a partition directory:", dirs[i], merge_usage);
    }
    char *name = clean_base(dirs[0]);
    for (int i = 1; i < n; i++) {
        char *other = clean_base(dirs[i]);
        if (strcmp(other, name))
            fprintf(stderr, "kfsck merge: note: '%s' and '%s' have different names; the output is named '%s'\n",
                    dirs[0], dirs[i], name);
        free(other);
    }
    char *target = path_join(outdir, name);
    char *json_path = path_join(outdir, "merge.json");
    int status = EXIT_CLEAN;
    for (int i = 0; i < n; i++) {
        if (kf_path_within(outdir, dirs[i]) || kf_path_within(target, dirs[i]) || kf_path_within(dirs[i], target)) {
            fprintf(stderr, "kfsck merge: the output directory '%s' is an input's directory, inside it, or would "
                            "put the merged copy there; choose another -o OUTDIR\n", outdir);
            status = EXIT_USAGE;
            goto out;
        }
    }
    struct stat st;
    if (!force) {
        kf_name_list l;
        const char *clash = NULL;
        if (lstat(json_path, &st) == 0)
            clash = json_path;
        else if (kf_list_dir(target, &l, NULL) == KF_OK) {
            if (l.n)
                clash = target;
            kf_name_list_free(&l);
        } else if (lstat(target, &st) == 0) {
            clash = target;
        }
        if (clash) {
            cli_error(clash, "already exists (use --force to overwrite)");
            status = EXIT_FAIL;
            goto out;
        }
    }
    int err_no = 0;
    if (kf_mkdirs(outdir, &err_no) != KF_OK) {
        cli_error(outdir, "cannot create the output directory: %s", strerror(err_no));
        status = EXIT_FAIL;
        goto out;
    }
    out o;
    out_init(&o, stdout, json);
    merge_cli m;
    memset(&m, 0, sizeof m);
    m.o = &o;
    m.json = json;
    m.labels = dirs;
    m.fc = mem_open(&m.bc, &m.lc);
    m.fh = mem_open(&m.bh, &m.lh);
    m.fs = mem_open(&m.bs, &m.ls);
    m.ff = mem_open(&m.bf, &m.lf);
    out_init(&m.jc, m.fc, true);
    out_init(&m.jh, m.fh, true);
    out_init(&m.js, m.fs, true);
    out_init(&m.jf, m.ff, true);
    kf_merge_opts mo;
    kf_merge_opts_init(&mo);
    mo.force = force;
    mo.max_batch_bytes = (size_t)max_batch;
    reader_tuning(&mo.threads, &mo.chunk_bytes);
    mo.conflict_fn = on_conflict;
    mo.hole_fn = on_hole;
    mo.segment_fn = on_segment;
    mo.file_fn = on_file;
    mo.problem_fn = on_problem;
    mo.ctx = &m;
    kf_merge_result res;
    int rc = kf_merge_partitions((const char *const *)dirs, (size_t)n, target, &mo, &res);
    fclose(m.fc);
    fclose(m.fh);
    fclose(m.fs);
    fclose(m.ff);
    if (rc != KF_OK) {
        fflush(stdout);
        cli_error(res.err_path, "%s: %s", res.err_what, strerror(res.err_no));
        status = EXIT_FAIL;
    } else {
        if (force) /* Kafka files of an earlier output that this run did not write */
            remove_stale(target, &m.written);
        char *doc = NULL;
        size_t doclen = 0;
        FILE *df = mem_open(&doc, &doclen);
        out jo;
        out_init(&jo, df, true);
        fputc('{', df);
        out_str(&jo, "command", "merge");
        out_arr_open(&jo, "inputs");
        for (int i = 0; i < n; i++)
            out_str(&jo, NULL, dirs[i]);
        out_arr_close(&jo);
        out_str(&jo, "output", target);
        out_uint(&jo, "batches", res.batches);
        out_key(&jo, "conflicts");
        fprintf(df, "[%s]", m.bc ? m.bc : "");
        out_key(&jo, "holes");
        fprintf(df, "[%s]", m.bh ? m.bh : "");
        out_key(&jo, "segments");
        fprintf(df, "[%s]", m.bs ? m.bs : "");
        out_key(&jo, "files");
        fprintf(df, "[%s]", m.bf ? m.bf : "");
        fputs("}\n", df);
        fclose(df);
        if (kf_out_write_file(outdir, "merge.json", doc, doclen, true, &err_no) != KF_OK) {
            fflush(stdout);
            cli_error(json_path, "cannot write: %s", strerror(err_no));
            status = EXIT_FAIL;
        } else {
            if (json) {
                out_begin(&o, "summary");
                out_str(&o, "output", target);
                out_str(&o, "report", json_path);
                out_uint(&o, "batches", res.batches);
                out_uint(&o, "segments_written", res.segments_written);
                out_uint(&o, "conflicts", res.conflicts);
                out_uint(&o, "holes", res.holes);
                out_end(&o);
            } else {
                out_text(&o, "%s: %llu batches in %llu segments, %llu conflicts, %llu holes; report in %s\n", target,
                         (unsigned long long)res.batches, (unsigned long long)res.segments_written,
                         (unsigned long long)res.conflicts, (unsigned long long)res.holes, json_path);
            }
            status = res.conflicts || res.holes ? EXIT_DAMAGE : EXIT_CLEAN;
        }
        free(doc);
    }
    fflush(stdout);
    free(m.bc);
    free(m.bh);
    free(m.bs);
    free(m.bf);
    name_set_free(&m.written);
out:
    free(name);
    free(target);
    free(json_path);
    return status;
}
