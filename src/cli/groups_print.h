/* groups_print.h: one group of `kfsck groups` as a "group" JSON line: kind
 * and state, a classic group's metadata and members (the consumer
 * protocol's subscriptions and assignments decoded), a consumer, share or
 * streams group's epochs, group-level records and members with their
 * current and target assignments (topic ids named by kf_topic_names, the
 * group's own partition-metadata records first). Text mode renders the
 * same line (json_text.c). */
#ifndef KFSCK_CLI_GROUPS_PRINT_H
#define KFSCK_CLI_GROUPS_PRINT_H

#include "cli/out.h"
#include "kfsck/groups.h"
#include "kfsck/topic_names.h"

void groups_print(out *o, const kf_group *g, const kf_topic_names *ns);

#endif
