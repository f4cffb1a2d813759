/* predict_text.c: the text of `kfsck predict` (predict_text.h). The
 * library hands a log dir's line first (with the partitions whose forecast
 * is not clean), then each partition's actions and the partition; the
 * verdict is written from the first, the rest as it comes. */
#include "cli/predict_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

/* partitions named in a verdict line, damage places and group changes
 * listed under a partition, unless --verbose */
#define VERDICT_PARTITIONS 3
#define LISTED_MAX 5

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

static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

/* text: the log dir's partitions with nothing to say, counted */
static void flush_quiet(predict_text *t)
{
    if (t->quiet)
        out_text(t->o, "  %" PRIu64 " other partition%s load%s as %s are\n", t->quiet, plural((int64_t)t->quiet),
                 t->quiet == 1 ? "s" : "", t->quiet == 1 ? "it" : "they");
    t->quiet = 0;
}

/* A message of the broker's for one line of text: Kafka's own messages
 * hold newlines ("... (if marked for deletion).\nKafka's log
 * directories ..."); JSON keeps them as they are. Freed by the caller. */
static char *one_line(const char *s)
{
    char *r = must(strdup(s ? s : ""));
    for (char *c = r; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return r;
}

/* The distinct groups of a partition's changed commits. */
static size_t distinct_groups(const kf_predict_partition *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_groups_affected; i++) {
        size_t k = 0;
        while (k < i && strcmp(p->groups_affected[k].group, p->groups_affected[i].group))
            k++;
        n += k == i;
    }
    return n;
}

static bool loses(const kf_predict_partition *p)
{
    return p->offsets_lost || p->offsets_lost_inside || p->acknowledged_missing || p->n_groups_affected ||
           p->state == KF_PST_MISSING;
}

/* What is wrong with a partition, worst first, on one line. */
static void facts(out *o, const kf_predict_partition *p)
{
    const char *sep = "";
    if (p->state == KF_PST_MISSING) {
        out_text(o, "not loaded: %s", p->missing_why);
        sep = ", ";
    }
    if (p->acknowledged_missing) {
        out_text(o, "%" PRId64 " acknowledged offset%s missing (%" PRId64 "..%" PRId64 ")", p->acknowledged_missing,
                 plural(p->acknowledged_missing), p->log_end_offset_after,
                 p->log_end_offset_after + p->acknowledged_missing - 1);
        sep = ", ";
    }
    if (p->offsets_lost) {
        out_text(o, "%sstart-up cuts %" PRId64 " offset%s (%" PRId64 "..%" PRId64 ")", sep, p->offsets_lost,
                 plural(p->offsets_lost), p->log_end_offset_after, p->log_end_offset_before - 1);
        sep = ", ";
    }
    if (p->offsets_lost_inside) {
        out_text(o, "%scuts %" PRId64 " offset%s inside the log", sep, p->offsets_lost_inside,
                 plural(p->offsets_lost_inside));
        sep = ", ";
    }
    if (p->n_groups_affected) {
        size_t g = distinct_groups(p);
        out_text(o, "%schanges %zu commit%s of %zu group%s (%s%s)", sep, p->n_groups_affected,
                 plural((int64_t)p->n_groups_affected), g, plural((int64_t)g), p->groups_affected[0].group,
                 g > 1 ? ", ..." : "");
        sep = ", ";
    }
    uint64_t kept = p->n_damage_kept + p->damage_kept_omitted;
    if (kept)
        out_text(o, "%skeeps damage it serves (%" PRIu64 " place%s)", sep, kept, plural((int64_t)kept));
}

static void verdict(predict_text *t, const kf_predict_datadir *d)
{
    out *o = t->o;
    bool any_loss = false;
    for (size_t i = 0; i < d->n_harmed; i++)
        any_loss |= loses(d->harmed[i]);
    out_text(o, "%s: will start, but %s: ", d->datadir, any_loss ? "LOSES DATA" : "KEEPS DAMAGE");
    for (size_t i = 0; i < d->n_harmed && i < VERDICT_PARTITIONS; i++) {
        const kf_predict_partition *p = d->harmed[i];
        out_text(o, "%s%s-%" PRId32 " (", i ? "; " : "", p->id.topic, p->id.partition);
        facts(o, p);
        out_text(o, ")");
    }
    if (d->n_harmed > VERDICT_PARTITIONS)
        out_text(o, "; and %zu more partition%s", d->n_harmed - VERDICT_PARTITIONS,
                 plural((int64_t)(d->n_harmed - VERDICT_PARTITIONS)));
    out_text(o, "; ");
}

