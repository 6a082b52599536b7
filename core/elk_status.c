#include "elk_status.h"

#include <stdio.h>
#include <string.h>

static const char *const status_msgs[] = {
#define ELK_STATUS_MSG(name, msg) msg,
    ELK_STATUS_LIST(ELK_STATUS_MSG)
#undef ELK_STATUS_MSG
};

const char *elk_status_str(elk_status s)
{
    if ((int)s < 0 || s >= ELK_STATUS_COUNT) return "unknown status";
    return status_msgs[s];
}

elk_status elk_vfail(elk_error *err, elk_status code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

elk_status elk_fail(elk_error *err, elk_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    elk_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void elk_error_clear(elk_error *err)
{
    if (!err) return;
    err->code = ELK_OK;
    err->msg[0] = '\0';
}
