/* report_page.c: the report's page, written through the caller's writer in
 * the order a person reads it in an incident: the verdict banner of each
 * broker (will it start, what it loses, what it keeps damaged), the damage
 * map, the partitions with findings, the election table, the consumer
 * groups with the reset CSV as a download link, open transactions, pinned
 * compaction, the cluster, records per hour per topic, the other commands'
 * problems, and last each command's JSON lines. One file: inline CSS, SVG
 * and a little JavaScript (tables longer than a screen get a pager; without
 * it they stay whole tables), and a Content-Security-Policy that forbids
 * every load from elsewhere. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bytes/error.h"
#include "jobs/report/report_internal.h"
#include "kfsck/kfsck.h"

/* The page's script; its SHA-256 is in the Content-Security-Policy (the
 * only script the page may run). tests/e2e/test_report.py checks the two
 * agree. */
static const char SCRIPT[] =
    "(function(){var P=50;"
    "document.querySelectorAll('table.pg tbody').forEach(function(tb){"
    "var rows=tb.rows;if(rows.length<=P)return;var page=0,n=Math.ceil(rows.length/P);"
    "var nav=document.createElement('div');nav.className='pager';"
    "function b(t,f){var e=document.createElement('button');e.type='button';e.textContent=t;"
    "e.addEventListener('click',f);nav.appendChild(e);return e;}"
    "var lab=document.createElement('span');"
    "function show(){for(var i=0;i<rows.length;i++)rows[i].hidden=page>=0&&(i<page*P||i>=(page+1)*P);"
    "lab.textContent=page<0?'all '+rows.length+' rows':'rows '+(page*P+1)+' to '+Math.min(rows.length,(page+1)*P)"
    "+' of '+rows.length;}"
    "b('previous',function(){if(page>0){page--;show();}});nav.appendChild(lab);"
    "b('next',function(){if(page>=0&&page<n-1){page++;show();}});"
    "b('show all',function(){page=-1;show();});"
    "tb.parentNode.parentNode.insertBefore(nav,tb.parentNode.nextSibling);show();});"
    "window.addEventListener('beforeprint',function(){"
    "document.querySelectorAll('tr[hidden]').forEach(function(r){r.hidden=false;});});"
    "})();";
#define REPORT_SCRIPT_SHA256 "G9AWlTZ6HCO1SykJIvtIK3gj/XZR0p4902/djvGGzk0="
#define SCRIPT_SHA256 "sha256-" REPORT_SCRIPT_SHA256

