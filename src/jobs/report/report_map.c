/* report_map.c: the damage map. Each partition copy with something to say
 * (an error or warning of scan, a forecast of predict that loses offsets,
 * misses acknowledged ones, keeps damage or deletes segments, a gap of
 * tiered storage) is kept with what the drivers said of it, the most urgent
 * ones when there are more than the map draws (rmap_get), and drawn as one
 * SVG bar of its segments on an offset scale: the segments (listed from its
 * directory), the damaged stretches, the recovery cut and what it loses,
 * the segments the first retention pass deletes, the log start, the high
 * watermark and the acknowledged offsets missing, the remote range; beside
 * it every figure as a number, so the page reads without the picture. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobs/report/report_internal.h"
#include "kfsck/sys/names.h"

void rmap_init(rmap *m, size_t cap)
{
    memset(m, 0, sizeof *m);
    m->cap = cap;
    m->parts = calloc(cap ? cap : 1, sizeof *m->parts);
    if (!m->parts)
        m->oom = true;
}

static void part_free(rmap_part *p)
{
    if (!p)
        return;
    free(p->dir);
    free(p->datadir);
    free(p->topic);
    free(p);
}

void rmap_free(rmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        part_free(m->parts[i]);
    free(m->parts);
    memset(m, 0, sizeof *m);
}

rmap_part *rmap_find(rmap *m, const char *dir)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->parts[i]->dir, dir))
            return m->parts[i];
    return NULL;
}

static char *dup_or(const char *s, bool *oom)
{
    char *d = strdup(s ? s : "");
    if (!d)
        *oom = true;
    return d;
}

rmap_part *rmap_get(rmap *m, const kf_partition_ref *id, double score)
{
    rmap_part *p = rmap_find(m, id->dir);
    if (p) {
        p->score += score;
        return p;
    }
    m->seen++;
    if (m->oom || !m->parts)
        return NULL;
    size_t slot = m->n;
    if (m->n == m->cap) {
        size_t least = 0;
        for (size_t i = 1; i < m->n; i++)
            if (m->parts[i]->score < m->parts[least]->score)
                least = i;
        m->dropped++;
        if (!m->n || m->parts[least]->score >= score)
            return NULL;
        part_free(m->parts[least]);
        m->parts[least] = NULL;
        slot = least;
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        m->oom = true;
        return NULL;
    }
    p->dir = dup_or(id->dir, &m->oom);
    p->datadir = dup_or(id->datadir, &m->oom);
    p->topic = dup_or(id->topic, &m->oom);
    p->partition = id->partition;
    p->score = score;
    m->parts[slot] = p;
    if (slot == m->n)
        m->n++;
    return p;
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

static void add_mark(rmap_part *p, bool has_offset, int64_t offset, uint64_t position, const char *code,
                     const char *file, bool kept)
{
    if (p->nmarks == RMAP_MARKS) {
        p->more_marks++;
        return;
    }
    rmap_mark *k = &p->marks[p->nmarks++];
    k->has_offset = has_offset;
    k->offset = offset;
    k->position = position;
    k->kept = kept;
    snprintf(k->code, sizeof k->code, "%s", code ? code : "");
    snprintf(k->file, sizeof k->file, "%s", base_name(file));
}

void rmap_scan(rmap *m, const kf_datadir_partition *d)
{
    bool cut = d->has_recovery_end && d->log.has_log_end && d->recovery_end_offset != d->log.log_end_offset;
    if (!d->errors && !d->warnings && !cut)
        return;
    double score = (double)d->errors * 1000.0 + (double)d->warnings + (cut ? 500.0 : 0.0);
    rmap_part *p = rmap_get(m, &d->id, score);
    if (!p)
        return;
    p->scanned = true;
    p->has_broker = d->has_broker;
    p->broker = d->broker;
    p->errors = d->errors;
    p->warnings = d->warnings;
    p->log = d->log;
    p->checkpoints = d->checkpoints;
    p->has_recovery_end = d->has_recovery_end;
    p->recovery_end = d->recovery_end_offset;
    for (size_t i = 0; i < d->n_problems; i++) {
        const kf_problem *q = &d->problems[i];
        if (q->severity == KF_SEV_ERROR && q->file)
            add_mark(p, q->has_offset, q->offset, q->position, q->code, q->file, false);
    }
}

void rmap_predict(rmap *m, const kf_predict_partition *d)
{
    bool harmed = kf_predict_partition_harmed(d);
    if (!harmed && !d->n_retention_deletes && d->state == KF_PST_ONLINE)
        return;
    double score = (d->acknowledged_missing > 0 ? 1e9 : 0) + (d->acknowledged_lost > 0 ? 1e8 : 0) +
                   (d->offsets_lost > 0 ? 1e7 : 0) + (d->n_damage_kept ? 1e6 : 0) +
                   (d->state == KF_PST_OFFLINE ? 1e9 : 0) + (harmed ? 1e5 : 1);
    rmap_part *p = rmap_get(m, &d->id, score);
    if (!p)
        return;
    p->predicted = true;
    p->state = kf_predict_state_name(d->state);
    p->log_start_after = d->log_start_offset;
    p->end_before = d->log_end_offset_before;
    p->end_after = d->log_end_offset_after;
    p->offsets_lost = d->offsets_lost;
    p->acknowledged_lost = d->acknowledged_lost;
    p->acknowledged_missing = d->acknowledged_missing;
    p->has_hw = d->has_high_watermark;
    p->hw = d->high_watermark;
    for (size_t i = 0; i < d->n_retention_deletes; i++) {
        if (p->ndeletes < RMAP_DELETES)
            p->deletes[p->ndeletes++] = d->retention_deletes[i].base_offset;
        else
            p->more_deletes++;
    }
    for (size_t i = 0; i < d->n_damage_kept; i++)
        add_mark(p, true, d->damage_kept[i].offset, d->damage_kept[i].position, d->damage_kept[i].code,
                 d->damage_kept[i].file, true);
}

void rmap_predict_action(rmap *m, const kf_predict_action *a)
{
    if (a->action != KF_ACT_TRUNCATE_SEGMENT || !a->id.dir)
        return;
    rmap_part *p = rmap_get(m, &a->id, 1e7);
    if (!p || p->has_cut)
        return;
    p->has_cut = true;
    p->cut_offset = a->offset;
    p->cut_position = a->position;
    snprintf(p->cut_file, sizeof p->cut_file, "%s", base_name(a->file));
}

void rmap_remote(rmap *m, const kf_remote_partition *r)
{
    if (!r->offsets_in_no_tier && !r->n_findings)
        return;
    for (size_t i = 0; i < r->n_locals; i++) {
        const kf_remote_local *l = &r->locals[i];
        kf_partition_ref id = {"", r->topic, r->partition, l->dir}; /* remote names no data dir */
        rmap_part *p = rmap_get(m, &id, r->offsets_in_no_tier ? 1e8 : 10);
        if (!p)
            continue;
        p->has_remote = r->has_remote_range;
        p->remote_start = r->remote_start_offset;
        p->remote_end = r->remote_end_offset;
        p->offsets_in_no_tier = r->offsets_in_no_tier;
        if (!p->has_broker && l->broker >= 0) {
            p->has_broker = true;
            p->broker = l->broker;
        }
    }
}

