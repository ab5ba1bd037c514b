/*
 * names.c - names derived from a job's file name (see names.h).
 */
#include "names.h"

#include <limits.h>
#include <string.h>

#include "layout.h"
#include "util.h"

/* Bytes of a long name kept in its outputs' names: with "~", 16 hex
 * digits and ".results.jsonl", still well under NAME_MAX. */
#define OUTPUT_CUT 200

char *cairn_output_base(const char *file)
{
    size_t len = strlen(file), base_len, cut = OUTPUT_CUT;

    base_len = len >= strlen(CAIRN_JOB_SUFFIX) ? len - strlen(CAIRN_JOB_SUFFIX) : len;
    if (base_len + strlen(CAIRN_RESULTS_SUFFIX) <= NAME_MAX)
        return strndup(file, base_len);
    while (cut > 0 && ((unsigned char)file[cut] & 0xC0) == 0x80)
        cut--;
    return cairn_asprintf("%.*s~%016llx", (int)cut, file,
                          (unsigned long long)cairn_hash64(file, len));
}

char *cairn_attempts_file(const char *file)
{
    return cairn_asprintf(".cairn-attempts.%016llx",
                          (unsigned long long)cairn_hash64(file, strlen(file)));
}

char *cairn_active_record_file(const char *kind, const char *file)
{
    return cairn_asprintf(".cairn-%s.%016llx", kind,
                          (unsigned long long)cairn_hash64(file, strlen(file)));
}