static const char STYLE[] =
    "@page{size:A4;margin:12mm}"
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f23;margin:0;background:#f6f8fa}"
    "main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}"
    "h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}"
    "h3{font-size:14px;margin:10px 0 4px}.meta,.small{color:#57606a;font-size:12px}"
    "nav a{margin-right:12px;font-size:13px}"
    ".counts{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}"
    ".counts div{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px}"
    ".counts b{display:block;font-size:18px}"
    ".banner{border-radius:6px;padding:10px 14px;margin:8px 0;border:1px solid;background:#fff}"
    ".banner.ok{border-color:#2da44e;background:#dafbe1}.banner.warn{border-color:#bf8700;background:#fff8c5}"
    ".banner.bad{border-color:#cf222e;background:#ffebe9}.banner p{margin:4px 0}"
    ".verdict{font-weight:600;font-size:15px}.figrow span{display:inline-block;margin-right:14px}"
    "main{overflow-wrap:anywhere}td{overflow-wrap:anywhere}"
    "table{border-collapse:collapse;background:#fff;margin:6px 0}"
    "th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}"
    "th{background:#f0f3f6;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "tr.bad td{background:#fff0ef}tr.warn td{background:#fffbe6}td.bad{color:#cf222e;font-weight:600}"
    "table.figs th{font-weight:normal;color:#57606a;background:#fafbfc}table.figs tr.bad td{color:#cf222e}"
    "table.list{width:100%;font-size:13px}td.tp{white-space:nowrap;font-family:ui-monospace,monospace}"
    ".path{color:#57606a;font-weight:normal;font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}"
    ".tag{background:#ddf4ff;border-radius:4px;padding:0 5px;font-weight:normal;font-size:12px}"
    "section.part{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:8px 0;"
    "break-inside:avoid}"
    ".partbody{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}"
    "svg.bar{width:100%;max-width:1000px;height:64px;flex:1 1 560px}"
    "svg.bar .seg{fill:#b6c3cf}svg.bar .seg.odd{fill:#9aabbb}svg.bar .seg.del{fill:#f0b86e}"
    "svg.bar .cut{fill:#cf222e;fill-opacity:.45}svg.bar .ackmiss{fill:#bf8700}svg.bar .dmg{fill:#cf222e}"
    "svg.bar .dmg.kept{fill:#82071e}svg.bar .remote{fill:#8250df}"
    "svg.bar line{stroke-width:2}svg.bar line.lso{stroke:#0969da;stroke-dasharray:4 2}"
    "svg.bar line.hw{stroke:#1a7f37}svg.bar line.cutl{stroke:#cf222e}"
    "svg text{font-size:11px;font-family:system-ui,sans-serif}svg text.lso{fill:#0969da}svg text.hw{fill:#1a7f37}"
    "svg text.cutl{fill:#cf222e}"
    ".legend{font-size:12px;color:#57606a}.legend .k{display:inline-block;width:12px;height:10px;margin:0 3px 0 10px;"
    "vertical-align:middle}"
    ".k.seg{background:#b6c3cf}.k.del{background:#f0b86e}.k.cut{background:#e79aa0}.k.dmg{background:#cf222e}"
    ".k.ackmiss{background:#bf8700}.k.remote{background:#8250df}.k.lso{background:#0969da}.k.hw{background:#1a7f37}"
    "svg.histo{width:100%;height:90px;background:#fff}svg.histo rect{fill:#0969da}svg.histo .peak{fill:#57606a}"
    ".hist{break-inside:avoid}p.cut{color:#9a6700;font-style:italic}"
    ".pager{margin:4px 0;font-size:12px}.pager button{margin:0 4px}"
    "details summary{cursor:pointer;color:#0969da}code{font-size:12px}"
    "@media print{body{background:#fff;font-size:11px}main{max-width:none;padding:0}.pager,nav{display:none}"
    "details{display:block}details>*{display:block}tr[hidden]{display:table-row}h2{break-after:avoid}}";

static int flush(report_run *R, rbuf *b)
{
    if (b->oom)
        return kf_error_nomem();
    int rc = b->n ? R->o->write_fn(R->o->write_ctx, b->p, b->n) : KF_OK;
    R->sum->bytes += b->n;
    b->n = 0;
    return rc;
}

static void count(rbuf *b, const char *key, const char *label, int64_t v, bool bad)
{
    char n[32];
    fmt_count(v, n, sizeof n);
    rb_printf(b, "<div%s><b data-count=\"%s\">%s</b>%s</div>", bad && v ? " class=\"bad\"" : "", key, n, label);
}

static void broker_name(rbuf *b, const rbroker *k)
{
    if (k->has_id) {
        rb_printf(b, "broker %d", k->id);
        return;
    }
    rb_puts(b, "the broker of ");
    rb_text(b, k->ndirs ? k->dirs[0] : "?");
}

/* Per broker: one verdict that names the worst fact first, then its figures. */
static void banner(rbuf *b, const rbroker *k)
{
    const kf_predict_summary *s = &k->sum;
    bool stops = k->stops || (k->ndirs && k->dirs_offline >= k->ndirs) || (s->fatal && k->ndirs == 1);
    bool ack = k->acknowledged_missing > 0 || s->acknowledged_lost > 0;
    bool loses = s->offsets_lost > 0;
    const char *cls = !k->predicted ? "warn" : stops || ack ? "bad" : loses || k->harmed || k->errors ? "warn" : "ok";
    char a[32], c[32];
    rb_printf(b, "<div class=\"banner %s\" data-broker=\"%d\"><p class=\"verdict\">", cls, k->has_id ? k->id : -1);
    broker_name(b, k);
    rb_puts(b, ": ");
    if (!k->predicted) {
        rb_puts(b, "no forecast (predict could not run on its log dirs)");
    } else if (stops) {
        rb_puts(b, "DOES NOT START");
        if (k->first_fatal[0]) {
            rb_puts(b, ": ");
            rb_text(b, k->first_fatal);
        }
    } else {
        rb_puts(b, k->dirs_offline || s->fatal ? "starts with log dirs offline" : "starts");
        if (ack) {
            fmt_count(k->acknowledged_missing > s->acknowledged_lost ? k->acknowledged_missing : s->acknowledged_lost,
                      a, sizeof a);
            rb_printf(b, ", LOSES %s ACKNOWLEDGED offsets", a);
        }
        if (loses) {
            fmt_count(s->offsets_lost, c, sizeof c);
            rb_printf(b, ", %s %s offsets in all", ack ? "cuts" : "loses", c);
        }
        if (k->damage_kept)
            rb_printf(b, ", keeps and serves %" PRIu64 " damaged stretch%s", k->damage_kept,
                      k->damage_kept == 1 ? "" : "es");
        if (k->groups_affected)
            rb_printf(b, ", changes %" PRIu64 " committed offset%s", k->groups_affected,
                      k->groups_affected == 1 ? "" : "s");
        if (!ack && !loses && !k->damage_kept && !k->groups_affected)
            rb_puts(b, " and loses nothing");
    }
    rb_puts(b, "</p>");
    if (k->harmed_names[0]) {
        rb_puts(b, "<p>partitions harmed first: ");
        rb_text(b, k->harmed_names);
        rb_puts(b, "</p>");
    }
    rb_printf(b, "<p class=\"figrow\"><span><b>%zu</b> log dir%s, %s</span>", k->ndirs, k->ndirs == 1 ? "" : "s",
              k->predicted && k->clean_shutdown_all ? "shut down cleanly" : "unclean shutdown: recovery runs");
    fmt_count((int64_t)k->partitions, a, sizeof a);
    rb_printf(b, "<span><b>%s</b> partitions</span><span><b>%" PRIu64 "</b> with errors</span><span><b>%" PRIu64
                 "</b> errors, <b>%" PRIu64 "</b> warnings</span>",
              a, k->damaged_partitions, k->errors, k->warnings);
    if (k->predicted) {
        rb_printf(b, "<span><b>%" PRId64 "</b> offsets lost at start-up (<b>%" PRId64 "</b> acknowledged)</span>",
                  s->offsets_lost, s->acknowledged_lost);
        rb_printf(b, "<span><b>%" PRId64 "</b> acknowledged offsets missing after start-up</span>",
                  k->acknowledged_missing);
        rb_printf(b, "<span><b>%" PRIu64 "</b> damaged stretches kept and served</span>", k->damage_kept);
        rb_printf(b, "<span><b>%" PRIu64 "</b> partitions harmed</span>", k->harmed);
        kf_format_duration((int64_t)(s->estimated_recovery_seconds * 1000), c, sizeof c);
        rb_printf(b, "<span>recovery takes about <b>%s</b></span>", c);
    }
    rb_puts(b, "</p><p class=\"path\">");
    for (size_t i = 0; i < k->ndirs; i++) {
        rb_puts(b, i ? ", " : "");
        rb_text(b, k->dirs[i]);
    }
    rb_puts(b, "</p></div>\n");
}

/* A table with its header, rows, and what it left out. */
static void table(rbuf *page, const char *head, const rbuf *rows, uint64_t more, const char *more_words)
{
    rb_printf(page, "<table class=\"list pg\"><thead><tr>%s</tr></thead><tbody>\n", head);
    rb_put(page, rows->p, rows->n);
    rb_puts(page, "</tbody></table>\n");
    if (more)
        rb_printf(page, "<p class=\"cut\">%" PRIu64 " more rows are not shown (the page keeps its size bounded): %s</p>\n",
                  more, more_words);
}

static void head(report_run *R, rbuf *b, const char *title)
{
    rb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
               "img-src data:; script-src '" SCRIPT_SHA256 "'; base-uri 'none'; form-action 'none'\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"generator\" content=\"kfsck ");
    rb_puts(b, KFSCK_VERSION);
    rb_puts(b, "\">\n<title>");
    rb_text(b, title);
    rb_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>", STYLE);
    rb_text(b, title);
    char when[40];
    kf_format_time(R->o->now_ms, false, when, sizeof when);
    rb_printf(b, "</h1>\n<p class=\"meta\">kfsck %s, %s. Read offline from the files; nothing was changed. "
                 "Exit status %d.</p>\n",
              KFSCK_VERSION, when, R->sum->unreadable ? 3 : R->status);
    rb_puts(b, "<nav><a href=\"#brokers\">brokers</a><a href=\"#map\">damage map</a><a href=\"#findings\">findings</a>"
               "<a href=\"#elections\">elections</a><a href=\"#groups\">consumer groups</a><a href=\"#txns\">"
               "transactions</a><a href=\"#compaction\">compaction</a><a href=\"#cluster\">cluster</a>"
               "<a href=\"#stats\">records per hour</a><a href=\"#json\">JSON</a></nav>\n");
    const kf_report_summary *s = R->sum;
    rb_puts(b, "<div class=\"counts\">");
    count(b, "brokers", "brokers", (int64_t)R->nbrokers, false);
    count(b, "partitions", "partitions", (int64_t)s->partitions, false);
    count(b, "damaged-partitions", "partitions with errors", (int64_t)s->damaged_partitions, true);
    count(b, "damaged-segments", "damaged segments", (int64_t)s->damaged_segments, true);
    count(b, "offsets-lost", "offsets lost at start-up", s->offsets_lost, true);
    count(b, "acknowledged-missing", "acknowledged offsets missing", s->acknowledged_missing, true);
    count(b, "groups", "consumer groups", (int64_t)s->groups, false);
    count(b, "groups-out-of-range", "groups out of range", (int64_t)s->groups_out_of_range, true);
    count(b, "hanging-transactions", "hanging transactions", (int64_t)s->hanging_transactions, true);
    count(b, "pinned-compactions", "pinned compactions", (int64_t)s->pinned_compactions, true);
    rb_puts(b, "</div>\n");
}

