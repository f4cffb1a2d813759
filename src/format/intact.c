/* intact.c: the per-batch checks a kept batch must pass (intact.h). The
 * record-level results come from the reader's own decode (its workers run
 * it with o->deep); the header and offset rules are verify's (segment.c
 * reports the same findings while scanning). */
#include "format/intact.h"

#include <stdio.h>

int64_t kf_batch_first_offset(const kf_batch *b) { return b->base_offset_known ? b->base_offset : b->last_offset; }

static bool fail(const char **code, char *msg, size_t cap, const char *c, const char *text)
{
    *code = c;
    if (cap)
        snprintf(msg, cap, "%s", text);
    return false;
}

bool kf_batch_intact(const kf_batch *b, const kf_batch_check *ck, const char **code, char *msg, size_t cap)
{
    char m[200];
    *code = NULL;
    if (cap)
        msg[0] = 0;
    if (ck->bad_magic) {
        snprintf(m, sizeof m, "magic byte %d is not 0, 1 or 2", b->magic);
        return fail(code, msg, cap, KF_P_BAD_MAGIC, m);
    }
    if (!ck->header_ok)
        return fail(code, msg, cap, KF_P_BAD_RECORD, "message key/value lengths do not fit the message size");
    /* in the order verify reports them */
    if (ck->control_malformed)
        return fail(code, msg, cap, KF_P_BAD_RECORD, "malformed control record");
    if (ck->control_extra)
        return fail(code, msg, cap, KF_P_BAD_RECORD, "control batch holds more than one record");
    if (!ck->deep_done || !ck->records_ok) {
        snprintf(m, sizeof m, "%.190s", ck->message && ck->message[0] ? ck->message : "its records were not decoded");
        return fail(code, msg, cap, ck->code ? ck->code : KF_P_BAD_RECORD, m);
    }
    if (b->magic == 2 && b->count > 0 && (int64_t)b->count > (int64_t)b->last_offset_delta + 1) {
        snprintf(m, sizeof m, "batch holds %d records but spans only %lld offsets", b->count,
                 (long long)b->last_offset_delta + 1);
        return fail(code, msg, cap, KF_P_COUNT_MISMATCH, m);
    }
    if (b->magic == 2 && b->last_offset_delta < 0)
        return fail(code, msg, cap, KF_P_BAD_RECORD, "negative last offset delta");
    return true;
}

bool kf_batch_offsets_fit(const kf_batch *b, bool has_prev, int64_t prev_last, int64_t seg_base, const char **code,
                          char *msg, size_t cap)
{
    char m[200];
    int64_t first = kf_batch_first_offset(b);
    *code = NULL;
    if (cap)
        msg[0] = 0;
    if (has_prev && first <= prev_last) {
        snprintf(m, sizeof m, "batch at offset %lld is not after the last kept offset %lld", (long long)first,
                 (long long)prev_last);
        return fail(code, msg, cap, KF_P_OFFSET_REGRESSION, m);
    }
    if (kf_batch_last_offset_overflows(b)) {
        snprintf(m, sizeof m, "batch at offset %lld: its last offset + 1 (the next offset) is past 2^63-1, the "
                 "largest offset there is", (long long)first);
        return fail(code, msg, cap, KF_P_LAST_OFFSET_OVERFLOW, m);
    }
    if (seg_base >= 0 && first < seg_base) {
        snprintf(m, sizeof m, "batch at offset %lld is below the segment's base offset %lld", (long long)first,
                 (long long)seg_base);
        return fail(code, msg, cap, KF_P_BASE_OFFSET_MISMATCH, m);
    }
    if (seg_base >= 0 && b->last_offset - seg_base > INT32_MAX) {
        snprintf(m, sizeof m, "last offset %lld does not fit the segment's relative offsets",
                 (long long)b->last_offset);
        return fail(code, msg, cap, KF_P_OFFSET_OVERFLOW, m);
    }
    return true;
}