/* ---- drawing ------------------------------------------------------------------- */

#define SEG_LIST_MAX 4096   /* segments listed from a partition directory */
#define SEG_DRAW_MAX 120    /* rectangles drawn: more segments are drawn as runs */
#define MAP_BUDGET (256 << 10) /* the map's bytes: a partition is drawn while PART_MAX more fit */
#define PART_MAX (24 << 10)
#define BAR_X0 8.0
#define BAR_W 984.0

typedef struct seg {
    int64_t base;
    uint64_t size;
} seg;

static int seg_cmp(const void *a, const void *b)
{
    int64_t x = ((const seg *)a)->base, y = ((const seg *)b)->base;
    return x < y ? -1 : x > y;
}

/* The .log segments of dir (no broker suffix), sorted; at most cap. */
static size_t list_segments(const char *dir, seg *out, size_t cap, uint64_t *more)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        kf_name_info ni = kf_classify_name(e->d_name);
        if (ni.kind != KF_FILE_LOG || ni.suffix[0] || ni.base_offset < 0)
            continue;
        if (n == cap) {
            (*more)++;
            continue;
        }
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        out[n].base = ni.base_offset;
        out[n].size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
        n++;
    }
    closedir(d);
    qsort(out, n, sizeof *out, seg_cmp);
    return n;
}

typedef struct scale {
    int64_t lo, hi;
} scale;

static double sx(const scale *s, int64_t o)
{
    if (o < s->lo)
        o = s->lo;
    if (o > s->hi)
        o = s->hi;
    return BAR_X0 + (double)(o - s->lo) * BAR_W / (double)(s->hi - s->lo);
}

