/* metadata_print.h: how `kfsck metadata` prints the image (kf_metadata):
 * one JSON line per object, or text; secret values, SCRAM salts and keys
 * and delegation-token ids redacted unless show_secrets. */
#ifndef KFSCK_CLI_METADATA_PRINT_H
#define KFSCK_CLI_METADATA_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/out.h"
#include "kfsck/metadata.h"

/* Every part of the image, one JSON line per object in the order kfsck(1) gives. */
/* The same as text, to f. */
void metadata_print_text(FILE *f, const kf_metadata *m, bool show_secrets);

#endif
