/* cmd_repair.c: `kfsck repair`: write a repaired copy of a segment or a
 * partition directory into OUTDIR (never the input's own directory), report
 * every dropped byte range on stdout and in OUTDIR/repair.json. The work is
 * done by kf_repair_* (src/jobs/repair.c); this file checks the paths, refuses
 * to overwrite without --force, and prints. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/outdir.h"
#include "cli/walk.h"
#include "kfsck/repair.h"

typedef struct rep_ctx {
    out *o;            /* stdout */
    bool json;
    out jd, js, jf;    /* repair.json arrays: dropped, segments, files */
    char *bd, *bs, *bf;
    size_t ld, ls, lf;
    FILE *fd, *fs, *ff;
    name_set written;
} rep_ctx;

static void drop_fields(out *o, const kf_repair_drop *d)
{
    out_str(o, "file", d->file);
    out_uint(o, "start", d->start);
    out_uint(o, "end", d->end);
    out_uint(o, "length", d->end - d->start);
    out_str(o, "reason", d->reason);
    if (d->has_first || d->has_last) {
        out_arr_open(o, "offsets");
        out_opt_int(o, NULL, d->has_first, d->first_offset);
        out_opt_int(o, NULL, d->has_last, d->last_offset);
        out_arr_close(o);
    } else {
        out_null(o, "offsets");
    }
    out_opt_int(o, "first_offset", d->has_first, d->first_offset);
    out_opt_int(o, "last_offset", d->has_last, d->last_offset);
    out_bool(o, "data_loss", d->data_loss);
    out_str(o, "message", d->message);
}

static void on_drop(void *ctx, const kf_repair_drop *d)
{
    rep_ctx *r = ctx;
    if (r->json) {
        out_begin(r->o, "dropped");
        drop_fields(r->o, d);
        out_end(r->o);
    } else {
        out_text(r->o, "dropped %s bytes %llu..%llu (%llu bytes): %s", d->file, (unsigned long long)d->start,
                 (unsigned long long)d->end, (unsigned long long)(d->end - d->start), d->reason);
        if (d->has_first && d->has_last)
            out_text(r->o, ", offsets %lld..%lld lost", (long long)d->first_offset, (long long)d->last_offset);
        else if (d->has_first)
            out_text(r->o, ", offsets from %lld lost", (long long)d->first_offset);
        out_text(r->o, "%s\n", d->data_loss ? "" : " (no data: zero fill)");
        if (d->message[0])
            out_text(r->o, "  %s\n", d->message);
    }
    out_obj_open(&r->jd, NULL);
    drop_fields(&r->jd, d);
    out_obj_close(&r->jd);
}

static void on_segment(void *ctx, const kf_repair_segment *s)
{
    rep_ctx *r = ctx;
    name_set_add_segment(&r->written, s->output);
    if (r->json) {
        out_begin(r->o, "segment");
        segment_fields(r->o, s, true);
        out_end(r->o);
    } else {
        out_text(r->o, "wrote %s: %llu of %llu bytes, %llu batches", s->output, (unsigned long long)s->size,
                 (unsigned long long)s->input_size, (unsigned long long)s->batches);
        if (s->has_offsets)
            out_text(r->o, ", offsets %lld..%lld", (long long)s->first_offset, (long long)s->last_offset);
        out_text(r->o, "; index %llu entries, time index %llu entries\n", (unsigned long long)s->index_entries,
                 (unsigned long long)s->time_entries);
    }
    out_obj_open(&r->js, NULL);
    segment_fields(&r->js, s, true);
    out_obj_close(&r->js);
}

static void on_file(void *ctx, const kf_repair_file *f)
{
    rep_ctx *r = ctx;
    name_set_add(&r->written, f->output);
    file_record(r->o, &r->jf, f);
}

static void repair_usage(FILE *f)
{
    fprintf(f, "usage: kfsck repair [--salvage] [--force] [--max-batch-bytes N] [--json] -o OUTDIR PATH\n\n"
               "PATH: a segment (.log) or a partition directory. Writes a repaired copy into OUTDIR\n"
               "(a partition to OUTDIR/<partition dir name>/, a segment to OUTDIR/<file name>) with\n"
               ".index/.timeindex rebuilt as broker recovery builds them, and OUTDIR/repair.json\n"
               "listing every dropped byte range.\n"
               "  default     keep what broker recovery keeps: cut the first damaged segment at\n"
               "              its valid_bytes and drop every later segment\n"
               "  --salvage   also keep the intact batches after the damage (offsets increasing)\n"
               "  --force     overwrite existing output files\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json      newline-delimited JSON on stdout (repair.json is written either way)\n"
               "Exit 0: nothing but zero fill dropped; 1: data was left out; 2: usage error\n"
               "(also OUTDIR equal to or inside the input's directory); 3: cannot read or write.\n");
}