void predict_text_datadir(predict_text *t, const kf_predict_datadir *d)
{
    out *o = t->o;
    flush_quiet(t);
    t->dir = d;
    t->cur_part[0] = 0;
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
        if (d->n_harmed)
            verdict(t, d);
        else
            out_text(o, "%s: will start; ", d->datadir);
        if (d->partitions_to_recover)
            out_text(o, "recovers %" PRIu64 " partition%s, %s, %s on %" PRIu32 " thread%s", d->partitions_to_recover,
                     plural((int64_t)d->partitions_to_recover), size, when, d->recovery_threads,
                     plural(d->recovery_threads));
        else
            out_text(o, "recovers nothing");
        out_text(o, d->n_harmed ? "\n" : "; loses nothing\n");
    }
    if (d->marker_present && d->has_broker_epoch)
        out_text(o, "  shut down cleanly (broker epoch %" PRId64 ")%s\n", d->broker_epoch,
                 d->clean_shutdown ? "" : "; --assume-unclean: forecast as after a crash");
    else if (d->marker_present)
        out_text(o, "  shut down cleanly%s\n", d->clean_shutdown ? "" : "; --assume-unclean: forecast as after a crash");
    else
        out_text(o, "  unclean shutdown (no .kafka_cleanshutdown): every partition recovered from its recovery point\n");
    if (d->kraft_snapshot_cut)
        out_text(o, "  the latest KRaft snapshot %s is cut short: the node loads the part that is there as its "
                    "metadata image (topics and configs past the cut are missing until the log supplies them)\n",
                 d->kraft_snapshot_cut);
    if (d->retention_segments) {
        fmt_bytes(d->retention_bytes, size, sizeof size);
        out_text(o, "  the first retention pass deletes %" PRIu64 " segment%s (%s)%s\n", d->retention_segments,
                 plural((int64_t)d->retention_segments), size, t->verbose ? "" : " (--verbose lists them)");
    }
    if (!t->verbose && (d->routine_recoveries || d->producer_rebuilds_from_start)) {
        out_text(o, "  routine:");
        if (d->routine_recoveries)
            out_text(o, " recovers %" PRIu64 " segment%s and keeps %s whole%s", d->routine_recoveries,
                     plural((int64_t)d->routine_recoveries), d->routine_recoveries == 1 ? "it" : "them",
                     d->producer_rebuilds_from_start ? ";" : "");
        if (d->producer_rebuilds_from_start)
            out_text(o, " rebuilds the producer state of %" PRIu64 " partition%s by reading the whole log",
                     d->producer_rebuilds_from_start, plural((int64_t)d->producer_rebuilds_from_start));
        out_text(o, " (--verbose lists them)\n");
    }
}

static const char *short_file(const char *file, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    return n && !strncmp(file, dir, n) && file[n] == '/' ? file + n + 1 : file;
}

static void part_header(predict_text *t, const char *topic, int32_t partition, const char *dir)
{
    if (!strcmp(t->cur_part, dir))
        return;
    snprintf(t->cur_part, sizeof t->cur_part, "%s", dir);
    char name[300];
    snprintf(name, sizeof name, "%s-%" PRId32, topic, partition);
    if (strcmp(name, kf_path_base(dir)))
        out_text(t->o, "  %s (%s):\n", name, kf_path_base(dir));
    else
        out_text(t->o, "  %s:\n", name);
}

