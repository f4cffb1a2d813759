/* name_suggest.c: the names closest to one that matches nothing
 * (kf_closest_names, include/kfsck/offsets_view.h), for `offsets` and
 * `groups` --group/--topic: the usual slips first (a sink connector's group
 * is "connect-<name>"; "<topic>-<n>" is a partition, not a topic), then
 * names within a small edit distance (Levenshtein, bounded: at most a
 * third of the name's length, at least 2) or holding the name given (or
 * held in it), ranked by that distance (a name held: by the difference in
 * length). */
#include "kfsck/offsets_view.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_COMPARED 256 /* longer names are compared by prefix */

/* Levenshtein distance of a and b (each cut to NAME_MAX_COMPARED bytes). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strnlen(a, NAME_MAX_COMPARED), m = strnlen(b, NAME_MAX_COMPARED);
    size_t row[NAME_MAX_COMPARED + 1];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

/* want without a "-<digits>" tail, into buf (false when it has none). */
static bool partition_tail(const char *want, char *buf, size_t cap)
{
    const char *dash = strrchr(want, '-');
    if (!dash || !dash[1] || dash == want || (size_t)(dash - want) >= cap)
        return false;
    for (const char *p = dash + 1; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    memcpy(buf, want, (size_t)(dash - want));
    buf[dash - want] = 0;
    return true;
}

static size_t length_apart(size_t a, size_t b) { return a > b ? a - b : b - a; }

typedef struct candidate {
    const char *name;
    size_t score; /* lower is closer */
} candidate;

static int cmp_candidate(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return strcmp(x->name, y->name);
}

size_t kf_closest_names(const char *want, const char *const *names, size_t n, const char **out, size_t max)
{
    if (!max || !n)
        return 0;
    candidate best[8];
    size_t nbest = 0, cap = max < 8 ? max : 8;
    char topic[NAME_MAX_COMPARED];
    bool has_tail = partition_tail(want, topic, sizeof topic);
    size_t wl = strlen(want), limit = wl / 3 > 2 ? wl / 3 : 2;
    for (size_t i = 0; i < n; i++) {
        const char *s = names[i];
        size_t score;
        if (!strncmp(s, "connect-", 8) && !strcmp(s + 8, want))
            score = 0;
        else if (has_tail && !strcmp(s, topic))
            score = 0;
        else if (strstr(s, want) || (wl > 0 && strstr(want, s) && strlen(s) >= 3))
            score = 1 + length_apart(wl, strlen(s)); /* the closer in length, the closer */
        else if (length_apart(wl, strlen(s)) <= limit && (score = edit_distance(want, s)) <= limit)
            score += 1; /* (lengths further apart than the limit cannot be within it) */
        else
            continue;
        candidate c = {s, score};
        /* keep the cap best: insert in order, drop the last */
        size_t k = nbest < cap ? nbest++ : cap;
        if (k == cap) {
            if (cmp_candidate(&c, &best[cap - 1]) >= 0)
                continue;
            k = cap - 1;
        }
        best[k] = c;
        while (k > 0 && cmp_candidate(&best[k], &best[k - 1]) < 0) {
            candidate t = best[k];
            best[k] = best[k - 1];
            best[k - 1] = t;
            k--;
        }
    }
    for (size_t i = 0; i < nbest; i++)
        out[i] = best[i].name;
    return nbest;
}
