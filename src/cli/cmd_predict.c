/* cmd_predict.c: `kfsck predict`: options, and the printing of what the
 * library forecasts a broker does when it starts on its log dirs
 * (include/kfsck/predict.h). Text reads like a plan: per log dir a verdict
 * first, then the actions grouped by partition; --json as the contract says
 * (action, partition, datadir and summary lines). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/predict_text.h"
#include "cli/walk.h"

/* The forecast's records (ctx: the text printer, whose out says whether
 * they go as JSON lines or as the plan's text). */
static void print_datadir(void *ctx, const kf_predict_datadir *d)
{
    predict_text *t = ctx;
    if (t->o->json)
        kf_predict_datadir_json(&t->o->w, d);
    else
        predict_text_datadir(t, d);
}

static void print_action(void *ctx, const kf_predict_action *a)
{
    predict_text *t = ctx;
    if (t->o->json)
        kf_predict_action_json(&t->o->w, a);
    else
        predict_text_action(t, a);
}

static void print_partition(void *ctx, const kf_predict_partition *p)
{
    predict_text *t = ctx;
    if (t->o->json)
        kf_predict_partition_json(&t->o->w, p);
    else
        predict_text_partition(t, p);
}

static void predict_usage(FILE *f)
{
    tprintf(f, "usage: kfsck predict [--assume-unclean] [--config server.properties]\n"
               "                     [--recovery-threads N] [--recovery-rate BYTES] [--now TIME]\n"
               "                     [--max-batch-bytes N] [--verbose] [--json] [DATADIR...]\n\n"
               "What a broker does when it starts on these log dirs now (Kafka 4.x's rules), nothing\n"
               "written: files deleted and renamed, segments recovered, cut and deleted, offsets lost,\n"
               "acknowledged offsets missing (below the high watermark, not in the log after start-up),\n"
               "damage it does not check and then serves, the consumer groups' commits a cut of\n"
               "__consumer_offsets changes, whether each log dir (and a KRaft node) starts at all, the\n"
               "producer-state rebuild, the first retention pass, and how long recovery takes.\n"
               "DATADIR: every entry of the broker's log.dirs (default: log.dirs of --config).\n"
               "  --assume-unclean      forecast as if .kafka_cleanshutdown were absent\n"
               "  --config FILE         the broker's server.properties (log.dirs, recovery threads,\n"
               "                        retention, cleanup policy)\n"
               "  --recovery-threads N  num.recovery.threads.per.data.dir (default: the config, else 2)\n"
               "  --recovery-rate BYTES bytes recovered per second per thread (default 64M)\n"
               "  --now TIME            epoch ms or ISO 8601, for retention (default: now)\n"
               "  --max-batch-bytes N   cap on one batch's decompressed size (default 128M)\n"
               "  --verbose             text: also list the routine work (segments recovered whole,\n"
               "                        retention deletes, producer-state rebuilds), counted otherwise\n"
               "  --json                newline-delimited JSON\n"
               "exit: 0 it starts, loses nothing and keeps no damage; 1 it loses offsets, acknowledged\n"
               "offsets are missing, it keeps damage, or a log dir (or the KRaft node) does not start;\n"
               "2 usage error; 3 a path or the config cannot be read.\n");
}

static int not_a_log_dir(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    tprintf(stderr, "kfsck predict: %s is %s, not a log dir (one entry of log.dirs)\n", e->path,
            e->kind == KF_PATH_FILE ? "a file" : "a partition directory");
    return KF_ERR_UNSUPPORTED;
}