void predict_text_action(predict_text *t, const kf_predict_action *a)
{
    out *o = t->o;
    if (a->routine && !t->verbose)
        return;
    char size[32];
    fmt_bytes(a->bytes, size, sizeof size);
    if (a->id.topic)
        part_header(t, a->id.topic, a->id.partition, a->id.dir);
    const char *name = a->id.topic ? kf_path_base(a->file) : a->file;
    char *why = one_line(a->reason);
    switch (a->action) {
    case KF_ACT_TRUNCATE_SEGMENT:
        out_text(o, "    cut %s at byte %" PRIu64 " (%s dropped): log end %" PRId64 ", %" PRId64 " offsets lost\n",
                 name, a->position, size, a->offset, a->offsets_lost);
        out_text(o, "      %s\n", why);
        break;
    case KF_ACT_FATAL: out_text(o, "    FATAL %s: %s\n", short_file(a->file, t->dir->datadir), why); break;
    default:
        out_text(o, "    %s %s (%s): %s\n", kf_predict_action_name(a->action), name, size, why);
    }
    free(why);
}

/* What a partition's forecast says beyond its actions: the losses, the
 * damage kept, the groups' commits. */
static void harm_lines(predict_text *t, const kf_predict_partition *p)
{
    out *o = t->o;
    if (p->acknowledged_missing)
        out_text(o, "    %" PRId64 " ACKNOWLEDGED offset%s MISSING (%" PRId64 "..%" PRId64 "): the high watermark is %" PRId64
                    " and the log ends at %" PRId64 " after start-up\n",
                 p->acknowledged_missing, plural(p->acknowledged_missing), p->log_end_offset_after,
                 p->high_watermark - 1, p->high_watermark, p->log_end_offset_after);
    if (p->offsets_lost)
        out_text(o, "    LOSES %" PRId64 " offsets, %" PRId64 " of them below the high watermark (acknowledged)\n",
                 p->offsets_lost, p->acknowledged_lost);
    if (p->offsets_lost_inside)
        out_text(o, "    LOSES %" PRId64 " offset%s inside the log (a segment recovered and cut while later ones "
                    "stay: a gap)\n",
                 p->offsets_lost_inside, plural(p->offsets_lost_inside));
    size_t nk = p->n_damage_kept;
    if (nk || p->damage_kept_omitted)
        out_text(o, "    KEEPS DAMAGE it does not check while loading and then serves (a consumer or follower "
                    "fetching there fails):\n");
    for (size_t i = 0; i < nk && (t->verbose || i < LISTED_MAX); i++) {
        const kf_damage_kept *k = &p->damage_kept[i];
        char *why = one_line(k->error);
        out_text(o, "      %s byte %" PRIu64 ", offset %" PRId64 ": %s\n", kf_path_base(k->file), k->position,
                 k->offset, why);
        free(why);
    }
    uint64_t more = p->damage_kept_omitted + (t->verbose || nk <= LISTED_MAX ? 0 : nk - LISTED_MAX);
    if (more)
        out_text(o, "      and %" PRIu64 " more place%s\n", more, plural((int64_t)more));
    size_t ng = p->n_groups_affected;
    if (ng)
        out_text(o, "    the group coordinator then loads %zu committed offset%s differently from the intact data "
                    "now:\n",
                 ng, plural((int64_t)ng));
    for (size_t i = 0; i < ng && (t->verbose || i < LISTED_MAX); i++) {
        const kf_group_affected *g = &p->groups_affected[i];
        out_text(o, "      group %s, %s-%" PRId32 ": ", g->group, g->topic, g->partition);
        if (g->has_offset_now && g->has_offset_after)
            out_text(o, "committed %" PRId64 " now, %" PRId64 " after start-up\n", g->offset_now, g->offset_after);
        else if (g->has_offset_now)
            out_text(o, "committed %" PRId64 " now, no commit after start-up (the group starts by auto.offset.reset)\n",
                     g->offset_now);
        else
            out_text(o, "no commit now (deleted), %" PRId64 " again after start-up\n", g->offset_after);
    }
    if (!t->verbose && ng > LISTED_MAX)
        out_text(o, "      and %zu more (--verbose lists them)\n", ng - LISTED_MAX);
}

/* Time retention applies to the partition (its policy deletes, with a limit). */
static bool time_retention(const kf_predict_partition *p)
{
    return p->retention_ms >= 0 && p->cleanup_policy && strstr(p->cleanup_policy, "delete");
}

