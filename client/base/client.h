/*
 * client.h - what the parts of the `cairn` command share: the settled
 * configuration, the spool and output directories, the message main()
 * prints, and small helpers for job names and times.
 *
 * Every function returns 0 or a negative errno; one that fails for a
 * reason the user should read first stores it with cairn_client_fail(), and
 * main() prints it and picks the exit code.
 */
#ifndef CAIRN_CLIENT_H
#define CAIRN_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "config.h"
#include "util.h"

struct cairn_client {
    struct cairn_config cfg;
    const char *config_file; /* the file read, or NULL (built-in defaults) */
    const char *in_origin;   /* where input_dir came from, for messages */
    const char *out_origin;  /* where output_dir came from */
    int in_fd;               /* the input directory once opened, else -1 */
    int out_fd;              /* the output directory once opened, else -1 */
    char *msg;               /* why the last call failed, for main() */
};

/* Stores the message (formatted) and returns rc (a negative errno). */
int cairn_client_fail(struct cairn_client *cl, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void cairn_client_close(struct cairn_client *cl);

/* ---- the spool (spooldir.c) ------------------------------------------- */

/*
 * NAME     cairn_client_open_input - open input_dir
 * ARGUMENTS write: the command will create or rename files there
 * RETURNS  0; -ENOENT/-ENOTDIR/-EACCES... with a message naming the
 *          directory and where its path came from; -EINVAL when no
 *          input_dir is configured
 */
int cairn_client_open_input(struct cairn_client *cl, int write);
/* The same for output_dir (never created: that is the daemon's job). */
int cairn_client_open_output(struct cairn_client *cl);

/* INPUT/.cairn/<sub> ("active", "done", "failed", "status") opened for
 * reading; -ENOENT when the daemon has not made it yet. */
int cairn_client_state_dir(struct cairn_client *cl, const char *sub);

/*
 * NAME     cairn_client_open_kept_input - a finished job's input file
 * ARGUMENTS in_fd: the input directory; file: NAME.jsonl
 * RETURNS  a descriptor open for reading, or a negative errno (-ENOENT:
 *          not kept)
 * NOTES    cairnd publishes the summary before it moves the input from
 *          .cairn/active/ to .cairn/done/, so just after a summary appears
 *          the input is still in active/.  A rename is atomic, so looking
 *          in done/, then active/, then done/ again finds it wherever it
 *          is.
 */
int cairn_client_open_kept_input(int in_fd, const char *file);

/* A job named on the command line: "NAME.jsonl" is a file name, anything
 * else a job name.  Sets *file ("NAME.jsonl") and *base ("NAME"), both
 * malloc'd; -EINVAL (with a message) for a name the spool never takes. */
int cairn_client_job_names(struct cairn_client *cl, const char *arg, char **file, char **base);

/* Where a job is now: each flag set when the file is there. */
struct cairn_where {
    int waiting; /* INPUT/NAME.jsonl */
    int active;  /* .cairn/active/NAME.jsonl */
    int done;    /* .cairn/done/NAME.jsonl */
    int failed;  /* .cairn/failed/NAME.jsonl */
    int summary; /* OUTPUT/<out base>.summary.json (needs out_fd) */
};
int cairn_client_locate(struct cairn_client *cl, const char *file, struct cairn_where *w);

/* Calls fn for every entry of dir_fd whose name ends in suffix and is
 * longer than it (dot-files skipped; any file type: the daemon takes a
 * link or FIFO named like a job too, to fail it).  0, or fn's non-zero return, or -errno. */
int cairn_client_each_file(int dir_fd, const char *suffix, int (*fn)(void *data, const char *name),
                           void *data);

/* ---- small helpers (common.c) ------------------------------------------ */

/* The reverse of cairn_name_escape() (util.h): "\\" -> "\", "\xNN" ->
 * the byte.  malloc'd, or NULL when out of memory or malformed. */
char *cairn_client_unescape(const char *s);

/* Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fff]Z"; -1 when s is
 * not that. */
double cairn_client_parse_time(const char *s);

/* "12.3 KiB" and the like into out. */
void cairn_client_bytes(uint64_t n, char out[32]);

/* Reads one line (its '\n' included) into *line, growing it; the length,
 * 0 at the end, or a negative errno. */
ssize_t cairn_client_getline(FILE *f, char **line, size_t *cap);

/* Printable copies (cairn_text_printable, util.h) of what one piece of
 * output shows: up to CAIRN_SHOWN_SLOTS live at once, the oldest reused.
 * Names, ids and reasons come from file names and files anyone may
 * write; they reach the terminal through here. */
#define CAIRN_SHOWN_SLOTS 8
struct cairn_shown {
    char *slot[CAIRN_SHOWN_SLOTS];
    unsigned next;
};
/* NULL for NULL; "(out of memory)" when a copy cannot be made. */
const char *cairn_shown(struct cairn_shown *s, const char *text);
void cairn_shown_free(struct cairn_shown *s);

/* ---- JSON lines (jsonl.c) -------------------------------------------- */

/*
 * NAME     cairn_client_check_line - is this a line a job file may hold?
 * RETURNS  1 when blank (skipped by the daemon), 0 when a JSON object,
 *          -EINVAL with why (a message: "column 3: ...") otherwise;
 *          -ENOMEM with why when memory ran out
 * NOTES    memory: a few bytes per object key, nothing per value
 *          (jsonscan.h), whatever the line holds
 */
int cairn_client_check_line(const char *line, size_t len, char *why, size_t why_size);

/* The bytes of a UTF-8 byte order mark opening line `no` (3 on line 1 when
 * it starts with one, else 0): cairnd skips it there (linecut.c), so the
 * client does too. */
static inline size_t cairn_client_bom(const char *line, size_t len, unsigned long long no)
{
    return no == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

#endif /* CAIRN_CLIENT_H */