int cmd_predict(int argc, char **argv)
{
    kf_predict_opts po;
    kf_predict_opts_init(&po);
    bool json = false, verbose = false;
    const char *config = NULL;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES, rate = 0;
    int64_t threads = 0;
    const opt_spec specs[] = {
        {.name = "--json", .kind = OPT_FLAG, .to = &json},
        {.name = "--verbose", .kind = OPT_FLAG, .to = &verbose},
        {.name = "--assume-unclean", .kind = OPT_FLAG, .to = &po.assume_unclean},
        {.name = "--config", .kind = OPT_STRING, .to = &config},
        {.name = "--recovery-threads", .kind = OPT_NUMBER, .to = &threads, .min = 1, .max = 1024,
         .refusal = "--recovery-threads needs a number from 1 to 1024, not"},
        {.name = "--recovery-rate", .kind = OPT_SIZE, .to = &rate},
        {.name = "--now", .kind = OPT_TIME, .to = &po.now_ms, .given = &po.has_now},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {0},
    };
    int st = opt_parse("predict", argc, argv, specs, predict_usage, NULL);
    if (st >= 0)
        return st;
    if (threads)
        po.recovery_threads = (uint32_t)threads;
    if (rate)
        po.recovery_rate = rate;
    kf_predict_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (config) {
        int rc = kf_predict_config_read(config, &cfg);
        if (rc == KF_ERR_NOMEM)
            cli_oom();
        if (rc == KF_ERR_IO) {
            cli_error(config, "%s", kf_read_error_str(rc, kf_error_last()->err_no));
            kf_predict_config_free(&cfg);
            return EXIT_FAIL;
        }
        if (rc != KF_OK) {
            cli_error(config, "%s", kf_error_last()->message);
            kf_predict_config_free(&cfg);
            return EXIT_FAIL;
        }
        po.config = &cfg;
    }
    char *const *args = argv + optind;
    size_t nargs = (size_t)(argc - optind);
    static char default_dir[] = "/tmp/kafka-logs"; /* Kafka's log.dir default */
    static char *default_dirs[] = {default_dir};
    if (!nargs && config) {
        args = cfg.n_log_dirs ? cfg.log_dirs : default_dirs;
        nargs = cfg.n_log_dirs ? cfg.n_log_dirs : 1;
    }
    if (!nargs) {
        kf_predict_config_free(&cfg);
        return opt_usage_error("predict", "no DATADIR given (nor --config with log.dirs)", NULL, predict_usage);
    }
    cli_dirs found = {NULL, 0};
    uint64_t path_errors = 0;
    kf_paths_walk_opts wo;
    cli_walk_opts_init(&wo, &found);
    wo.file_fn = not_a_log_dir;
    wo.partition_fn = not_a_log_dir;
    wo.datadir_fn = cli_add_dir;
    wo.other_dir_fn = cli_add_dir; /* a log dir holding only lost+found is one too */
    wo.empty_dir_is_datadir = true;
    wo.mixed_clusters = true; /* log dirs that disagree stop the broker: a fatal action, not a refusal */
    wo.error_fn = cli_count_path_error;
    wo.error_ctx = &path_errors;
    int rc = kf_paths_walk(args, nargs, &wo);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (rc == KF_ERR_UNSUPPORTED) {
        free(found.paths);
        kf_predict_config_free(&cfg);
        return EXIT_USAGE;
    }
    int status = rc == KF_OK ? EXIT_CLEAN : EXIT_FAIL;

    out o;
    out_init(&o, stdout, json);
    predict_text text;
    memset(&text, 0, sizeof text);
    text.o = &o;
    text.verbose = verbose;
    po.max_batch_bytes = (size_t)max_batch;
    po.datadir_fn = print_datadir;
    po.action_fn = print_action;
    po.partition_fn = print_partition;
    po.ctx = &text;
    kf_predict_summary sum;
    if (found.n) {
        rc = kf_predict_run(found.paths, found.n, &po, &sum);
        if (rc == KF_ERR_NOMEM)
            cli_oom();
        if (rc != KF_OK) {
            cli_error(found.paths[0], "%s", kf_err_str(rc));
            status = EXIT_FAIL;
        }
    } else {
        memset(&sum, 0, sizeof sum);
    }
    if (json) {
        kf_predict_summary_json(&o.w, &sum);
    } else {
        predict_text_summary(&text, &sum);
    }
    free(found.paths);
    kf_predict_config_free(&cfg);
    /* every harm counts: offsets lost or missing, damage kept, commits changed */
    if (status == EXIT_CLEAN && (sum.fatal || sum.offsets_lost || sum.partitions_harmed))
        status = EXIT_DAMAGE;
    return status;
}