static void widen(scale *s, bool has, int64_t o)
{
    if (!has || o < 0)
        return;
    if (s->lo < 0 || o < s->lo)
        s->lo = o;
    if (s->hi < 0 || o > s->hi)
        s->hi = o;
}

static void rect(rbuf *b, const scale *s, int64_t from, int64_t to, double y, double h, const char *cls,
                 const char *title)
{
    double x0 = sx(s, from), x1 = sx(s, to);
    double w = x1 - x0 < 1.5 ? 1.5 : x1 - x0;
    rb_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", cls, x0, y, w, h);
    if (title) {
        rb_puts(b, "<title>");
        rb_text(b, title);
        rb_puts(b, "</title>");
    }
    rb_puts(b, "</rect>");
}

static void vline(rbuf *b, const scale *s, int64_t o, const char *cls, const char *label, double ly)
{
    double x = sx(s, o);
    rb_printf(b, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"2\" y2=\"46\"/>", cls, x, x);
    if (label) {
        const char *anchor = x > 900 ? "end" : x < 100 ? "start" : "middle";
        rb_printf(b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, x, ly, anchor);
        rb_text(b, label);
        rb_puts(b, "</text>");
    }
}

static bool deleted(const rmap_part *p, int64_t base)
{
    for (size_t i = 0; i < p->ndeletes; i++)
        if (p->deletes[i] == base)
            return true;
    return false;
}

