/* cs_macros.h: shorthand for writing the schema tables (coord_schema.c,
 * share_schema.c, kraft_schema.c, remote_schema.c) in the shape of
 * coord_internal.h. Included only by those table files. */
#ifndef KFSCK_CS_MACROS_H
#define KFSCK_CS_MACROS_H

#include <stddef.h>

#include "records/coord_internal.h"

#define X CS_VMAX

/* An untagged field: kind k (elements e, struct s) in versions vlo..vhi,
 * nullable in nlo..nhi (1, 0 = never), default d. */
#define FLD(n, k, e, s, vlo, vhi, nlo, nhi, d) { n, k, e, vlo, vhi, nlo, nhi, -1, 1, 0, d, s, 0 }
#define P(n, k, vlo, vhi) FLD(n, k, 0, NULL, vlo, vhi, 1, 0, 0)
#define PD(n, k, vlo, vhi, d) FLD(n, k, 0, NULL, vlo, vhi, 1, 0, d)
#define PN(n, k, vlo, vhi, nlo, nhi) FLD(n, k, 0, NULL, vlo, vhi, nlo, nhi, 0)
#define A(n, e, vlo, vhi) FLD(n, CS_ARRAY, e, NULL, vlo, vhi, 1, 0, 0)
#define AS(n, s, vlo, vhi) FLD(n, CS_ARRAY, CS_STRUCT, &s, vlo, vhi, 1, 0, 0)
#define ASN(n, s, vlo, vhi, nlo, nhi) FLD(n, CS_ARRAY, CS_STRUCT, &s, vlo, vhi, nlo, nhi, 0)
#define SN(n, s, vlo, vhi, nlo, nhi) FLD(n, CS_STRUCT, 0, &s, vlo, vhi, nlo, nhi, 0)
/* A tagged field with tag `tag`, present and tagged from version tlo on. */
#define TG(n, k, e, s, tag, tlo, nlo, nhi, d) { n, k, e, tlo, X, nlo, nhi, tag, tlo, X, d, s, 0 }
#define T(n, k, tag, tlo, d) TG(n, k, 0, NULL, tag, tlo, 1, 0, d)
#define TAN(n, e, tag, tlo) TG(n, CS_ARRAY, e, NULL, tag, tlo, tlo, X, 0)
#define TSN(n, s, tag, tlo) TG(n, CS_STRUCT, 0, &s, tag, tlo, tlo, X, 0)

#define STRUCT(id, nm) static const cs_struct id = { nm, id##_f, (uint16_t)(sizeof id##_f / sizeof id##_f[0]) }
#define MSG(id, nm, root, vlo, vhi, flex) static const cs_message id = { nm, &root, vlo, vhi, flex }
/* A secret field (CS_F_SECRET): untagged, kind k, in versions vlo..vhi. */
#define PSEC(n, k, vlo, vhi) { n, k, 0, vlo, vhi, 1, 0, -1, 1, 0, 0, NULL, CS_F_SECRET }

#endif
