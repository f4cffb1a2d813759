/* replicas_datadir.c: a broker data dir as a stream of replicas for the
 * replicas job (replicas_internal.h). The data dir scan (scan.h) hands its
 * partitions back in (topic, partition) order through a callback; here it
 * runs on a thread of its own and each partition waits in a one-place
 * hand-over until the stream is asked for it, so several data dirs can be
 * merged by topic-partition while they are scanned, one partition of each
 * in memory at a time. */
#include "kfsck/replicas.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/scan.h"
#include "jobs/replicas/replicas_internal.h"

struct rp_datadir {
    char *path;
    size_t max_batch_bytes;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rp_rec slot;
    bool full;          /* slot holds a partition not taken yet */
    bool done;          /* the scan returned */
    bool stopping;      /* the stream is not read any more: drop the rest */
    int rc;             /* the scan's, or KF_ERR_NOMEM from a hand-over */
    /* the data dir's entries that cannot be read (a partition dir that is a
     * dangling or looping symlink, or cannot be listed), in the walk's
     * words: handed out as KF_ERR_IO at the stream's end */
    char **bad_path, **bad_why;
    int *bad_errno;
    size_t nbad, next_bad;
};

/* The replica of a scanned partition (its own copy of what it needs). */
static int rec_of(const kf_datadir_partition *p, rp_rec *r)
{
    memset(r, 0, sizeof *r);
    r->partition = p->id.partition;
    r->has_broker = p->has_broker;
    r->broker = p->broker;
    r->checkpoints = p->checkpoints;
    r->has_first_offset = p->log.has_offsets;
    r->first_offset = p->log.first_offset;
    r->has_end = p->has_recovery_end;
    r->end = p->recovery_end_offset;
    r->errors = p->errors;
    r->topic = strdup(p->id.topic);
    r->datadir = strdup(p->id.datadir);
    r->dir = strdup(p->id.dir);
    r->cluster_id = p->cluster_id ? strdup(p->cluster_id) : NULL;
    r->nepochs = p->n_leader_epochs;
    r->epochs = r->nepochs ? malloc(r->nepochs * sizeof *r->epochs) : NULL;
    if (!r->topic || !r->datadir || !r->dir || (p->cluster_id && !r->cluster_id) || (r->nepochs && !r->epochs)) {
        rp_rec_free(r);
        return kf_error_nomem();
    }
    if (r->nepochs)
        memcpy(r->epochs, p->leader_epochs, r->nepochs * sizeof *r->epochs);
    /* no file at all (an empty one is a history with no epoch) */
    char *ep = kf_path_join(p->id.dir, "leader-epoch-checkpoint");
    struct stat st;
    r->epochs_file_missing = ep && stat(ep, &st) != 0;
    free(ep);
    return KF_OK;
}

/* A path of the data dir that cannot be read (its words why), kept to be
 * said by the stream on the caller's thread. */
static void add_bad(rp_datadir *d, const char *path, const char *why)
{
    pthread_mutex_lock(&d->mu);
    size_t n = d->nbad + 1;
    char **np = realloc(d->bad_path, n * sizeof *np), **nw = np ? realloc(d->bad_why, n * sizeof *nw) : NULL;
    int *ne = nw ? realloc(d->bad_errno, n * sizeof *ne) : NULL;
    if (np)
        d->bad_path = np;
    if (nw)
        d->bad_why = nw;
    if (ne)
        d->bad_errno = ne;
    if (ne && (d->bad_path[d->nbad] = strdup(path)) && (d->bad_why[d->nbad] = strdup(why))) {
        d->bad_errno[d->nbad] = EIO;
        d->nbad++;
    } else if (d->rc == KF_OK) {
        if (ne)
            free(d->bad_path[d->nbad]);
        d->rc = KF_ERR_NOMEM;
    }
    pthread_mutex_unlock(&d->mu);
}

static void hand_over(void *ctx, const kf_datadir_partition *p)
{
    rp_datadir *d = ctx;
    if (p->unreadable && !p->log.listed) {
        /* its dir cannot be read (paths.h): no replica, a path that cannot be used */
        for (size_t i = 0; i < p->n_problems; i++)
            if (!strcmp(p->problems[i].code, KF_P_UNREADABLE)) {
                add_bad(d, p->id.dir, p->problems[i].message);
                return;
            }
    }
    rp_rec r;
    int rc = rec_of(p, &r);
    pthread_mutex_lock(&d->mu);
    while (d->full && !d->stopping)
        pthread_cond_wait(&d->cv, &d->mu);
    if (rc != KF_OK && d->rc == KF_OK)
        d->rc = rc;
    if (rc == KF_OK && !d->stopping) {
        rp_rec_move(&d->slot, &r);
        d->full = true;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    if (rc == KF_OK)
        rp_rec_free(&r);
}

/* The scan's own problems: an entry that cannot be read is kept. */
static void dir_problem(void *ctx, const kf_problem *p)
{
    if (!strcmp(p->code, KF_P_UNREADABLE) && p->file)
        add_bad(ctx, p->file, p->message);
}

static void *scan_thread(void *arg)
{
    rp_datadir *d = arg;
    kf_datadir_scan_opts so;
    kf_datadir_scan_opts_init(&so);
    so.max_batch_bytes = d->max_batch_bytes;
    so.jobs = 1; /* one thread per data dir: the data dirs are scanned side by side */
    so.partition_fn = hand_over;
    so.problem_fn = dir_problem;
    so.ctx = d;
    kf_datadir_totals tot;
    memset(&tot, 0, sizeof tot);
    int rc = kf_datadir_scan(d->path, &so, &tot);
    pthread_mutex_lock(&d->mu);
    if (d->rc == KF_OK)
        d->rc = rc;
    d->done = true;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

int rp_datadir_start(rp_datadir **out, const char *path, size_t max_batch_bytes)
{
    rp_datadir *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path))) {
        free(d);
        return kf_error_nomem();
    }
    d->max_batch_bytes = max_batch_bytes;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (pthread_create(&d->thread, NULL, scan_thread, d) != 0) {
        pthread_mutex_destroy(&d->mu);
        pthread_cond_destroy(&d->cv);
        free(d->path);
        free(d);
        return KF_ERR_NOMEM;
    }
    *out = d;
    return KF_OK;
}

static int datadir_next(void *self, rp_rec *r)
{
    rp_datadir *d = self;
    pthread_mutex_lock(&d->mu);
    while (!d->full && !d->done && d->rc == KF_OK)
        pthread_cond_wait(&d->cv, &d->mu);
    int rc;
    if (d->rc != KF_OK) {
        rc = d->rc;
    } else if (d->full) {
        rp_rec_move(r, &d->slot);
        d->full = false;
        pthread_cond_broadcast(&d->cv);
        rc = 1;
    } else if (d->next_bad < d->nbad) {
        size_t i = d->next_bad++;
        rc = kf_error_set(KF_ERR_IO, d->bad_errno[i], d->bad_path[i], "%s", d->bad_why[i]);
    } else {
        rc = 0;
    }
    pthread_mutex_unlock(&d->mu);
    return rc;
}

rp_stream rp_datadir_stream(rp_datadir *d)
{
    return (rp_stream){datadir_next, d};
}

void rp_datadir_stop(rp_datadir *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->mu);
    d->stopping = true;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->thread, NULL);
    rp_rec_free(&d->slot);
    for (size_t i = 0; i < d->nbad; i++) {
        free(d->bad_path[i]);
        free(d->bad_why[i]);
    }
    free(d->bad_path);
    free(d->bad_why);
    free(d->bad_errno);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    free(d->path);
    free(d);
}