static void figure(rbuf *b, const char *name, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void figure(rbuf *b, const char *name, const char *cls, const char *fmt, ...)
{
    char v[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    rb_printf(b, "<tr%s%s%s><th>%s</th><td>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", name);
    rb_text(b, v);
    rb_puts(b, "</td></tr>");
}

static void bar(rbuf *b, const rmap_part *p, const seg *segs, size_t nseg)
{
    const kf_partition_summary *lg = &p->log;
    const kf_partition_checkpoints *ck = &p->checkpoints;
    scale s = {-1, -1};
    widen(&s, lg->has_offsets, lg->first_offset);
    widen(&s, lg->has_log_end, lg->log_end_offset);
    widen(&s, ck->log_start_offset.has, ck->log_start_offset.offset);
    widen(&s, ck->high_watermark.has, ck->high_watermark.offset);
    widen(&s, p->predicted, p->end_before);
    widen(&s, p->predicted, p->end_after);
    widen(&s, p->predicted, p->log_start_after);
    widen(&s, p->has_hw, p->hw);
    widen(&s, p->has_remote, p->remote_start);
    widen(&s, p->has_remote, p->remote_end + 1);
    for (size_t i = 0; i < nseg; i++)
        widen(&s, true, segs[i].base);
    for (size_t i = 0; i < p->nmarks; i++)
        widen(&s, p->marks[i].has_offset, p->marks[i].offset);
    if (s.lo < 0)
        s.lo = s.hi = 0;
    if (s.hi <= s.lo)
        s.hi = s.lo + 1;
    int64_t end = p->predicted ? p->end_before : lg->has_log_end ? lg->log_end_offset : s.hi;
    rb_printf(b, "<svg class=\"bar\" viewBox=\"0 0 1000 64\" role=\"img\" preserveAspectRatio=\"none\">"
                 "<title>offsets %" PRId64 " to %" PRId64 "</title>",
              s.lo, s.hi);
    /* the segments, as runs when there are too many to draw one by one */
    size_t step = nseg > SEG_DRAW_MAX ? (nseg + SEG_DRAW_MAX - 1) / SEG_DRAW_MAX : 1;
    for (size_t i = 0; i < nseg; i += step) {
        size_t last = i + step < nseg ? i + step : nseg;
        int64_t to = last < nseg ? segs[last].base : end > segs[i].base ? end : segs[i].base + 1;
        char t[200];
        if (step == 1)
            snprintf(t, sizeof t, "segment %020" PRId64 ".log: offsets %" PRId64 " to %" PRId64 ", %" PRIu64
                                  " bytes",
                     segs[i].base, segs[i].base, to, segs[i].size);
        else
            snprintf(t, sizeof t, "segments %zu to %zu: offsets %" PRId64 " to %" PRId64, i, last - 1, segs[i].base,
                     to);
        bool del = step == 1 && deleted(p, segs[i].base);
        rect(b, &s, segs[i].base, to, 10, 22, del ? "seg del" : (i / step) % 2 ? "seg odd" : "seg", t);
    }
    if (!nseg && lg->has_offsets && lg->has_log_end)
        rect(b, &s, lg->first_offset, lg->log_end_offset, 10, 22, "seg", "the log (its segments could not be listed)");
    /* what the restart cuts, and the acknowledged offsets the log will not hold */
    if (p->predicted && p->end_after < p->end_before) {
        char t[160];
        snprintf(t, sizeof t, "cut by recovery: offsets %" PRId64 " to %" PRId64 " lost", p->end_after,
                 p->end_before);
        rect(b, &s, p->end_after, p->end_before, 10, 22, "cut", t);
    }
    if (p->predicted && p->has_hw && p->hw > p->end_after) {
        char t[160];
        snprintf(t, sizeof t, "acknowledged but not in the log after start-up: %" PRId64 " to %" PRId64,
                 p->end_after, p->hw);
        rect(b, &s, p->end_after, p->hw, 34, 6, "ackmiss", t);
    }
    for (size_t i = 0; i < p->nmarks; i++) {
        const rmap_mark *k = &p->marks[i];
        if (!k->has_offset)
            continue;
        char t[300];
        snprintf(t, sizeof t, "%s%s at offset %" PRId64 " (position %" PRIu64 " of %s)",
                 k->kept ? "kept and served: " : "", k->code, k->offset, k->position, k->file);
        rect(b, &s, k->offset, k->offset, 6, 30, k->kept ? "dmg kept" : "dmg", t);
    }
    if (p->has_remote) {
        char t[160];
        snprintf(t, sizeof t, "remote tier: offsets %" PRId64 " to %" PRId64, p->remote_start, p->remote_end);
        rect(b, &s, p->remote_start, p->remote_end + 1, 42, 6, "remote", t);
    }
    int64_t ls = p->predicted ? p->log_start_after : ck->log_start_offset.offset;
    if (p->predicted || ck->log_start_offset.has)
        vline(b, &s, ls, "lso", "start", 60);
    if (p->has_hw || ck->high_watermark.has)
        vline(b, &s, p->has_hw ? p->hw : ck->high_watermark.offset, "hw", "hw", 8);
    if (p->predicted && p->end_after < p->end_before)
        vline(b, &s, p->end_after, "cutl", "cut", 60);
    rb_puts(b, "</svg>");
}

static void part_section(rbuf *b, const rmap_part *p, size_t idx)
{
    const kf_partition_summary *lg = &p->log;
    const kf_partition_checkpoints *ck = &p->checkpoints;
    seg *segs = malloc(SEG_LIST_MAX * sizeof *segs);
    uint64_t more = 0;
    size_t nseg = segs ? list_segments(p->dir, segs, SEG_LIST_MAX, &more) : 0;
    uint64_t damaged_files = 0;
    for (size_t i = 0; i < p->nmarks; i++) {
        bool dup = p->marks[i].kept;
        for (size_t k = 0; k < i && !dup; k++)
            dup = !p->marks[k].kept && !strcmp(p->marks[k].file, p->marks[i].file);
        damaged_files += !dup;
    }
    rb_printf(b, "<section class=\"part\" id=\"part-%zu\" data-damaged-segments=\"%" PRIu64 "\"><h3>", idx,
              damaged_files);
    if (p->topic[0]) {
        rb_text(b, p->topic);
        rb_printf(b, "-%d", p->partition);
    } else {
        rb_text(b, p->dir);
    }
    if (p->has_broker)
        rb_printf(b, " <span class=\"tag\">broker %d</span>", p->broker);
    rb_puts(b, " <span class=\"path\">");
    rb_text(b, p->dir);
    rb_puts(b, "</span></h3><div class=\"partbody\">");
    bar(b, p, segs, nseg);
    rb_puts(b, "<table class=\"figs\">");
    char a[40], c[40];
    if (p->scanned) {
        fmt_count((int64_t)lg->segments, a, sizeof a);
        fmt_size(lg->bytes, c, sizeof c);
        figure(b, "segments", NULL, "%s (%s)%s", a, c, more ? ", more not listed" : "");
        figure(b, "errors, warnings", p->errors ? "bad" : NULL, "%" PRIu64 ", %" PRIu64, p->errors, p->warnings);
        if (lg->has_offsets)
            figure(b, "first offset", NULL, "%" PRId64, lg->first_offset);
        if (lg->has_log_end)
            figure(b, "log end now", NULL, "%" PRId64, lg->log_end_offset);
        if (ck->log_start_offset.has)
            figure(b, "log start (checkpoint)", NULL, "%" PRId64, ck->log_start_offset.offset);
        if (ck->recovery_point.has)
            figure(b, "recovery point", NULL, "%" PRId64, ck->recovery_point.offset);
        if (ck->high_watermark.has)
            figure(b, "high watermark", NULL, "%" PRId64, ck->high_watermark.offset);
        if (p->has_recovery_end)
            figure(b, "log end after an unclean restart", NULL, "%" PRId64, p->recovery_end);
    }
    if (p->predicted) {
        figure(b, "state at start-up", p->state && strcmp(p->state, "online") ? "bad" : NULL, "%s",
               p->state ? p->state : "?");
        figure(b, "log end at start-up", NULL, "%" PRId64 " (now %" PRId64 ")", p->end_after, p->end_before);
        figure(b, "offsets lost", p->offsets_lost ? "bad" : NULL, "%" PRId64, p->offsets_lost);
        figure(b, "acknowledged lost", p->acknowledged_lost ? "bad" : NULL, "%" PRId64, p->acknowledged_lost);
        figure(b, "acknowledged missing", p->acknowledged_missing ? "bad" : NULL, "%" PRId64,
               p->acknowledged_missing);
        if (p->has_cut)
            figure(b, "recovery cut", "bad", "%s at position %" PRIu64 " (next offset %" PRId64 ")", p->cut_file,
                   p->cut_position, p->cut_offset);
        if (p->ndeletes) {
            char list[200];
            size_t o = 0;
            for (size_t i = 0; i < p->ndeletes && o + 24 < sizeof list; i++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%" PRId64, i ? ", " : "", p->deletes[i]);
            uint64_t nd = p->ndeletes + p->more_deletes;
            figure(b, "deleted by the first retention pass", NULL, "%" PRIu64 " segment%s (base offset%s %s%s)", nd,
                   nd == 1 ? "" : "s", nd == 1 ? "" : "s", list, p->more_deletes ? ", ..." : "");
        }
    }
    for (size_t i = 0; i < p->nmarks; i++) {
        const rmap_mark *k = &p->marks[i];
        if (k->has_offset)
            figure(b, k->kept ? "damage kept and served" : "damage", "bad", "%s at offset %" PRId64
                   ", position %" PRIu64 " of %s", k->code, k->offset, k->position, k->file);
        else
            figure(b, k->kept ? "damage kept and served" : "damage", "bad", "%s at position %" PRIu64 " of %s",
                   k->code, k->position, k->file);
    }
    if (p->more_marks)
        figure(b, "more damage", "bad", "%" PRIu64 " more (the embedded JSON lists them)", p->more_marks);
    if (p->has_remote)
        figure(b, "remote range", NULL, "%" PRId64 " to %" PRId64, p->remote_start, p->remote_end);
    if (p->offsets_in_no_tier)
        figure(b, "offsets in no tier", "bad", "%" PRIu64, p->offsets_in_no_tier);
    rb_puts(b, "</table></div></section>\n");
    free(segs);
}

static int urgency_cmp(const void *a, const void *b)
{
    const rmap_part *x = *(rmap_part *const *)a, *y = *(rmap_part *const *)b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    int c = strcmp(x->topic, y->topic);
    if (c)
        return c;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return strcmp(x->dir, y->dir);
}

void rmap_render(rbuf *b, rmap *m)
{
    qsort(m->parts, m->n, sizeof *m->parts, urgency_cmp);
    rb_puts(b, "<div class=\"legend\"><span class=\"k seg\"></span>segment <span class=\"k del\"></span>deleted by "
               "retention <span class=\"k cut\"></span>cut by recovery <span class=\"k dmg\"></span>damage "
               "<span class=\"k ackmiss\"></span>acknowledged, missing <span class=\"k remote\"></span>remote tier "
               "<span class=\"k lso\"></span>log start <span class=\"k hw\"></span>high watermark</div>\n");
    size_t start = b->n, drawn = 0;
    for (; drawn < m->n && b->n - start + PART_MAX <= MAP_BUDGET; drawn++)
        part_section(b, m->parts[drawn], drawn);
    uint64_t more = m->dropped + (m->n - drawn);
    if (more)
        rb_printf(b, "<p class=\"cut\">%" PRIu64 " more partition copies with something to say are not drawn: "
                     "the map draws the %zu most urgent. The findings table and the embedded JSON list them.</p>\n",
                  more, drawn);
}
