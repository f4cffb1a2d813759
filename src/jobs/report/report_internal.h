/* report_internal.h: the pieces of the report job (report.h) and what they
 * share: the bounded text buffers every part of the page is built in, the
 * escapes for each place text from the data goes (report_out.c), where
 * each command's JSON lines are kept (report_json.c), the partitions the
 * damage map draws (report_map.c), the sections (report_sections.c) and
 * the page (report_page.c). report.c runs the drivers and feeds them all. */
#ifndef KFSCK_REPORT_INTERNAL_H
#define KFSCK_REPORT_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/compaction.h"
#include "kfsck/metadata.h"
#include "kfsck/offsets_job.h"
#include "kfsck/predict.h"
#include "kfsck/remote.h"
#include "kfsck/replicas.h"
#include "kfsck/report.h"
#include "kfsck/scan.h"
#include "kfsck/stats.h"
#include "kfsck/txns.h"
#include "kfsck/sys/json_lines.h"

/* ---- bounded buffers (report_out.c) ------------------------------------------ */

/* Text built in memory up to limit bytes: what goes past it is dropped and
 * counted (a part of the page never grows with the inputs). oom: an
 * allocation failed (the run ends with KF_ERR_NOMEM). */
typedef struct rbuf {
    char *p;
    size_t n, cap, limit;
    bool oom;
} rbuf;

