/*
 * names.c - names derived from a job's file name (see names.h).
 */
#include "names.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "util.h"

/* Bytes of a long name kept in its outputs' names: with "~", 16 hex
 * digits and ".results.jsonl", still well under NAME_MAX. */
#define OUTPUT_CUT 200

char *cairn_output_base(const char *file)
{
    size_t len = strlen(file), base_len, cut;

    base_len = len >= strlen(CAIRN_JOB_SUFFIX) ? len - strlen(CAIRN_JOB_SUFFIX) : len;
    if (base_len + strlen(CAIRN_RESULTS_SUFFIX) <= NAME_MAX)
        return strndup(file, base_len);
    cut = cairn_utf8_cut(file, OUTPUT_CUT);
    return cairn_asprintf("%.*s~%016llx", (int)cut, file,
                          (unsigned long long)cairn_hash64(file, len));
}

char *cairn_output_name(const char *base, const char *suffix)
{
    return cairn_asprintf("%s%s", base, suffix);
}

char *cairn_job_file_name(const char *base)
{
    return cairn_output_name(base, CAIRN_JOB_SUFFIX);
}

int cairn_state_path(char *buf, size_t size, const char *sub)
{
    int n = snprintf(buf, size, CAIRN_STATE_DIR "/%s", sub);

    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

char *cairn_attempts_file(const char *file)
{
    return cairn_active_record_file(CAIRN_RECORD_ATTEMPTS, file);
}

char *cairn_active_record_file(const char *kind, const char *file)
{
    return cairn_asprintf(CAIRN_RECORD_PREFIX "%s.%016llx", kind,
                          (unsigned long long)cairn_hash64(file, strlen(file)));
}

char *cairn_run_name(const char *name, unsigned n)
{
    size_t len = strlen(name), base_len, keep;
    char tail[32];

    base_len = len >= strlen(CAIRN_JOB_SUFFIX) ? len - strlen(CAIRN_JOB_SUFFIX) : len;
    snprintf(tail, sizeof(tail), CAIRN_RUN_MARK "%u" CAIRN_JOB_SUFFIX, n);
    keep = base_len;
    if (keep + strlen(tail) > NAME_MAX)
        keep = cairn_utf8_cut(name, NAME_MAX - strlen(tail));
    return cairn_asprintf("%.*s%s", (int)keep, name, tail);
}
