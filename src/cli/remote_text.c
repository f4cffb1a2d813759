/* remote_text.c: the text output of `kfsck remote` (cmd_remote.c): per
 * partition the verdict line, the worst fact first (a metadata record that
 * stops the broker's metadata consumer, offsets in neither tier, segments missing from the storage, segments off the epoch lineage,
 * uploads stuck, deletes pending, a partition deletion not finished,
 * orphans), then the figures and one line per finding; the run's summary. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/out.h"
#include "cli/remote_text.h"

/* A name from the data, bytes that are no printable text shown as \xNN. */
void remote_put_name(FILE *f, const char *s) { tputs(s, f); }

static void label(FILE *f, const kf_remote_partition *p)
{
    remote_put_name(f, p->topic);
    tprintf(f, "-%d", p->partition);
}

/* The oldest event of the findings of one kind. */
static int64_t oldest(const kf_remote_partition *p, kf_remote_finding what)
{
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < p->n_findings; i++)
        if (p->findings[i].finding == what && p->findings[i].event_timestamp < t)
            t = p->findings[i].event_timestamp;
    return t;
}

static const char *plural(uint64_t n) { return n == 1 ? "" : "s"; }

static void print_verdict(FILE *f, const kf_remote_partition *p)
{
    char tm[40], b[32];
    const uint64_t *c = p->counts;
    if (p->has_metadata_stop) {
        tprintf(f, "the broker's metadata consumer stops at __remote_log_metadata-%d offset %" PRId64
                   ": restarted, it serves ", p->metadata_partition, p->metadata_stop_offset);
        if (p->has_tier_gap)
            tprintf(f, "none of offsets %" PRId64 "..%" PRId64 " (below the local log start)", p->log_start_offset,
                    p->local_log_start_offset - 1);
        else
            tprintf(f, "no remote offset");
        tprintf(f, " and uploads nothing");
    } else if (p->n_no_tier) {
        tprintf(f, "offsets %" PRId64 "..%" PRId64 " are in neither tier", p->no_tier[0].from_offset,
                p->no_tier[0].to_offset - 1);
        if (p->n_no_tier > 1)
            tprintf(f, " (and %zu more ranges: %" PRIu64 " offsets in all)", p->n_no_tier - 1, p->offsets_in_no_tier);
    } else if (c[KF_REMOTE_MISSING_IN_STORAGE]) {
        tprintf(f, "%" PRIu64 " finished segment%s missing from the storage: fetches there fail",
                c[KF_REMOTE_MISSING_IN_STORAGE], plural(c[KF_REMOTE_MISSING_IN_STORAGE]));
    } else if (c[KF_REMOTE_EPOCH_CHAIN_BREAK]) {
        tprintf(f, "%" PRIu64 " finished segment%s off the local leader-epoch lineage", c[KF_REMOTE_EPOCH_CHAIN_BREAK],
                plural(c[KF_REMOTE_EPOCH_CHAIN_BREAK]));
    } else if (c[KF_REMOTE_COPY_STUCK]) {
        kf_format_time(oldest(p, KF_REMOTE_COPY_STUCK), true, tm, sizeof tm);
        tprintf(f, "%" PRIu64 " upload%s stuck since %s", c[KF_REMOTE_COPY_STUCK], plural(c[KF_REMOTE_COPY_STUCK]), tm);
    } else if (c[KF_REMOTE_DELETE_PENDING]) {
        kf_format_time(oldest(p, KF_REMOTE_DELETE_PENDING), true, tm, sizeof tm);
        tprintf(f, "%" PRIu64 " delete%s pending since %s", c[KF_REMOTE_DELETE_PENDING],
                plural(c[KF_REMOTE_DELETE_PENDING]), tm);
    } else if (p->partition_delete_state >= 0) {
        kf_format_time(p->partition_delete_timestamp, true, tm, sizeof tm);
        tprintf(f, "the partition's remote deletion is not finished (%s since %s)",
                kf_remote_partition_state_name(p->partition_delete_state), tm);
    } else if (c[KF_REMOTE_ORPHAN]) {
        fmt_bytes(p->orphan_bytes, b, sizeof b);
        tprintf(f, "%" PRIu64 " orphan segment%s in the storage: %s to clean", c[KF_REMOTE_ORPHAN],
                plural(c[KF_REMOTE_ORPHAN]), b);
    } else if (!p->judged) {
        tprintf(f, "its __remote_log_metadata partition is not among the inputs: what the remote tier holds is "
                   "unknown");
    } else if (!p->n_locals) {
        tprintf(f, "no local copy among the inputs to set the remote segments against");
    } else {
        tprintf(f, "all offsets reachable");
    }
    fputc('\n', f);
}

