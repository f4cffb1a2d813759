/* predict_text.h: the text of `kfsck predict` (predict_text.c), a plan to
 * read before starting a broker: per log dir one verdict line that names
 * the worst fact first (and never says the broker loses nothing while a
 * partition loses offsets, misses acknowledged ones, keeps damage or
 * changes a group's commits), the routine work counted, then the
 * partitions with something to say. cmd_predict.c hands the forecast's
 * callbacks to these. */
#ifndef KFSCK_CLI_PREDICT_TEXT_H
#define KFSCK_CLI_PREDICT_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/out.h"
#include "kfsck/kfsck.h"

typedef struct predict_text {
    out *o;
    bool verbose;           /* list routine actions, retention and every partition's status */
    char cur_part[4096];    /* the partition dir whose actions are being listed */
    uint64_t quiet;         /* partitions of the log dir with nothing to say */
    const kf_predict_datadir *dir;
} predict_text;

void predict_text_datadir(predict_text *t, const kf_predict_datadir *d);
void predict_text_action(predict_text *t, const kf_predict_action *a);
void predict_text_partition(predict_text *t, const kf_predict_partition *p);
/* The last line: the run's totals (the counts are the log dirs' sums). */
void predict_text_summary(predict_text *t, const kf_predict_summary *s);

#endif
