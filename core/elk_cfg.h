/* Schema-driven loading of libconfig files (chips, models, sweeps).
 *
 * A schema is a table of elk_field rows describing where each setting lands
 * in a flat C struct. The loader rejects unknown settings (a typo must never
 * be silently ignored), reports missing required ones, type-checks and
 * range-checks every value, and names file:line in every message.
 * libconfig 1.5 has no _safe getters, so all access goes through here. */
#ifndef ELK_CFG_H
#define ELK_CFG_H

#include <stddef.h>
#include <libconfig.h>

#include "elk_status.h"

typedef enum {
    ELK_F_INT,    /* stored as int */
    ELK_F_DOUBLE, /* stored as double; integer literals accepted */
    ELK_F_BOOL,   /* stored as int 0/1 */
    ELK_F_STRING, /* stored in a char[size] */
    ELK_F_ENUM,   /* a string from names[], stored as its int index */
    ELK_F_GROUP,  /* a nested group; its fields land in the same struct */
    ELK_F_END
} elk_field_type;

/* One row of a schema. For GROUP rows, sub points to the nested schema.
 * Invariant: a schema ends with a row of type ELK_F_END. */
typedef struct elk_field {
    const char *name;
    elk_field_type type;
    int required;
    double min, max;           /* inclusive range for INT and DOUBLE */
    size_t offset;             /* where the value lands in the struct */
    size_t size;               /* buffer size for STRING */
    const char *const *names;  /* NULL-terminated list for ENUM */
    const char *unit;          /* shown in range errors, may be NULL */
    const struct elk_field *sub;
} elk_field;

#define ELK_FIELD_END { NULL, ELK_F_END, 0, 0, 0, 0, 0, NULL, NULL, NULL }

/* Cross-field checks run while the file is still open, so they can name the
 * line of the setting they complain about. */
typedef elk_status (*elk_cfg_check_fn)(const config_setting_t *root,
                                       const char *file, void *dst,
                                       elk_error *err);

/* config_init cfg and parse path into it, the one way every libconfig file
 * is read. Refuses what libconfig 1.5 cannot survive: path and every
 * @include target (recursively, resolved as libconfig resolves them) must
 * be readable regular files, else "FILE:LINE: @include \"x\": is a
 * directory" and the like. Syntax errors name the file (an included one if
 * the error is there) and line. On error cfg is already destroyed. */
elk_status elk_cfg_read(config_t *cfg, const char *path, elk_error *err);

/* Parse path, require a top-level group named root_name (and nothing else),
 * then apply schema into dst. dst must already hold defaults for optional
 * fields. */
elk_status elk_cfg_load(const char *path, const char *root_name,
                        const elk_field *schema, void *dst,
                        elk_cfg_check_fn check, elk_error *err);

/* Apply a schema to an already-open group (used by sweeps). prefix is the
 * dotted path shown in messages. */
elk_status elk_cfg_apply(const config_setting_t *group, const char *file,
                         const char *prefix, const elk_field *schema,
                         void *dst, elk_error *err);

/* Line of a setting found by dotted path under root, or the root's line. */
int elk_cfg_line(const config_setting_t *root, const char *path);

/* Which top-level group a file holds ("chip", "model", "sweep"), for
 * `elk validate`. Returns ELK_OK and fills kind (size n). */
elk_status elk_cfg_peek_kind(const char *path, char *kind, size_t n,
                             elk_error *err);

/* For loaders that walk a group themselves (a sweep, a point file): a
 * setting type in words ("an integer", "a group { ... }"), whether a setting
 * is a number and its value, and a type check whose error names file:line
 * and the path. */
const char *elk_cfg_type_name(int type);
int elk_cfg_is_num(const config_setting_t *s);
double elk_cfg_num(const config_setting_t *s);
elk_status elk_cfg_expect(const char *file, elk_error *err, const config_setting_t *s, const char *path, int t1, int t2,
                          const char *what);

#endif
