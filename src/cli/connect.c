/* connect.c: `kfsck offsets --connect`: prints the Kafka Connect source
 * offsets the library rebuilds (include/kfsck/connect.h) from every
 * partition of the Connect offsets topic among the inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "cli/walk.h"

int connect_offsets(const kf_inputs *in, const char *topic, uint64_t max_batch_bytes, bool json, out *o, out *perr)
{
    report rep = {perr, topic, 0, 0};
    kf_connect_opts co;
    kf_connect_opts_init(&co);
    co.max_batch_bytes = (size_t)max_batch_bytes;
    co.problem_fn = report_problem;
    co.problem_ctx = &rep;
    kf_connect *c;
    if (kf_connect_new(&c, &co) != KF_OK)
        cli_oom();
    report prep = {perr, NULL, 0, 0};
    kf_connect_topic_opts to;
    kf_connect_topic_opts_init(&to);
    to.topic = topic;
    part_reader_opts(&to.read, (size_t)max_batch_bytes, &prep);
    kf_connect_topic_result res;
    if (kf_connect_read_topic(c, in, &to, &res) != KF_OK)
        cli_oom();
    if (!res.partitions)
        tprintf(stderr, "kfsck: no partition of the Connect offsets topic '%s' found under the given paths\n", topic);
    uint64_t open = kf_connect_open_writes(c);
    if (open)
        tprintf(stderr, "kfsck: %s: %llu offset writes staged in transactions with no COMMIT or ABORT were not applied\n",
                topic, (unsigned long long)open);
    const kf_connect_offset *rows;
    size_t n;
    if (kf_connect_offsets(c, &rows, &n) != KF_OK)
        cli_oom();
    for (size_t i = 0; i < n; i++) {
        const kf_connect_offset *r = &rows[i];
        if (json)
            tprintf(o->f, "{\"type\":\"connect_offset\",\"connector\":%.*s,\"partition\":%.*s,\"offset\":%.*s,"
                          "\"source_partition\":%d,\"source_offset\":%lld}\n",
                    (int)r->connector_len, (const char *)r->connector, (int)r->partition_len,
                    (const char *)r->partition, (int)r->offset_len, (const char *)r->offset, r->source_partition,
                    (long long)r->source_offset);
        else
            tprintf(o->f, "%.*s %.*s %.*s\n", (int)r->connector_len, (const char *)r->connector,
                    (int)r->partition_len, (const char *)r->partition, (int)r->offset_len, (const char *)r->offset);
    }
    bool bad = kf_connect_bad_batches(c) > 0;
    kf_connect_free(c);
    return (res.damaged || bad) ? EXIT_DAMAGE : EXIT_CLEAN;
}
