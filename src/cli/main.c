/* main.c: kfsck's entry point: a table maps command names to functions
 * (one file per command, as git's builtin/). Every way out checks that
 * stdout was written (finish_stdout: exit 3 if not), and a command's, that
 * every codec library it needed could be loaded (exit 3 if not). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    {"dump", cmd_dump, "show what is in segment, index, snapshot and checkpoint files"},
    {"verify", cmd_verify, "find damage in segments, indexes and partitions"},
    {"offsets", cmd_offsets, "rebuild committed consumer offsets from __consumer_offsets"},
    {"groups", cmd_groups, "rebuild consumer group state from __consumer_offsets"},
    {"repair", cmd_repair, "write a repaired copy of a segment or partition"},
    {"merge", cmd_merge, "rebuild one partition from several damaged copies"},
    {"scan", cmd_scan, "inventory and health of whole broker data directories"},
    {"stats", cmd_stats, "records and bytes per time bucket, and timestamp disorder"},
    {"txns", cmd_txns, "open, hanging and aborted transactions"},
    {"metadata", cmd_metadata, "the cluster as its KRaft metadata log describes it"},
    {"predict", cmd_predict, "what a broker will do with its log dirs when it starts now"},
    {"compaction", cmd_compaction, "why a compacted partition does not shrink, what cleaning frees"},
    {"replicas", cmd_replicas, "compare a partition's copies across brokers before an election"},
    {"remote", cmd_remote, "tiered storage: offsets in neither tier, stuck uploads, orphans"},
    {"report", cmd_report, "one self-contained HTML file of everything above, to share in an incident"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: kfsck COMMAND [OPTIONS] PATH...\n\n"
               "Reads Apache Kafka's on-disk data with no broker running. Inputs are\n"
               "opened read-only and never modified.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "\n'kfsck COMMAND --help' shows a command's options.\n"
               "exit codes: 0 nothing wrong, 1 damage found, 2 usage error, 3 could not do the job\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return finish_stdout(EXIT_CLEAN);
    }
    if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
        printf("kfsck %s (crc32c: %s)\n", KFSCK_VERSION, kf_crc32c_impl());
        return finish_stdout(EXIT_CLEAN);
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(name, COMMANDS[i].name)) {
            int status = COMMANDS[i].fn(argc - 1, argv + 1);
            /* a codec library that could not be loaded (kf_codec_load_error):
             * the run's findings about those batches are the installation's
             * fault, not the data's, so the job was not done */
            const char *lib = kf_codec_load_error();
            if (lib) {
                cli_error("snappy", "%s", lib);
                status = EXIT_FAIL;
            }
            return finish_stdout(status);
        }
    fprintf(stderr, "kfsck: unknown command '%s'\n", name);
    usage(stderr);
    return EXIT_USAGE;
}
