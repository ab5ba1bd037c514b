/*
 * log.c - stderr logging, journald-aware.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* JOURNAL_STREAM is "DEV:INO" of the journal socket; it only counts when
 * stderr is still that socket (a redirect inherits the variable). */
static int stderr_is_journal(void)
{
    const char *js = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;

    if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
        return 0;
    if (fstat(2, &st) != 0)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void cairn_log_init(struct cairn_log *log, enum cairn_log_level level)
{
    log->level = level;
    log->journal = stderr_is_journal();
    log->progress = 0;
}

int cairn_log_level_parse(const char *s, enum cairn_log_level *out)
{
    static const struct {
        const char *name;
        enum cairn_log_level level;
    } names[] = {{"error", CAIRN_LOG_ERROR},
                 {"warning", CAIRN_LOG_WARNING},
                 {"info", CAIRN_LOG_INFO},
                 {"debug", CAIRN_LOG_DEBUG}};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].level;
            return 0;
        }
    return -EINVAL;
}

void cairn_log(const struct cairn_log *log, enum cairn_log_level level, const char *fmt, ...)
{
    static const char *const tags[8] = {"", "", "", "error", "warning", "", "info", "debug"};
    char line[2048];
    int n = 0;
    va_list ap;

    if (level > log->level)
        return;
    if (log->progress)
        n = snprintf(line, sizeof(line), "\r\033[K");
    if (log->journal) {
        n += snprintf(line + n, sizeof(line) - (size_t)n, "<%d>", (int)level);
    } else {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        n += (int)strftime(line + n, sizeof(line) - (size_t)n, "%Y-%m-%dT%H:%M:%S", &tm);
        n += snprintf(line + n, sizeof(line) - (size_t)n, ".%03ldZ cairnd %s: ",
                      ts.tv_nsec / 1000000, tags[level & 7]);
    }
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(line) - 1)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* One write per line, so concurrent writers never interleave mid-line. */
    fwrite(line, 1, (size_t)n, stderr);
    fflush(stderr);
}
