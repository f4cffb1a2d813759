/* scan_prom.h: `kfsck scan --format prometheus` (scan_prom.c): the health of
 * the scanned data dirs in the Prometheus text exposition format, for
 * node_exporter's textfile collector. cmd_scan.c hands the scan's callbacks
 * to these and calls scan_prom_finish after the last data dir. */
#ifndef KFSCK_CLI_SCAN_PROM_H
#define KFSCK_CLI_SCAN_PROM_H

#include <stdio.h>

#include "kfsck/kfsck.h"

typedef struct scan_prom scan_prom;

/* A collector; the scan's duration counts from here. Exits on out of memory. */
scan_prom *scan_prom_new(void);
/* kf_datadir_scan_opts.partition_fn and .problem_fn (ctx: the scan_prom):
 * a partition's figures are kept for the metrics, every problem goes to
 * stderr as the text mode prints it. */
void scan_prom_partition(void *ctx, const kf_datadir_partition *p);
void scan_prom_dir_problem(void *ctx, const kf_problem *p);
/* Prints the metrics to f (HELP and TYPE, then each family's samples) and
 * frees sp. */
void scan_prom_finish(scan_prom *sp, FILE *f, const kf_datadir_totals *tot);

#endif
