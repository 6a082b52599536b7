/* Status codes and the error record every fallible core call fills in.
 *
 * Like tig's status X-macro, each code carries its default message; the
 * elk_error record adds the precise where and what (file:line, field, value)
 * so that the CLI can print one line a user can act on. */
#ifndef ELK_STATUS_H
#define ELK_STATUS_H

#include <stdarg.h>

#define ELK_STATUS_LIST(_)                                                   \
    _(OK, "success")                                                         \
    _(EIO, "cannot read or write file")                                      \
    _(EPARSE, "syntax error")                                                \
    _(EFIELD, "invalid field")                                               \
    _(EMISSING, "missing required field")                                    \
    _(EUNKNOWN, "unknown field")                                             \
    _(ERANGE, "value out of range")                                          \
    _(EINVAL, "invalid argument")                                            \
    _(ENOMEM, "out of memory")                                               \
    _(ENOPLAN, "no partition plan fits in SRAM")                             \
    _(ECANCEL, "cancelled")                                                  \
    _(ETOOL, "external tool failed")

typedef enum {
#define ELK_STATUS_ENUM(name, msg) ELK_##name,
    ELK_STATUS_LIST(ELK_STATUS_ENUM)
#undef ELK_STATUS_ENUM
    ELK_STATUS_COUNT
} elk_status;

/* One error: the code and a full human-readable message.
 * Invariant: msg is always NUL-terminated; empty when code == ELK_OK. */
typedef struct {
    elk_status code;
    char msg[512];
} elk_error;

const char *elk_status_str(elk_status s);

/* Record an error (printf-style) and return its code, so callers can write
 * `return elk_fail(err, ELK_ERANGE, "...")`. err may be NULL. */
elk_status elk_fail(elk_error *err, elk_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
elk_status elk_vfail(elk_error *err, elk_status code, const char *fmt, va_list ap);
void elk_error_clear(elk_error *err);

/* The one error macro: propagate a non-OK status. */
#define ELK_TRY(expr)                                                        \
    do {                                                                     \
        elk_status elk_try_s_ = (expr);                                      \
        if (elk_try_s_ != ELK_OK) return elk_try_s_;                         \
    } while (0)

#endif
