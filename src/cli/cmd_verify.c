/* cmd_verify.c: `kfsck verify`: every batch of every segment, each segment's
 * indexes against it, a partition's segments against each other, and the
 * partition's and data dir's small files; one problem line per finding and
 * one summary line per segment. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/verify_common.h"
#include "cli/walk.h"

static void verify_file(verify_ctx *v, const char *path)
{
    kf_name_info ni = kf_classify_name(path_base(path));
    if (ni.kind == KF_FILE_UNKNOWN && looks_like_log(path))
        ni.kind = KF_FILE_LOG; /* base offset unknown: -1 */
    seg_result res;
    switch (ni.kind) {
    case KF_FILE_LOG:
    case KF_FILE_KRAFT_CHECKPOINT:
        verify_segment(v, path, ni, &res);
        break;
    case KF_FILE_UNKNOWN:
        cli_error(path, "not a Kafka file kfsck knows (by its name); skipped");
        break;
    default:
        verify_aux(v, path, ni);
    }
}

static void verify_datadir(verify_ctx *v, const char *dir)
{
    name_list l;
    if (list_dir(dir, &l) != 0) {
        cli_error(dir, "cannot list directory");
        v->status = EXIT_FAIL;
        return;
    }
    for (size_t i = 0; i < l.n; i++) {
        char *p = path_join(dir, l.names[i]);
        path_kind k = classify_path(p);
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (k == PATH_FILE && (ni.kind == KF_FILE_META_PROPERTIES || ni.kind == KF_FILE_OFFSET_CHECKPOINT))
            verify_aux(v, p, ni);
        else if (k == PATH_PARTITION)
            verify_partition(v, p, NULL);
        free(p);
    }
    name_list_free(&l);
}

static void verify_usage(FILE *f)
{
    fprintf(f, "usage: kfsck verify [--max-batch-bytes N] [--json] PATH...\n\n"
               "PATH: a segment or other Kafka file, a partition dir, or a broker data dir.\n"
               "Reports each problem (code, byte position, offset) and one summary per segment,\n"
               "with valid_bytes: where a recovering broker would truncate the segment.\n"
               "Exit 0 when no error was found (warnings alone: 0), 1 otherwise.\n");
}

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    bool json = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'B':
            if (opt_positive_size("verify", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': verify_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("verify", "unknown or incomplete option", argv[optind - 1], verify_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("verify", "no PATH given", NULL, verify_usage);
    out o;
    out_init(&o, stdout, json);
    verify_ctx v;
    verify_ctx_init(&v, &o, max_batch);
    for (int i = optind; i < argc; i++) {
        const char *p = argv[i];
        switch (classify_path(p)) {
        case PATH_MISSING:
            cli_error(p, "no such file or directory");
            v.status = EXIT_FAIL;
            break;
        case PATH_FILE: verify_file(&v, p); break;
        case PATH_PARTITION: verify_partition(&v, p, NULL); break;
        case PATH_DATADIR: verify_datadir(&v, p); break;
        case PATH_OTHER_DIR:
            cli_error(p, "neither a partition directory nor a broker data directory");
            v.status = EXIT_FAIL;
            break;
        }
    }
    if (!json)
        out_text(&o, "%llu errors, %llu warnings\n", (unsigned long long)v.errors, (unsigned long long)v.warnings);
    fflush(stdout);
    if (v.status == EXIT_FAIL)
        return EXIT_FAIL;
    return v.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}