static void print_finding(FILE *f, const kf_remote_segment *s)
{
    char id[23], tm[40], d[40], b[32];
    kf_uuid_to_b64(s->segment_id, id);
    static const char *const what[] = {"copy stuck", "delete pending", "missing in storage", "epoch chain break",
                                       "orphan"};
    tprintf(f, "  %s: segment %s ", what[s->finding], id);
    if (s->finding == KF_REMOTE_ORPHAN) {
        fmt_bytes(s->bytes, b, sizeof b);
        tprintf(f, "(start offset %" PRId64 "): %zu object%s, %s:", s->start_offset, s->n_keys, plural(s->n_keys), b);
        for (size_t k = 0; k < s->n_keys; k++) {
            fputc(' ', f);
            remote_put_name(f, s->keys[k]);
        }
        fputc('\n', f);
        return;
    }
    tprintf(f, "offsets %" PRId64 "..%" PRId64, s->start_offset, s->end_offset);
    kf_format_time(s->event_timestamp, true, tm, sizeof tm);
    kf_format_duration(s->age_ms, d, sizeof d);
    if (s->finding == KF_REMOTE_COPY_STUCK) {
        tprintf(f, ", started %s by broker %d (%s before now), writing ", tm, s->broker_id, d);
        remote_put_name(f, s->object_prefix);
    } else if (s->finding == KF_REMOTE_DELETE_PENDING) {
        tprintf(f, ", started %s by broker %d (%s before now)", tm, s->broker_id, d);
    } else if (s->finding == KF_REMOTE_MISSING_IN_STORAGE) {
        tprintf(f, ": no");
        for (unsigned bit = 1; bit <= KF_REMOTE_OBJ_OTHER; bit <<= 1)
            if (s->missing_objects & bit)
                tprintf(f, " %s", kf_remote_object_name(bit));
        tprintf(f, " object");
    } else {
        tprintf(f, ": %s (broker %d's lineage)", s->reason, s->lineage_broker);
    }
    fputc('\n', f);
}

void remote_text_partition(FILE *f, const kf_remote_partition *p, bool have_storage)
{
    char a[32], id[23];
    label(f, p);
    fputs(": ", f);
    print_verdict(f, p);
    if (p->has_topic_id) {
        kf_uuid_to_b64(p->topic_id, id);
        tprintf(f, "  topic id %s", id);
    } else {
        tprintf(f, "  topic id unknown");
    }
    if (p->metadata_partition >= 0)
        tprintf(f, ", __remote_log_metadata-%d%s", p->metadata_partition, p->judged ? "" : " (not among the inputs)");
    fputc('\n', f);
    fmt_bytes(p->remote_bytes, a, sizeof a);
    tprintf(f, "  remote: %" PRIu64 " finished", p->segments[KF_REMOTE_COPY_FINISHED]);
    if (p->has_remote_range)
        tprintf(f, " (offsets %" PRId64 "..%" PRId64 ", %s)", p->remote_start_offset, p->remote_end_offset, a);
    tprintf(f, ", %" PRIu64 " copy started, %" PRIu64 " delete started, %" PRIu64 " deleted\n",
            p->segments[KF_REMOTE_COPY_STARTED], p->segments[KF_REMOTE_DELETE_STARTED],
            p->segments[KF_REMOTE_DELETE_FINISHED]);
    for (size_t i = 0; i < p->n_locals; i++) {
        const kf_remote_local *l = &p->locals[i];
        tprintf(f, "  local: ");
        if (l->broker >= 0)
            tprintf(f, "broker %d ", l->broker);
        tprintf(f, "offsets %" PRId64 "..%" PRId64 " (log start %" PRId64 "%s)\n", l->local_log_start_offset,
                l->log_end_offset - 1, l->log_start_offset,
                l->has_log_start_checkpoint ? "" : ", no log-start-offset-checkpoint entry");
    }
    for (size_t i = 0; i < p->n_no_tier; i++)
        tprintf(f, "  in neither tier: offsets %" PRId64 "..%" PRId64 " (%" PRId64 " offsets)\n",
                p->no_tier[i].from_offset, p->no_tier[i].to_offset - 1,
                p->no_tier[i].to_offset - p->no_tier[i].from_offset);
    for (size_t i = 0; i < p->n_findings; i++)
        print_finding(f, &p->findings[i]);
    if (have_storage) {
        fmt_bytes(p->orphan_bytes, a, sizeof a);
        tprintf(f, "  orphans: %s\n", a);
    }
    fputc('\n', f);
}

void remote_text_summary(FILE *f, const kf_remote_totals *t)
{
    if (!t->partitions && !t->metadata_partitions) {
        tprintf(f, "no tiered partition among the inputs (no __remote_log_metadata partition, no topic with "
                   "remote.storage.enable=true in the KRaft metadata)\n");
        return;
    }
    tprintf(f,
            "%" PRIu64 " tiered partition%s from %" PRIu64 " records of %" PRIu64
            " __remote_log_metadata partition%s: %" PRIu64 " with offsets in neither tier, %" PRIu64
            " missing in storage, %" PRIu64 " off the epoch lineage, %" PRIu64 " stuck, %" PRIu64 " pending deletes, %" PRIu64
            " orphans; %" PRIu64 " bad index cache entr%s\n",
            t->partitions, plural(t->partitions), t->records, t->metadata_partitions, plural(t->metadata_partitions),
            t->partitions_with_gap, t->counts[KF_REMOTE_MISSING_IN_STORAGE], t->counts[KF_REMOTE_EPOCH_CHAIN_BREAK],
            t->counts[KF_REMOTE_COPY_STUCK], t->counts[KF_REMOTE_DELETE_PENDING], t->counts[KF_REMOTE_ORPHAN],
            t->index_bad, t->index_bad == 1 ? "y" : "ies");
    if (t->incomplete)
        tprintf(f, "the replay is incomplete: records were damaged or would stop the broker's metadata consumer "
                   "(see the problems above)\n");
    if (t->unrecognised_objects || t->unjudged_objects || t->listing_bad_lines)
        tprintf(f, "storage: %" PRIu64 " objects, %" PRIu64 " not named by a known layout, %" PRIu64
                   " of partitions whose metadata is not among the inputs, %" PRIu64 " listing lines not understood\n",
                t->objects, t->unrecognised_objects, t->unjudged_objects, t->listing_bad_lines);
}

