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
#include "cli/walk.h"

typedef struct predict_print {
    out *o;
    char cur_part[4096];    /* text: the partition dir whose actions are being listed */
    uint64_t quiet;         /* text: partitions of the log dir with nothing to say */
    const kf_predict_datadir *dir;
} predict_print;

static void seconds_text(double s, char *buf, size_t n)
{
    if (s < 1)
        snprintf(buf, n, "under a second");
    else if (s < 120)
        snprintf(buf, n, "about %.0f s", s);
    else if (s < 7200)
        snprintf(buf, n, "about %.0f min", s / 60);
    else
        snprintf(buf, n, "about %.1f h", s / 3600);
}

/* text: the log dir's partitions with nothing to say, counted */
static void flush_quiet(predict_print *pp)
{
    if (pp->quiet)
        out_text(pp->o, "  %" PRIu64 " other partition%s load%s as %s are\n", pp->quiet, pp->quiet == 1 ? "" : "s",
                 pp->quiet == 1 ? "s" : "", pp->quiet == 1 ? "it" : "they");
    pp->quiet = 0;
}

/* A message of the broker's for one line of text: Kafka's own messages
 * hold newlines ("... (if marked for deletion).\nKafka's log
 * directories ..."); JSON keeps them as they are. Freed by the caller. */
