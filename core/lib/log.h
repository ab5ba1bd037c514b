/*
 * log.h - one line per event, to stderr.  With JOURNAL_STREAM set (we run
 * under systemd) each line starts with a <N> syslog priority and carries no
 * timestamp (journald adds its own); otherwise a human-readable time.
 */
#ifndef CAIRN_LOG_H
#define CAIRN_LOG_H

enum cairn_log_level {
    CAIRN_LOG_ERROR = 3, /* syslog priorities, so they print as <N> */
    CAIRN_LOG_WARNING = 4,
    CAIRN_LOG_INFO = 6,
    CAIRN_LOG_DEBUG = 7
};

struct cairn_log {
    enum cairn_log_level level; /* lines above this are dropped */
    int journal;                /* stderr is connected to journald */
    int progress;               /* a progress line is on the terminal: clear it first */
    const char *program;        /* who speaks in each line: "cairnd" unless set */
};

void cairn_log_init(struct cairn_log *log, enum cairn_log_level level);
/* Lines name program (a static string) instead of "cairnd". */
void cairn_log_set_program(struct cairn_log *log, const char *program);
/* Lines above level are dropped from now on (a reload's log_level). */
void cairn_log_set_level(struct cairn_log *log, enum cairn_log_level level);
/* on: a live progress line is on the terminal, so each log line clears it
 * first (it is redrawn at its next tick). */
void cairn_log_set_progress(struct cairn_log *log, int on);
/* "error", "warning", "info", "debug" -> 0 and *out, else -EINVAL. */
int cairn_log_level_parse(const char *s, enum cairn_log_level *out);
void cairn_log(const struct cairn_log *log, enum cairn_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A command-line message before (or without) a log: "PROGRAM: text", no
 * time, and "<N>PROGRAM: text" when stderr is journald's, so a unit that
 * cannot start says why at the right priority (journalctl -p warning). */
void cairn_say(enum cairn_log_level level, const char *program, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* CAIRN_LOG_H */
