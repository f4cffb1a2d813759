/* connect_topic.c: the Connect source offsets job fed every partition of
 * the Connect offsets topic among the inputs (include/kfsck/connect.h). */
#include <string.h>

#include "kfsck/connect.h"
#include "kfsck/part_feed.h"

void kf_connect_topic_opts_init(kf_connect_topic_opts *o)
{
    memset(o, 0, sizeof *o);
    o->topic = "connect-offsets";
    kf_part_reader_opts_init(&o->read);
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
    int rc = KF_OK;
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        const kf_partition *p = &in->parts[i];
        if (strcmp(p->topic, o->topic) != 0)
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
