/* predict_fate.c: whether the broker's next start recovers one segment of
 * a partition dir in a broker data dir (kf_segment_fate, predict.h;
 * docs/formats.md §20.4, §20.5) — the question behind verify's "broker
 * recovery keeps N bytes": a segment with no .index is recovered whatever
 * the shutdown; otherwise none is after a clean shutdown, and after an
 * unclean one only those from the segment holding the recovery point on. */
#include "predict_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/clean_shutdown.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"

static bool exists(const char *dir, const char *name)
{
    char *p = kf_path_join(dir, name);
    struct stat st;
    bool r = p && stat(p, &st) == 0;
    free(p);
    return r;
}

int kf_segment_fate(const char *segment, kf_segment_fate_info *info)
{
    memset(info, 0, sizeof *info);
    info->fate = KF_SEGMENT_FATE_UNKNOWN;
    kf_name_info ni = kf_classify_name(kf_path_base(segment));
    if (ni.kind != KF_FILE_LOG || ni.suffix[0] || ni.base_offset < 0)
        return KF_OK;
    char *pdir = kf_path_dir(segment), *ddir = pdir ? kf_path_dir(pdir) : NULL;
    char topic[256];
    int32_t partition;
    int rc = pdir && ddir ? KF_OK : KF_ERR_NOMEM;
    /* a partition dir in a broker data dir (its checkpoints or marker beside it) */
    bool known = rc == KF_OK && kf_parse_partition_dir(kf_path_base(pdir), topic, sizeof topic, &partition) &&
                 (exists(ddir, "recovery-point-offset-checkpoint") || exists(ddir, KF_CLEAN_SHUTDOWN_FILE));
    if (known) {
        char idx[64];
        pp_offset_name(ni.base_offset, ".index", idx, sizeof idx);
        bool has = false;
        int64_t rp = 0;
        char *ck = kf_path_join(ddir, "recovery-point-offset-checkpoint");
        if (!ck)
            rc = KF_ERR_NOMEM;
        else if (kf_checkpoint_find(ck, topic, partition, &has, &rp, NULL, NULL) != KF_OK)
            has = false; /* the broker reads the whole file or none of it */
        free(ck);
        info->recovery_point = has ? rp : 0;
        /* the segment holding the recovery point: the last base at or below it, else the first */
        kf_name_list l;
        int64_t holding = -1, first = -1;
        if (rc == KF_OK && kf_list_dir(pdir, &l) == KF_OK) {
            for (size_t i = 0; i < l.n; i++) {
                kf_name_info x = kf_classify_name(l.names[i]);
                if (x.kind != KF_FILE_LOG || x.suffix[0] || x.base_offset < 0)
                    continue;
                if (first < 0 || x.base_offset < first)
                    first = x.base_offset;
                if (x.base_offset <= info->recovery_point && x.base_offset > holding)
                    holding = x.base_offset;
            }
            kf_name_list_free(&l);
        }
        info->holding_base = holding >= 0 ? holding : first;
        if (rc == KF_OK && !exists(pdir, idx))
            info->fate = KF_SEGMENT_RECOVERED_NO_INDEX;
        else if (exists(ddir, KF_CLEAN_SHUTDOWN_FILE))
            info->fate = KF_SEGMENT_KEPT_CLEAN_SHUTDOWN;
        else if (ni.base_offset < info->holding_base)
            info->fate = KF_SEGMENT_KEPT_BELOW_RECOVERY_POINT;
        else
            info->fate = KF_SEGMENT_RECOVERED;
    }
    free(pdir);
    free(ddir);
    return rc;
}
