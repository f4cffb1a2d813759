/* connect_topic.c: the Connect source offsets job fed every partition of
 * the Connect offsets topic among the inputs (include/kfsck/connect.h). */
#include <string.h>

#include "bytes/opts.h"
#include "kfsck/connect.h"
#include "kfsck/sys/part_feed.h"

void kf_connect_topic_opts_init(kf_connect_topic_opts *o)
{
    *o = (kf_connect_topic_opts)KF_CONNECT_TOPIC_OPTIONS_INIT;
}

static int connect_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    (void)r;
    return kf_connect_batch(ctx, b);
}

int kf_connect_read_topic(kf_connect *c, const kf_inputs *in, const kf_connect_topic_opts *o,
                          kf_connect_topic_result *res)
{
    memset(res, 0, sizeof *res);
    kf_connect_topic_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_CONNECT_TOPIC_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;
    const char *topic = o->topic ? o->topic : "connect-offsets";
    int rc = KF_OK;
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        const kf_partition *p = &in->parts[i];
        if (strcmp(p->topic, topic) != 0)
            continue;
        res->partitions++;
        kf_connect_partition(c, p->partition);
        kf_part_result ur;
        rc = kf_part_feed(p, &o->read, connect_batch, c, &ur);
        res->damaged += ur.uncovered + (ur.unreadable ? 1 : 0);
    }
    kf_connect_partition(c, -1);
    return rc;
}
