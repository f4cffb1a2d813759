/* kraft_names.c: the metadata image `offsets` and `groups` take topic names
 * and ids from (kraft_names.h). */
#include "cli/kraft_names.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/walk.h"

kf_metadata *kraft_image_of(char *const *paths, int n, uint64_t max_batch_bytes)
{
    kf_kraft_inputs ki;
    kf_metadata *m = NULL;
    int rc = kf_kraft_inputs_collect(&ki, paths, (size_t)n, NULL, NULL);
    if (rc != KF_ERR_NOMEM && kf_kraft_inputs_found(&ki)) {
        kf_metadata_opts mo;
        kf_metadata_opts_init(&mo);
        mo.max_batch_bytes = (size_t)max_batch_bytes;
        rc = kf_metadata_build(&m, &ki, &mo);
    }
    kf_kraft_inputs_free(&ki);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    return m;
}