static bool exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static bool dir_nonempty(const char *p)
{
    kf_name_list l;
    if (kf_list_dir(p, &l, NULL) != KF_OK)
        return exists(p);
    bool ne = l.n > 0;
    kf_name_list_free(&l);
    return ne;
}

int cmd_repair(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"salvage", no_argument, 0, 's'},
        {"force", no_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    bool json = false, salvage = false, force = false;
    const char *outdir = NULL;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 's': salvage = true; break;
        case 'f': force = true; break;
        case 'o': outdir = optarg; break;
        case 'B':
            if (opt_positive_size("repair", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': repair_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("repair", "unknown or incomplete option", argv[optind - 1], repair_usage);
        }
    }
    if (!outdir || !outdir[0])
        return opt_usage_error("repair", "no output directory given (-o OUTDIR)", NULL, repair_usage);
    if (optind >= argc)
        return opt_usage_error("repair", "no PATH given", NULL, repair_usage);
    if (argc - optind > 1)
        return opt_usage_error("repair", "give one PATH (a segment or a partition directory), not", argv[optind + 1],
                               repair_usage);
    const char *path = argv[optind];
    int err_no = 0;
    bool partition;
    switch (kf_classify_path(path, &err_no)) {
    case KF_PATH_ERROR: cli_error(path, "%s", kf_path_error_str(err_no)); return EXIT_FAIL;
    case KF_PATH_SPECIAL:
        cli_error(path, "not a regular file or directory (a FIFO, socket or device?)");
        return EXIT_FAIL;
    case KF_PATH_FILE: {
        kf_name_info ni = kf_classify_name(kf_path_base(path));
        if (ni.kind != KF_FILE_LOG && !kf_looks_like_log(path))
            return opt_usage_error("repair", "not a segment (.log) or a partition directory:", path, repair_usage);
        if (access(path, R_OK) != 0) {
            cli_error(path, "cannot read: %s", strerror(errno));
            return EXIT_FAIL;
        }
        partition = false;
        break;
    }
    case KF_PATH_PARTITION: partition = true; break;
    case KF_PATH_DATADIR:
        return opt_usage_error("repair", "a broker data directory: give one partition directory, not", path,
                               repair_usage);
    default:
        return opt_usage_error("repair", "not a segment (.log) or a partition directory:", path, repair_usage);
    }

    /* the input's directory: OUTDIR must be neither it nor inside it */
    char *in_dir = partition ? NULL : path_dir(path);
    const char *in_area = partition ? path : in_dir;
    char *name = clean_base(path);
    char *target = partition ? path_join(outdir, name) : NULL;
    int status = EXIT_CLEAN;
    if (kf_path_within(outdir, in_area) || (target && kf_path_within(target, in_area)) ||
        (target && kf_path_within(in_area, target))) {
        fprintf(stderr,
                "kfsck repair: the output directory '%s' is the input's directory, inside it, or would put the "
                "copy there; choose another -o OUTDIR\n",
                outdir);
        status = EXIT_USAGE;
        goto out;
    }

    /* existing output is not overwritten without --force */
    char *json_path = path_join(outdir, "repair.json");
    if (!force) {
        const char *clash = NULL;
        char *tmp = NULL;
        if (exists(json_path))
            clash = json_path;
        else if (partition && dir_nonempty(target))
            clash = target;
        else if (!partition) {
            static const char *exts[] = {".index", ".timeindex", ".txnindex"};
            tmp = path_join(outdir, name);
            if (exists(tmp))
                clash = tmp;
            kf_name_info ni = kf_classify_name(name);
            for (size_t i = 0; i < 3 && !clash && ni.base_offset >= 0; i++) {
                char nm[64];
                snprintf(nm, sizeof nm, "%020lld%s", (long long)ni.base_offset, exts[i]);
                free(tmp);
                tmp = path_join(outdir, nm);
                if (exists(tmp))
                    clash = tmp;
            }
        }
        if (clash) {
            cli_error(clash, "already exists (use --force to overwrite)");
            free(tmp);
            free(json_path);
            status = EXIT_FAIL;
            goto out;
        }
        free(tmp);
    }
    err_no = 0;
    if (kf_mkdirs(outdir, &err_no) != KF_OK) {
        cli_error(outdir, "cannot create the output directory: %s", strerror(err_no));
        free(json_path);
        status = EXIT_FAIL;
        goto out;
    }

    out o;
    out_init(&o, stdout, json);
    rep_ctx r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.json = json;
    r.fd = mem_open(&r.bd, &r.ld);
    r.fs = mem_open(&r.bs, &r.ls);
    r.ff = mem_open(&r.bf, &r.lf);
    out_init(&r.jd, r.fd, true);
    out_init(&r.js, r.fs, true);
    out_init(&r.jf, r.ff, true);
    kf_repair_opts ro;
    kf_repair_opts_init(&ro);
    ro.salvage = salvage;
    ro.force = force;
    ro.max_batch_bytes = (size_t)max_batch;
    reader_tuning(&ro.threads, &ro.chunk_bytes);
    ro.drop_fn = on_drop;
    ro.segment_fn = on_segment;
    ro.file_fn = on_file;
    ro.ctx = &r;
    kf_repair_result res;
    int rc = partition ? kf_repair_partition(path, target, &ro, &res) : kf_repair_segment_file(path, outdir, &ro, &res);
    fclose(r.fd);
    fclose(r.fs);
    fclose(r.ff);
    if (rc != KF_OK) {
        fflush(stdout);
        cli_error(res.err_path, "%s: %s", res.err_what, strerror(res.err_no));
        status = EXIT_FAIL;
    } else {
        /* --force over an earlier output: Kafka files this run did not write go */
        uint64_t stale = partition && force ? remove_stale(target, &r.written) : 0;
        bool loss = res.data_loss_ranges > 0;
        char *doc = NULL;
        size_t doclen = 0;
        FILE *df = mem_open(&doc, &doclen);
        out jo;
        out_init(&jo, df, true);
        fputc('{', df);
        out_str(&jo, "command", "repair");
        out_str(&jo, "mode", salvage ? "salvage" : "default");
        out_str(&jo, "input", path);
        out_str(&jo, "output", partition ? target : outdir);
        out_bool(&jo, "data_loss", loss);
        out_uint(&jo, "dropped_ranges", res.dropped_ranges);
        out_uint(&jo, "segments_written", res.segments_written);
        out_key(&jo, "dropped");
        fprintf(df, "[%s]", r.bd ? r.bd : "");
        out_key(&jo, "segments");
        fprintf(df, "[%s]", r.bs ? r.bs : "");
        out_key(&jo, "files");
        fprintf(df, "[%s]", r.bf ? r.bf : "");
        fputs("}\n", df);
        fclose(df);
        if (kf_out_write_file(outdir, "repair.json", doc, doclen, true, &err_no) != KF_OK) {
            fflush(stdout);
            cli_error(json_path, "cannot write: %s", strerror(err_no));
            status = EXIT_FAIL;
        } else {
            if (json) {
                out_begin(&o, "summary");
                out_str(&o, "mode", salvage ? "salvage" : "default");
                out_str(&o, "output", partition ? target : outdir);
                out_str(&o, "report", json_path);
                out_uint(&o, "segments_written", res.segments_written);
                out_uint(&o, "dropped_ranges", res.dropped_ranges);
                out_uint(&o, "data_loss_ranges", res.data_loss_ranges);
                out_uint(&o, "stale_files_removed", stale);
                out_bool(&o, "data_loss", loss);
                out_end(&o);
            } else {
                out_text(&o, "%s: %llu segments written, %llu ranges dropped (%llu with data)%s; report in %s\n",
                         partition ? target : outdir, (unsigned long long)res.segments_written,
                         (unsigned long long)res.dropped_ranges, (unsigned long long)res.data_loss_ranges,
                         stale ? ", stale files of an earlier output removed" : "", json_path);
            }
            status = loss ? EXIT_DAMAGE : EXIT_CLEAN;
        }
        free(doc);
    }
    fflush(stdout);
    free(r.bd);
    free(r.bs);
    free(r.bf);
    name_set_free(&r.written);
    free(json_path);
out:
    free(in_dir);
    free(name);
    free(target);
    return status;
}
