/* problem_json.c: a problem as a line of every command's JSON output
 * (kf_problem_json, common.h). */
#include "kfsck/common.h"
#include "kfsck/sys/json_lines.h"

void kf_problem_json(kf_jsonl *j, const kf_problem *p, const char *file, void (*fields)(kf_jsonl *j, void *ctx),
                     void *ctx)
{
    kf_jsonl_begin(j, "problem");
    kf_jsonl_str(j, "file", p->file ? p->file : file);
    kf_jsonl_uint(j, "position", p->position);
    kf_jsonl_opt_int(j, "offset", p->has_offset, p->offset);
    kf_jsonl_str(j, "code", p->code);
    kf_jsonl_str(j, "severity", p->severity == KF_SEV_ERROR ? "error" : "warning");
    kf_jsonl_str(j, "message", p->message);
    if (p->has_length)
        kf_jsonl_uint(j, "length", p->length);
    if (fields)
        fields(j, ctx);
    for (unsigned i = 0; i < p->nextra && i < sizeof p->extra / sizeof p->extra[0]; i++) {
        if (p->extra[i].is_null)
            kf_jsonl_null(j, p->extra[i].name);
        else if (p->extra[i].is_int)
            kf_jsonl_int(j, p->extra[i].name, p->extra[i].i);
        else
            kf_jsonl_str(j, p->extra[i].name, p->extra[i].text);
    }
    kf_jsonl_end(j);
}