/* A section's heading, and why its command did not run when it did not:
 * whether it ran. */
static bool section(rbuf *b, const char *heading, bool ran, const char *why_not)
{
    rb_puts(b, heading);
    if (!ran)
        rb_printf(b, "<p class=\"meta\">Not run: %s.</p>\n", why_not);
    return ran;
}

/* nrows rows as a table, or the words that say there are none. */
static void table_or_none(rbuf *page, uint64_t nrows, const char *none, const char *head, const rbuf *rows,
                          uint64_t more, const char *more_words)
{
    if (nrows)
        table(page, head, rows, more, more_words);
    else
        rb_puts(page, none);
}

static void groups_section(report_run *R, rbuf *b)
{
    if (!section(b, "<h2 id=\"groups\">Consumer groups</h2>\n", R->offsets_ran,
                 "no __consumer_offsets partition among the inputs"))
        return;
    rb_printf(b, "<p>%" PRIu64 " groups, %" PRIu64 " committed offsets replayed from %" PRIu64
                 " __consumer_offsets partition%s; %" PRIu64 " group%s with an offset out of range.</p>\n",
              R->sum->groups, R->offsets_rows, R->offsets_partitions, R->offsets_partitions == 1 ? "" : "s",
              R->sum->groups_out_of_range, R->sum->groups_out_of_range == 1 ? "" : "s");
    if (R->reset_csv.n && !R->reset_csv_cut) {
        rb_puts(b, "<p><a download=\"kfsck-reset-offsets.csv\" id=\"reset-csv\" href=\"data:text/csv;charset=utf-8,");
        rb_percent(b, R->reset_csv.p, R->reset_csv.n);
        rb_puts(b, "\">Download the committed offsets as a reset CSV</a> (group,topic,partition,offset: "
                   "<code>kafka-consumer-groups.sh --reset-offsets --from-file</code> reads it; the same as "
                   "<code>kfsck offsets --format reset-csv</code>). Check the rows below before restoring.</p>\n");
    } else if (R->reset_csv_cut) {
        rb_puts(b, "<p class=\"cut\">The reset CSV is too large to embed: <code>kfsck offsets --format reset-csv "
                   "PATH...</code> writes it.</p>\n");
    }
    table(b, "<th>group</th><th>kind</th><th>state</th><th>members</th><th>partitions</th><th>lag</th>"
             "<th>out of range</th><th>may be stale</th><th>expired</th><th>next expiry</th>",
          &R->groups, 0, "");
    if (R->group_rows.n || R->group_more) {
        rb_puts(b, "<h3>Committed offsets that need a look</h3>\n");
        table(b, "<th>group</th><th>partition</th><th>committed</th><th>log start</th><th>log end</th><th>lag</th>"
                 "<th>why</th>",
              &R->group_rows, R->group_more, "kfsck offsets lists them all");
    }
}

