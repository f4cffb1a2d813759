/* cs_macros.h: shorthand for writing the schema tables (coord_schema.c,
 * share_schema.c, kraft_schema.c, remote_schema.c) in the shape of
 * coord_internal.h. Included only by those table files. */
#ifndef KFSCK_CS_MACROS_H
#define KFSCK_CS_MACROS_H

#include <stddef.h>

#include "records/coord_internal.h"

/* Struct id, Kafka's name nm, its fields in the notation of cs_parse_fields
 * (coord_internal.h), then the structs that notation names. */
#define STRUCT(id, nm, fields_spec, ...) \
    static cs_struct id = { .name = nm, .spec = fields_spec, .uses = { __VA_ARGS__ } }
/* Message id, Kafka's name nm, whose fields are those of struct root, in
 * versions vlo to vhi, flexible from version flex (-1: never). For a root
 * that other messages or structs share (or a message exported by name). */
#define MSG(id, nm, root, vlo, vhi, flex) static const cs_message id = { nm, &root, vlo, vhi, flex }
/* Message id, Kafka's name nm, in versions vlo to vhi, flexible from version
 * flex (-1: never), with a root struct of its own, id##_root, also named nm:
 * its fields in the notation of cs_parse_fields, then the structs that
 * notation names. */
#define MESSAGE(id, nm, vlo, vhi, flex, fields_spec, ...) \
    STRUCT(id##_root, nm, fields_spec, __VA_ARGS__);      \
    MSG(id, nm, id##_root, vlo, vhi, flex)

#endif