static char *one_line(const char *s)
{
    char *t = must(strdup(s ? s : ""));
    for (char *c = t; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return t;
}

static void print_datadir(void *ctx, const kf_predict_datadir *d)
{
    predict_print *pp = ctx;
    out *o = pp->o;
    if (!o->json)
        flush_quiet(pp);
    pp->dir = d;
    pp->cur_part[0] = 0;
    if (o->json) {
        out_begin(o, "datadir");
        out_str(o, "datadir", d->datadir);
        out_bool(o, "clean_shutdown", d->clean_shutdown);
        out_opt_int(o, "broker_epoch", d->has_broker_epoch, d->broker_epoch);
        out_uint(o, "partitions", d->partitions);
        out_uint(o, "partitions_to_recover", d->partitions_to_recover);
        out_uint(o, "bytes_to_recover", d->bytes_to_recover);
        out_uint(o, "recovery_threads", d->recovery_threads);
        out_uint(o, "recovery_rate", d->recovery_rate);
        out_double(o, "estimated_recovery_seconds", d->estimated_recovery_seconds);
        out_uint(o, "fatal", d->fatal);
        out_end(o);
        return;
    }
    char size[32], when[32];
    fmt_bytes(d->bytes_to_recover, size, sizeof size);
    seconds_text(d->estimated_recovery_seconds, when, sizeof when);
    if (d->stops_broker || d->offline) {
        char *why = one_line(d->first_fatal);
        out_text(o, d->stops_broker ? "%s: will NOT load (the broker stops): %s\n"
                                    : "%s: will NOT load (goes offline; the broker stops if it has no other log dir): %s\n",
                 d->datadir, why);
        free(why);
    } else {
        out_text(o, "%s: will start; ", d->datadir);
        if (d->partitions_to_recover)
            out_text(o, "recovers %" PRIu64 " partition%s, %s, %s on %" PRIu32 " thread%s", d->partitions_to_recover,
                     d->partitions_to_recover == 1 ? "" : "s", size, when, d->recovery_threads,
                     d->recovery_threads == 1 ? "" : "s");
        else
            out_text(o, "recovers nothing");
        if (d->offsets_lost)
            out_text(o, "; LOSES %" PRId64 " offsets (%" PRId64 " acknowledged)\n", d->offsets_lost,
                     d->acknowledged_lost);
        else
            out_text(o, "; loses nothing\n");
    }
    if (d->marker_present && d->has_broker_epoch)
        out_text(o, "  shut down cleanly (broker epoch %" PRId64 ")%s\n", d->broker_epoch,
                 d->clean_shutdown ? "" : "; --assume-unclean: forecast as after a crash");
    else if (d->marker_present)
        out_text(o, "  shut down cleanly%s\n", d->clean_shutdown ? "" : "; --assume-unclean: forecast as after a crash");
    else
        out_text(o, "  unclean shutdown (no .kafka_cleanshutdown): every partition recovered from its recovery point\n");
    if (d->retention_segments) {
        fmt_bytes(d->retention_bytes, size, sizeof size);
        out_text(o, "  the first retention pass deletes %" PRIu64 " segment%s (%s)\n", d->retention_segments,
                 d->retention_segments == 1 ? "" : "s", size);
    }
}

static const char *short_file(const char *file, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    return n && !strncmp(file, dir, n) && file[n] == '/' ? file + n + 1 : file;
}

static void part_header(predict_print *pp, const char *topic, int32_t partition, const char *dir)
{
    if (!strcmp(pp->cur_part, dir))
        return;
    snprintf(pp->cur_part, sizeof pp->cur_part, "%s", dir);
    char name[300];
    snprintf(name, sizeof name, "%s-%" PRId32, topic, partition);
    if (strcmp(name, kf_path_base(dir)))
        out_text(pp->o, "  %s (%s):\n", name, kf_path_base(dir));
    else
        out_text(pp->o, "  %s:\n", name);
}

static void print_action(void *ctx, const kf_predict_action *a)
{
    predict_print *pp = ctx;
    out *o = pp->o;
    if (o->json) {
        out_begin(o, "action");
        out_str(o, "datadir", a->datadir);
        out_str(o, "topic", a->topic);
        if (a->topic)
            out_int(o, "partition", a->partition);
        else
            out_null(o, "partition");
        out_str(o, "action", kf_predict_action_name(a->action));
        out_str(o, "file", a->file);
        out_str(o, "reason", a->reason);
        out_uint(o, "bytes", a->bytes);
        if (a->action == KF_ACT_TRUNCATE_SEGMENT) {
            out_uint(o, "position", a->position);
            out_int(o, "offset", a->offset);
            out_int(o, "offsets_lost", a->offsets_lost);
        }
        out_end(o);
        return;
    }
    char size[32];
    fmt_bytes(a->bytes, size, sizeof size);
    if (a->topic)
        part_header(pp, a->topic, a->partition, a->dir);
    const char *name = a->topic ? kf_path_base(a->file) : a->file;
    char *why = one_line(a->reason);
    switch (a->action) {
    case KF_ACT_TRUNCATE_SEGMENT:
        out_text(o, "    cut %s at byte %" PRIu64 " (%s dropped): log end %" PRId64 ", %" PRId64 " offsets lost\n",
                 name, a->position, size, a->offset, a->offsets_lost);
        out_text(o, "      %s\n", why);
        break;
    case KF_ACT_FATAL: out_text(o, "    FATAL %s: %s\n", short_file(a->file, pp->dir->datadir), why); break;
    default:
        out_text(o, "    %s %s (%s): %s\n", kf_predict_action_name(a->action), name, size, why);
    }
    free(why);
}

static void print_partition(void *ctx, const kf_predict_partition *p)
{
    predict_print *pp = ctx;
    out *o = pp->o;
    if (o->json) {
        out_begin(o, "partition");
        out_str(o, "datadir", p->datadir);
        out_str(o, "topic", p->topic);
        out_int(o, "partition", p->partition);
        out_str(o, "dir", p->dir);
        out_str(o, "state", kf_predict_state_name(p->state));
        out_int(o, "recovery_point", p->recovery_point);
        out_int(o, "log_start_offset", p->log_start_offset);
        out_int(o, "log_end_offset_before", p->log_end_offset_before);
        out_int(o, "log_end_offset_after", p->log_end_offset_after);
        out_opt_int(o, "high_watermark", p->has_high_watermark, p->high_watermark);
        out_int(o, "offsets_lost", p->offsets_lost);
        out_int(o, "acknowledged_lost", p->acknowledged_lost);
        out_uint(o, "segments_to_recover", p->segments_to_recover);
        out_uint(o, "bytes_to_recover", p->bytes_to_recover);
        out_str(o, "producer_state", kf_producer_load_name(p->producer_state));
        out_opt_int(o, "producer_snapshot_offset", p->has_producer_snapshot_offset, p->producer_snapshot_offset);
        out_arr_open(o, "retention_deletes");
        for (size_t i = 0; i < p->n_retention_deletes; i++) {
            const kf_retention_delete *r = &p->retention_deletes[i];
            out_obj_open(o, NULL);
            out_str(o, "file", r->file);
            out_int(o, "base_offset", r->base_offset);
            out_str(o, "reason", kf_retention_reason_name(r->reason));
            out_uint(o, "bytes", r->bytes);
            out_obj_close(o);
        }
        out_arr_close(o);
        out_uint(o, "future_timestamps", p->future_timestamps);
        out_str(o, "retention_source", p->retention_source);
        out_end(o);
        return;
    }
    bool listed = !strcmp(pp->cur_part, p->dir);
    bool notable = listed || p->offsets_lost || p->n_retention_deletes || p->future_timestamps ||
                   p->state != KF_PST_ONLINE || p->producer_state == KF_PRODUCER_REBUILD_FROM_START;
    if (!notable) {
        pp->quiet++;
        return;
    }
    part_header(pp, p->topic, p->partition, p->dir);
    char ps[96] = "";
    if (p->producer_state == KF_PRODUCER_REBUILD_FROM_SNAPSHOT)
        snprintf(ps, sizeof ps, "rebuilt from the snapshot at %" PRId64, p->producer_snapshot_offset);
    else if (p->producer_state == KF_PRODUCER_REBUILD_FROM_START)
        snprintf(ps, sizeof ps, "rebuilt by reading the whole log (no usable snapshot)");
    else if (p->producer_state == KF_PRODUCER_SNAPSHOT)
        snprintf(ps, sizeof ps, "loaded from the snapshot at the log end");
    else
        snprintf(ps, sizeof ps, "empty (none to load)");
    out_text(o, "    %s; log end %" PRId64 " -> %" PRId64 ", log start %" PRId64 "; producer state %s\n",
             kf_predict_state_name(p->state), p->log_end_offset_before, p->log_end_offset_after, p->log_start_offset,
             ps);
    if (p->offsets_lost)
        out_text(o, "    LOSES %" PRId64 " offsets, %" PRId64 " of them below the high watermark (acknowledged)\n",
                 p->offsets_lost, p->acknowledged_lost);
    for (size_t i = 0; i < p->n_retention_deletes; i++) {
        const kf_retention_delete *r = &p->retention_deletes[i];
        char size[32];
        fmt_bytes(r->bytes, size, sizeof size);
        out_text(o, "    retention deletes %s (%s, %s)\n", kf_path_base(r->file), size,
                 kf_retention_reason_name(r->reason));
    }
    if (p->future_timestamps)
        out_text(o, "    %" PRIu64 " segment%s with timestamps in the future hold%s back time retention\n",
                 p->future_timestamps, p->future_timestamps == 1 ? "" : "s", p->future_timestamps == 1 ? "s" : "");
    pp->cur_part[0] = 0;
}

static void predict_usage(FILE *f)
{
    fprintf(f, "usage: kfsck predict [--assume-unclean] [--config server.properties]\n"
               "                     [--recovery-threads N] [--recovery-rate BYTES] [--now TIME]\n"
               "                     [--max-batch-bytes N] [--json] [DATADIR...]\n\n"
               "What a broker does when it starts on these log dirs now (Kafka 4.x's rules), nothing\n"
               "written: files deleted and renamed, segments recovered, cut and deleted, offsets lost\n"
               "(and those already acknowledged), whether each log dir loads, the producer-state\n"
               "rebuild, the first retention pass, and how long recovery takes.\n"
               "DATADIR: every entry of the broker's log.dirs (default: log.dirs of --config).\n"
               "  --assume-unclean      forecast as if .kafka_cleanshutdown were absent\n"
               "  --config FILE         the broker's server.properties (log.dirs, recovery threads,\n"
               "                        retention, cleanup policy)\n"
               "  --recovery-threads N  num.recovery.threads.per.data.dir (default: the config, else 2)\n"
               "  --recovery-rate BYTES bytes recovered per second per thread (default 64M)\n"
               "  --now TIME            epoch ms or ISO 8601, for retention (default: now)\n"
               "  --max-batch-bytes N   cap on one batch's decompressed size (default 128M)\n"
               "  --json                newline-delimited JSON\n"
               "exit: 0 it starts and loses nothing; 1 it loses offsets or a log dir does not load;\n"
               "2 usage error; 3 a path or the config cannot be read.\n");
}

static int not_a_log_dir(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    fprintf(stderr, "kfsck predict: %s is %s, not a log dir (one entry of log.dirs)\n", e->path,
            e->kind == KF_PATH_FILE ? "a file" : "a partition directory");
    return KF_ERR_UNSUPPORTED;
}

int cmd_predict(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'J'},
        {"assume-unclean", no_argument, 0, 'U'},
        {"config", required_argument, 0, 'c'},
        {"recovery-threads", required_argument, 0, 't'},
        {"recovery-rate", required_argument, 0, 'r'},
        {"now", required_argument, 0, 'n'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    kf_predict_opts po;
    kf_predict_opts_init(&po);
    bool json = false;
    const char *config = NULL;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES, rate = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'J': json = true; break;
        case 'U': po.assume_unclean = true; break;
        case 'c': config = optarg; break;
        case 't': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || v < 1 || v > 1024)
                return opt_usage_error("predict", "--recovery-threads needs a number from 1 to 1024, not", optarg,
                                       predict_usage);
            po.recovery_threads = (uint32_t)v;
            break;
        }
        case 'r':
            if (opt_positive_size("predict", "--recovery-rate", optarg, &rate))
                return EXIT_USAGE;
            po.recovery_rate = rate;
            break;
        case 'n':
            if (opt_time("predict", "--now", optarg, &po.now_ms, predict_usage))
                return EXIT_USAGE;
            po.has_now = true;
            break;
        case 'B':
            if (opt_positive_size("predict", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': predict_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("predict", "unknown or incomplete option", argv[optind - 1], predict_usage);
        }
    }
    kf_predict_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (config) {
        char msg[512];
        int rc = kf_predict_config_read(config, &cfg, msg, sizeof msg);
        if (rc == KF_ERR_NOMEM)
            cli_oom();
        if (rc == KF_ERR_IO || rc == KF_ERR_TOO_BIG) {
            cli_error(config, "%s", kf_read_error_str(rc, kf_error_last()->err_no));
            kf_predict_config_free(&cfg);
            return EXIT_FAIL;
        }
        if (rc != KF_OK) {
            cli_error(config, "%s", msg);
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
    predict_print pp;
    memset(&pp, 0, sizeof pp);
    pp.o = &o;
    po.max_batch_bytes = (size_t)max_batch;
    po.datadir_fn = print_datadir;
    po.action_fn = print_action;
    po.partition_fn = print_partition;
    po.ctx = &pp;
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
        out_begin(&o, "summary");
        out_uint(&o, "datadirs", sum.datadirs);
        out_uint(&o, "partitions", sum.partitions);
        out_int(&o, "offsets_lost", sum.offsets_lost);
        out_int(&o, "acknowledged_lost", sum.acknowledged_lost);
        out_double(&o, "estimated_recovery_seconds", sum.estimated_recovery_seconds);
        out_uint(&o, "fatal", sum.fatal);
        out_end(&o);
    } else {
        flush_quiet(&pp);
        char when[32];
        seconds_text(sum.estimated_recovery_seconds, when, sizeof when);
        out_text(&o, "%" PRIu64 " log dir%s, %" PRIu64 " partition%s: recovery %s (log dirs in parallel); ",
                 sum.datadirs, sum.datadirs == 1 ? "" : "s", sum.partitions, sum.partitions == 1 ? "" : "s", when);
        if (sum.fatal)
            out_text(&o, "%" PRIu64 " fatal; ", sum.fatal);
        if (sum.offsets_lost)
            out_text(&o, "LOSES %" PRId64 " offsets (%" PRId64 " acknowledged)\n", sum.offsets_lost,
                     sum.acknowledged_lost);
        else
            out_text(&o, "loses nothing\n");
    }
    free(found.paths);
    kf_predict_config_free(&cfg);
    if (status == EXIT_CLEAN && (sum.fatal || sum.offsets_lost))
        status = EXIT_DAMAGE;
    return status;
}