void predict_text_partition(predict_text *t, const kf_predict_partition *p)
{
    out *o = t->o;
    bool listed = !strcmp(t->cur_part, p->id.dir), harmed = kf_predict_partition_harmed(p);
    bool future = p->future_timestamps && time_retention(p);
    bool notable = listed || harmed || future || p->state != KF_PST_ONLINE ||
                   (t->verbose && (p->n_retention_deletes || p->producer_state == KF_PRODUCER_REBUILD_FROM_START));
    if (!notable) {
        t->quiet++;
        return;
    }
    part_header(t, p->id.topic, p->id.partition, p->id.dir);
    char ps[96] = "";
    if (p->producer_state == KF_PRODUCER_REBUILD_FROM_SNAPSHOT)
        snprintf(ps, sizeof ps, "rebuilt from the snapshot at %" PRId64, p->producer_snapshot_offset);
    else if (p->producer_state == KF_PRODUCER_REBUILD_FROM_START)
        snprintf(ps, sizeof ps, "rebuilt by reading the whole log (no usable snapshot)");
    else if (p->producer_state == KF_PRODUCER_SNAPSHOT)
        snprintf(ps, sizeof ps, "loaded from the snapshot at the log end");
    else
        snprintf(ps, sizeof ps, "empty (none to load)");
    if (p->state == KF_PST_MISSING) {
        out_text(o, "    missing: %s; the broker loads only directories, so it holds no copy of %s-%" PRId32 "\n",
                 p->missing_why, p->id.topic, p->id.partition);
        return;
    }
    out_text(o, "    %s; log end %" PRId64 " -> %" PRId64 ", log start %" PRId64 "; producer state %s\n",
             kf_predict_state_name(p->state), p->log_end_offset_before, p->log_end_offset_after, p->log_start_offset,
             ps);
    harm_lines(t, p);
    for (size_t i = 0; t->verbose && i < p->n_retention_deletes; i++) {
        const kf_retention_delete *r = &p->retention_deletes[i];
        char size[32];
        fmt_bytes(r->bytes, size, sizeof size);
        out_text(o, "    retention deletes %s (%s, %s)\n", kf_path_base(r->file), size,
                 kf_retention_reason_name(r->reason));
    }
    if (future)
        out_text(o, "    %" PRIu64 " segment%s with timestamps in the future hold%s back time retention\n",
                 p->future_timestamps, plural((int64_t)p->future_timestamps), p->future_timestamps == 1 ? "s" : "");
    t->cur_part[0] = 0;
}

void predict_text_summary(predict_text *t, const kf_predict_summary *s)
{
    int64_t acknowledged_missing = s->acknowledged_missing;
    uint64_t harmed = s->partitions_harmed;
    out *o = t->o;
    flush_quiet(t);
    char when[32];
    seconds_text(s->estimated_recovery_seconds, when, sizeof when);
    out_text(o, "%" PRIu64 " log dir%s, %" PRIu64 " partition%s: recovery %s (log dirs in parallel); ", s->datadirs,
             plural((int64_t)s->datadirs), s->partitions, plural((int64_t)s->partitions), when);
    if (s->fatal)
        out_text(o, "%" PRIu64 " FATAL (it does not start as it is); ", s->fatal);
    if (!harmed) {
        out_text(o, s->fatal ? "no offsets lost\n" : "loses nothing\n");
        return;
    }
    const char *sep = "";
    if (acknowledged_missing) {
        out_text(o, "%s%" PRId64 " ACKNOWLEDGED offset%s MISSING", acknowledged_missing == INT64_MAX ? "at least " : "",
                 acknowledged_missing, plural(acknowledged_missing));
        sep = ", ";
    }
    if (s->offsets_lost) {
        /* a sum at INT64_MAX saturated there (the library never wraps it) */
        out_text(o, "%sLOSES %s%" PRId64 " offsets (%s%" PRId64 " acknowledged)", sep,
                 s->offsets_lost == INT64_MAX ? "at least " : "", s->offsets_lost,
                 s->acknowledged_lost == INT64_MAX ? "at least " : "", s->acknowledged_lost);
        sep = ", ";
    }
    out_text(o, "%s%" PRIu64 " partition%s harmed (lost or missing offsets, damage kept, groups' commits changed)\n",
             sep, harmed, plural((int64_t)harmed));
}