static int body(report_run *R, rbuf *b)
{
    rb_puts(b, "<h2 id=\"brokers\">Brokers: will each start, and what does it lose</h2>\n");
    if (!R->nbrokers)
        rb_puts(b, "<p class=\"meta\">No broker data dir among the inputs: scan, predict and replicas did not run "
                   "(give the data dirs, each entry of log.dirs, for them).</p>\n");
    for (size_t i = 0; i < R->nbrokers; i++)
        banner(b, &R->brokers[i]);
    int rc = flush(R, b);
    if (rc)
        return rc;
    rb_puts(b, "<h2 id=\"map\">Damage map</h2>\n");
    if (!R->map.n)
        rb_puts(b, "<p>No partition has anything to say: no damage, nothing cut, deleted or missing.</p>\n");
    else
        rb_puts(b, "<p>Each partition copy with something to say, most urgent first, on its own offset "
                   "scale.</p>\n");
    rmap_render(b, &R->map);
    if ((rc = flush(R, b)))
        return rc;
    if (section(b, "<h2 id=\"findings\">Partitions with findings</h2>\n", R->json[RJ_SCAN].used,
                "no broker data dir among the inputs"))
        table(b, "<th>partition</th><th>broker</th><th>errors</th><th>warnings</th><th>log end</th>"
                 "<th>log end after an unclean restart</th><th>first problems</th><th>directory</th>",
              &R->findings, R->findings_more, "kfsck scan lists them all");
    if (section(b, "<h2 id=\"elections\">Elections</h2>\n", R->replicas_ran, "fewer than two brokers among the inputs")) {
        rb_printf(b, "<p>%" PRIu64 " partitions compared across %zu brokers; %" PRIu64
                     " with no candidate that keeps every acknowledged offset, or diverged. The partitions where "
                     "the choice of leader matters:</p>\n",
                  R->replicas_partitions, R->nbrokers, R->replicas_at_risk);
        table(b, "<th>partition</th><th>replicas</th><th>high watermark</th><th>best candidate</th>"
                 "<th>each candidate</th><th>diverged</th>",
              &R->elections, R->election_more, "kfsck replicas lists them all");
    }
    if ((rc = flush(R, b)))
        return rc;
    groups_section(R, b);
    if (section(b, "<h2 id=\"txns\">Open and hanging transactions</h2>\n", R->txns_ran,
                "no data partition among the inputs"))
        table_or_none(b, R->txn_rows, "<p>No open transaction.</p>\n",
                      "<th>partition</th><th>producer / epoch</th><th>transactional id</th><th>coordinator</th>"
                      "<th>first offset</th><th>last offset</th><th>age</th><th>idle</th><th>state</th>"
                      "<th>to abort it</th>",
                      &R->txns, R->txn_more, "kfsck txns lists them all");
    if (section(b, "<h2 id=\"compaction\">Compaction</h2>\n", R->compaction_ran, "no partition among the inputs"))
        table_or_none(b, R->comp_rows, "<p>No compacted partition is pinned or has anything to clean.</p>\n",
                      "<th>partition</th><th>size</th><th>dirty ratio</th><th>would clean</th><th>first dirty</th>"
                      "<th>first uncleanable</th><th>held by</th><th>pinned by</th><th>reclaimable</th><th>keys</th>",
                      &R->compaction, R->comp_more, "kfsck compaction lists them all");
    if ((rc = flush(R, b)))
        return rc;
    section(b, "<h2 id=\"cluster\">The cluster, as its KRaft metadata describes it</h2>\n", R->metadata_ran,
            "no KRaft metadata log or snapshot among the inputs");
    rb_put(b, R->cluster.p, R->cluster.n);
    section(b, "<h2 id=\"stats\">Records per hour, per topic</h2>\n", R->stats_ran, "no partition among the inputs");
    rb_put(b, R->stats.p, R->stats.n);
    if (R->stats_more)
        rb_printf(b, "<p class=\"cut\">%" PRIu64 " more topics are not drawn: kfsck stats lists them all.</p>\n",
                  R->stats_more);
    if ((rc = flush(R, b)))
        return rc;
    if (R->problem_rows) {
        rb_puts(b, "<h2 id=\"problems\">Problems the other commands met</h2>\n");
        table(b, "<th>command</th><th>code</th><th>file</th><th>offset</th><th>what</th>", &R->problems,
              R->problem_more, "the embedded JSON and the commands list them all");
    }
    rb_puts(b, "<h2 id=\"json\">Each command's JSON</h2>\n<p>Every command's findings are in this file as the JSON "
               "lines of <code>kfsck COMMAND --json</code>, one <code>&lt;script type=\"application/json\" "
               "id=\"kfsck-COMMAND\"&gt;</code> each. To take them back out:</p>\n<pre>python3 -c 'import html.parser,"
               "sys\nclass P(html.parser.HTMLParser):\n def handle_starttag(s,t,a):s.on=dict(a).get(\"id\")==sys.argv[1]\n"
               " def handle_data(s,d):\n  if getattr(s,\"on\",0):print(d,end=\"\")\nP().feed(open(sys.argv[2]).read())' "
               "kfsck-scan kfsck-report.html</pre>\n<ul>");
    for (int i = 0; i < RJ_N; i++)
        if (R->json[i].used)
            rb_printf(b, "<li>kfsck-%s: %" PRIu64 " lines%s</li>", R->json[i].command, R->json[i].lines,
                      R->json[i].omitted ? " (some left out: the block says how many)" : "");
    rb_puts(b, "</ul>\n</main>\n");
    return flush(R, b);
}

int report_page_write(report_run *R, const char *title)
{
    rbuf b;
    rb_init(&b, SIZE_MAX);
    head(R, &b, title);
    int rc = flush(R, &b);
    if (rc == KF_OK)
        rc = body(R, &b);
    for (int i = 0; rc == KF_OK && i < RJ_N; i++) {
        if (!R->json[i].used)
            continue;
        jl_script(&b, &R->json[i]);
        rc = flush(R, &b);
    }
    if (rc == KF_OK) {
        rb_printf(&b, "<script>%s</script>\n</body>\n</html>\n", SCRIPT);
        rc = flush(R, &b);
    }
    rb_free(&b);
    return rc;
}
