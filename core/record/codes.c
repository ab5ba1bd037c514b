/*
 * codes.c - result code names and record errors (see codes.h).
 */
#include "codes.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const code_names[CAIRN_CODE_COUNT] = {
    [CAIRN_CODE_BAD_JSON] = "bad_json",
    [CAIRN_CODE_BAD_RECORD] = "bad_record",
    [CAIRN_CODE_UNKNOWN_VARIANT] = "unknown_variant",
    [CAIRN_CODE_INVALID_INPUT] = "invalid_input",
    [CAIRN_CODE_CONSTRAINT] = "constraint",
    [CAIRN_CODE_TOO_LARGE] = "too_large",
    [CAIRN_CODE_INTERNAL] = "internal",
};

const char *cairn_code_name(enum cairn_code code)
{
    return (unsigned)code < CAIRN_CODE_COUNT ? code_names[code] : "internal";
}

int cairn_rec_fail(struct cairn_rec_error *e, enum cairn_code code, const char *fmt, ...)
{
    va_list ap;

    e->code = code;
    e->out_of_memory = 0;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int cairn_rec_oom(struct cairn_rec_error *e, const char *fmt, ...)
{
    va_list ap;

    e->code = CAIRN_CODE_INTERNAL;
    e->out_of_memory = 1;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}
