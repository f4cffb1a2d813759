/* report_json.c: each command's findings as the JSON lines its `--json`
 * prints, for the page's <script type="application/json" id="kfsck-CMD">
 * elements, so a script takes them back out as it would read the command's
 * output. The lines are the ones the command prints: report.c builds them
 * with the jobs' own builders (kf_scan_partition_json, ...) into a writer
 * (kfsck/sys/json_lines.h) whose strings are safe inside a script element
 * (KF_JSONL_SCRIPT) and whose sink is here: a command's lines share a byte
 * budget (jlines), so the page stays small whatever the inputs, and says
 * how many lines it left out. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "jobs/report/report_internal.h"

/* The writer's sink: a line is kept while the budget has room for it (a
 * summary line always), else counted. */
static void keep_line(void *ctx, const char *p, size_t n, unsigned how)
{
    jlines *j = ctx;
    if (!(how & KF_JSONL_LINE))
        return;
    j->lines++;
    if (how & KF_JSONL_CUT)
        j->out.oom = true;
    if ((how & KF_JSONL_SUMMARY) || rb_room(&j->out, n)) {
        rb_put(&j->out, p, n);
    } else {
        j->omitted++;
        j->omitted_bytes += n;
    }
}

void jl_init(jlines *j, const char *command, size_t budget)
{
    memset(j, 0, sizeof *j);
    j->command = command;
    rb_init(&j->out, budget);
    kf_jsonl_init(&j->w, KF_JSONL_SCRIPT, keep_line, j);
}

void jl_free(jlines *j)
{
    rb_free(&j->out);
    kf_jsonl_free(&j->w);
}

void jl_script(rbuf *page, const jlines *j)
{
    rb_printf(page, "<script type=\"application/json\" id=\"kfsck-%s\" data-lines=\"%" PRIu64
                    "\" data-omitted=\"%" PRIu64 "\">\n",
              j->command, j->lines, j->omitted);
    rb_put(page, j->out.p, j->out.n);
    if (j->omitted)
        rb_printf(page,
                  "{\"type\":\"omitted\",\"command\":\"%s\",\"lines\":%" PRIu64 ",\"bytes\":%" PRIu64
                  ",\"why\":\"the report keeps %zu bytes of each command's lines: run kfsck %s --json for them "
                  "all\"}\n",
                  j->command, j->omitted, j->omitted_bytes, j->out.limit, j->command);
    rb_puts(page, "</script>\n");
}
