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
    log->program = "cairnd";
}

void cairn_log_set_program(struct cairn_log *log, const char *program)
{
    log->program = program;
}

void cairn_log_set_level(struct cairn_log *log, enum cairn_log_level level)
{
    log->level = level;
}

void cairn_log_set_progress(struct cairn_log *log, int on)
{
    log->progress = on;
}

int cairn_log_level_parse(const char *s, enum cairn_log_level *out)
{
    static const struct {
        const char *name;
        enum cairn_log_level level;
    } names[] = { { "error", CAIRN_LOG_ERROR },
                  { "warning", CAIRN_LOG_WARNING },
                  { "info", CAIRN_LOG_INFO },
                  { "debug", CAIRN_LOG_DEBUG } };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].level;
            return 0;
        }
    return -EINVAL;
}

/* Copies the message into out (cap bytes, room for the newline kept) with
 * control bytes as \xNN: a job name holding "\n<0>" must not start a
 * forged emergency entry in the journal, nor a fake line in a file.
 * Returns the bytes written. */
static size_t escape_controls(char *out, size_t cap, const char *msg)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;

    for (; *msg != '\0' && n + 4 < cap; msg++) {
        unsigned char c = (unsigned char)*msg;
        if (c < 0x20 || c == 0x7f) {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        } else {
            out[n++] = (char)c;
        }
    }
    return n;
}

void cairn_log(const struct cairn_log *log, enum cairn_log_level level, const char *fmt, ...)
{
    static const char *const tags[8] = { "", "", "", "error", "warning", "", "info", "debug" };
    char line[2048], msg[1024];
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
        n += snprintf(line + n, sizeof(line) - (size_t)n, ".%03ldZ %s %s: ", ts.tv_nsec / 1000000,
                      log->program != NULL ? log->program : "cairnd", tags[level & 7]);
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(line) - 1)
        n = (int)sizeof(line) - 2;
    n += (int)escape_controls(line + n, sizeof(line) - 1 - (size_t)n, msg);
    line[n++] = '\n';
    /* One write per line, so concurrent writers never interleave mid-line. */
    fwrite(line, 1, (size_t)n, stderr);
    fflush(stderr);
}

void cairn_say(enum cairn_log_level level, const char *program, const char *fmt, ...)
{
    char line[2048], msg[1024];
    int n = 0;
    va_list ap;

    if (stderr_is_journal())
        n = snprintf(line, sizeof(line), "<%d>", (int)level);
    n += snprintf(line + n, sizeof(line) - (size_t)n, "%.64s: ", program);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    n += (int)escape_controls(line + n, sizeof(line) - 1 - (size_t)n, msg);
    line[n++] = '\n';
    fwrite(line, 1, (size_t)n, stderr);
    fflush(stderr);
}
