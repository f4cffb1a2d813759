/* sink_topic.c: a topic's sink catch-up figures (the sums over its
 * partitions: what one task holding every partition may hold at once), the
 * partitions' tasks and the heap's verdict (include/kfsck/sink.h; the
 * suggestion is sink_advice.c's). */
#include "kfsck/sink.h"

#include <string.h>

void kf_sink_topic_init(kf_sink_topic *t, const kf_sink_opts *o)
{
    memset(t, 0, sizeof *t);
    if (!o->no_alternatives)
        kf_sink_alternatives(&o->config, t->alt);
}

static void add_figures(kf_sink_figures *sum, const kf_sink_figures *f)
{
    sum->records_written += f->records_written;
    sum->files_committed += f->files_committed;
    sum->open_files += f->open_files;
    sum->peak_open_files += f->peak_open_files;
}

void kf_sink_topic_add(kf_sink_topic *t, const kf_sink_partition *p)
{
    t->partitions++;
    t->records += p->records;
    t->records_without_timestamp += p->records_without_timestamp;
    t->control_records += p->control_records;
    t->skipped_batches += p->skipped_batches;
    add_figures(&t->figures, &p->figures);
    for (size_t k = 0; k < KF_SINK_ALTS; k++)
        if (t->alt[k].on && p->alt[k].on)
            add_figures(&t->alt[k].figures, &p->alt[k].figures);
}

uint32_t kf_sink_task_of(uint64_t index, uint32_t tasks) { return tasks > 1 ? (uint32_t)(index % tasks) : 0; }

kf_sink_verdict kf_sink_verdict_of(uint64_t peak_buffer_bytes, uint64_t heap)
{
    if (!heap)
        return KF_SINK_VERDICT_NONE;
    return peak_buffer_bytes < heap ? KF_SINK_FITS : peak_buffer_bytes == heap ? KF_SINK_FILLS : KF_SINK_EXCEEDS;
}

const char *kf_sink_verdict_name(kf_sink_verdict v)
{
    /* the contract's rule: fits when the buffers are at most the heap */
    return v == KF_SINK_FITS || v == KF_SINK_FILLS ? "fits" : v == KF_SINK_EXCEEDS ? "exceeds" : NULL;
}