void rb_init(rbuf *b, size_t limit);
void rb_free(rbuf *b);
void rb_put(rbuf *b, const void *p, size_t n);
void rb_puts(rbuf *b, const char *s);
void rb_printf(rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether n more bytes fit under the limit. */
bool rb_room(const rbuf *b, size_t n);

/* Text from the data into HTML text or a quoted attribute value (the same
 * escape serves both, SVG's text and <title> too): & < > " ' as entities;
 * bytes that are not valid UTF-8, control characters and the characters
 * that reorder text (bidirectional overrides, U+2028/2029) as visible
 * \xNN or \u{NNNN}, so a name shows what its bytes are. */
void rb_text(rbuf *b, const char *s);
void rb_textn(rbuf *b, const char *s, size_t n);
/* Bytes percent-encoded for a data: URL (all but A-Z a-z 0-9 - . _ ~). */
void rb_percent(rbuf *b, const char *s, size_t n);

/* Numbers for people: 1234567 as "1,234,567"; bytes as "25.0 MiB" (a
 * duration: kf_format_duration; a time: kf_format_time). */
void fmt_count(int64_t v, char *buf, size_t n);
void fmt_size(uint64_t v, char *buf, size_t n);

/* ---- JSON lines (report_json.c) ------------------------------------------------
 *
 * A command's JSON output, line by line as `kfsck CMD --json` prints it
 * (each job's builders write them into w), into the page's <script
 * type="application/json" id="kfsck-CMD">. A command's lines share a byte
 * budget: past it a line is counted, not kept, except the closing summary
 * lines (kf_jsonl_end_summary), and the block ends with an "omitted" line
 * saying how many were left out. */
typedef struct jlines {
    const char *command;    /* "scan", "predict", ... */
    rbuf out;               /* the kept lines */
    kf_jsonl w;             /* the lines are written with it (kfsck/sys/json_lines.h) */
    uint64_t lines, omitted, omitted_bytes;
    bool used;              /* the command ran */
} jlines;

void jl_init(jlines *j, const char *command, size_t budget);
void jl_free(jlines *j);
/* The <script> element of a command's lines, into the page. */
void jl_script(rbuf *page, const jlines *j);

/* ---- the damage map (report_map.c) -------------------------------------------- */

#define RMAP_MARKS 12       /* damage marks kept per partition */
#define RMAP_DELETES 24     /* retention deletes kept per partition */

typedef struct rmap_mark {
    bool has_offset;
    int64_t offset;
    uint64_t position;
    char code[40];
    char file[160];         /* the segment's base name */
    bool kept;              /* predict: damage the broker keeps and serves */
} rmap_mark;

/* One copy of a partition the map may draw. */
typedef struct rmap_part {
    char *dir, *datadir, *topic;
    int32_t partition;
    bool has_broker;
    int32_t broker;
    double score;           /* urgency: the map draws the highest first */
    /* scan */
    bool scanned;
    uint64_t errors, warnings;
    kf_partition_summary log;
    kf_partition_checkpoints checkpoints;
    bool has_recovery_end;
    int64_t recovery_end;
    rmap_mark marks[RMAP_MARKS];
    size_t nmarks;
    uint64_t more_marks;
    /* predict */
    bool predicted;
    const char *state;
    int64_t log_start_after, end_before, end_after, offsets_lost, acknowledged_lost, acknowledged_missing;
    bool has_hw;
    int64_t hw;
    int64_t deletes[RMAP_DELETES];  /* base offsets of the segments retention deletes */
    size_t ndeletes;
    uint64_t more_deletes;
    bool has_cut;
    int64_t cut_offset;     /* truncate_segment: the next offset after the cut */
    char cut_file[160];
    uint64_t cut_position;
    /* remote */
    bool has_remote;
    int64_t remote_start, remote_end;   /* end inclusive */
    uint64_t offsets_in_no_tier;
} rmap_part;

/* The partitions with something to say, the most urgent kept when there
 * are more than the map draws; the others are counted. */
typedef struct rmap {
    rmap_part **parts;
    size_t n, cap;
    uint64_t seen;          /* partitions with something to say, whatever was kept */
    uint64_t dropped;       /* of those, not drawn */
    bool oom;
} rmap;

void rmap_init(rmap *m, size_t cap);
void rmap_free(rmap *m);
/* The entry of a partition copy (by its dir), made with the given score
 * when it is not there; NULL when it is neither there nor urgent enough to
 * replace the least urgent one kept (it is then counted). */
rmap_part *rmap_get(rmap *m, const kf_partition_ref *id, double score);
rmap_part *rmap_find(rmap *m, const char *dir);
void rmap_scan(rmap *m, const kf_datadir_partition *p);
void rmap_predict(rmap *m, const kf_predict_partition *p);
void rmap_predict_action(rmap *m, const kf_predict_action *a);
void rmap_remote(rmap *m, const kf_remote_partition *p);
/* The map's section: each partition's bar and its figures, most urgent first. */
void rmap_render(rbuf *b, rmap *m);

/* ---- the whole run's state (report.c, report_sections.c, report_page.c) ------- */

typedef struct rbroker {
    bool has_id;
    int32_t id;
    char **dirs;            /* its data dirs (pointing into the PATHs or the walk's copies) */
    size_t ndirs;
    /* predict's verdict */
    bool predicted;
    kf_predict_summary sum;
    int64_t acknowledged_missing;
    uint64_t damage_kept, groups_affected, harmed, dirs_offline, routine;
    bool stops, clean_shutdown_all;
    char first_fatal[240];
    char harmed_names[400]; /* the partitions named first */
    double recovery_seconds;
    /* scan's */
    uint64_t partitions, errors, warnings, damaged_partitions;
} rbroker;

enum { RJ_SCAN, RJ_PREDICT, RJ_REPLICAS, RJ_OFFSETS, RJ_TXNS, RJ_COMPACTION, RJ_METADATA, RJ_REMOTE, RJ_STATS, RJ_N };

typedef struct report_run {
    const kf_report_opts *o;
    kf_report_summary *sum;
    rbroker *brokers;
    size_t nbrokers;
    char **datadirs;        /* every data dir PATH, in order */
    size_t ndatadirs;
    jlines json[RJ_N];
    rmap map;
    /* sections built as the drivers run (report_sections.c) */
    rbuf findings;          /* a row per partition with something to say */
    uint64_t findings_rows, findings_more;
    rbuf elections, groups, group_rows, txns, compaction, cluster, stats, problems;
    uint64_t election_rows, election_more, group_more, txn_rows, txn_more, comp_rows, comp_more, stats_topics,
        stats_more, problem_rows, problem_more;
    rbuf reset_csv;         /* offsets --format reset-csv, for the data: link */
    bool reset_csv_cut;
    uint64_t replicas_partitions, replicas_at_risk;
    bool replicas_ran, offsets_ran, txns_ran, compaction_ran, metadata_ran, remote_ran, stats_ran;
    kf_stats_group *stats_sums; /* stats: each group's sums, its summary line written after every bucket */
    size_t nstats_sums, stats_sums_cap;
    bool stats_oom;
    uint64_t offsets_rows, offsets_partitions;
    uint64_t scan_errors, scan_warnings;
    const char *current_datadir;  /* scan: the data dir being scanned */
    bool found;             /* a data dir, a partition or the KRaft metadata among the PATHs */
    int status;
} report_run;

/* Sections (report_sections.c): fed by the drivers' callbacks. */
void rs_finding_row(report_run *R, const kf_datadir_partition *p);
void rs_election(report_run *R, const kf_replica_partition *p);
void rs_offsets(report_run *R, kf_offsets_job *j, const kf_offsets_row *rows, size_t n);
void rs_txn_open(report_run *R, const kf_partition *p, const kf_txn_report *r);
void rs_compaction(report_run *R, const kf_compaction_result *r);
void rs_cluster(report_run *R, const kf_metadata *m);
void rs_stats_group(report_run *R, const kf_stats_group *g, const kf_tbucket *b, size_t n);
void rs_problem(report_run *R, const char *command, const kf_problem *p, const char *file);

/* The page (report_page.c): every part, in order, through the writer. */
int report_page_write(report_run *R, const char *title);

#endif
