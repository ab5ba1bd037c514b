/*
 * util.h - small helpers every part of the core uses: formatted allocation
 * and a growable byte buffer.
 */
#ifndef CAIRN_UTIL_H
#define CAIRN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

char *cairn_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *cairn_vasprintf(const char *fmt, va_list ap);
/* Formats a refusal's reason into why[0, why_len) and returns -EINVAL, for
 * "return cairn_refuse(why, why_len, ...)". */
int cairn_refuse(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* _exit(status): leaves without atexit handlers, stdio buffers or joining
 * threads.  In a coverage build (-Db_coverage=true) it first writes the
 * process's gcov counts, which _exit would otherwise throw away: the runs
 * that end this way (a hung plugin, an abandoned run, a probe child) are
 * then measured like any other. */
void cairn_exit_now(int status) __attribute__((noreturn));

/* A growable buffer.  Zero-initialise; functions return 0 or -ENOMEM and
 * leave the contents intact on failure. */
struct cairn_buf {
    char *data;
    size_t len;
    size_t cap;
};

int cairn_buf_reserve(struct cairn_buf *b, size_t extra);
/* cairn_buf_append() when the bytes do not fit: grows, then appends. */
int cairn_buf_append_grow(struct cairn_buf *b, const void *p, size_t n);

/* Inline because rendering a result line is a dozen small appends, most
 * of literals: the room check and a copy of known size, without a call
 * (or a strlen) for each. */
static inline int cairn_buf_append(struct cairn_buf *b, const void *p, size_t n)
{
    if (n > b->cap - b->len)
        return cairn_buf_append_grow(b, p, n);
    if (n > 0) /* data may be NULL while cap is 0 */
        memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static inline int cairn_buf_puts(struct cairn_buf *b, const char *s)
{
    return cairn_buf_append(b, s, strlen(s));
}

int cairn_buf_printf(struct cairn_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int cairn_buf_int(struct cairn_buf *b, int64_t v);
/* Appends s (n bytes) as a quoted JSON string; bytes that are not valid
 * UTF-8 become U+FFFD, so the output is always valid JSON. */
int cairn_buf_json_string(struct cairn_buf *b, const char *s, size_t n);
void cairn_buf_free(struct cairn_buf *b);

/* write(2) until all n bytes are out (EINTR and EAGAIN handled).
 * Returns 0 or a negative errno. */
int cairn_write_all(int fd, const void *buf, size_t n);

/* A file name as text for JSON and logs, injectively: valid UTF-8 is kept,
 * a backslash becomes two, and each byte that is not part of valid UTF-8
 * becomes \xNN (lower-case hex).  So distinct names never look alike.
 * malloc'd, or NULL when out of memory. */
char *cairn_name_escape(const char *name);

/* Text as a terminal may be shown it: each control character (C0, DEL,
 * and C1 as U+0080..U+009F) and each byte that is not part of valid UTF-8
 * becomes \xNN (C1: \u00NN), so a name or a reason holding ESC, BEL or a
 * newline cannot clear a screen, retitle a window or forge a line.
 * Backslashes are kept as they are: this is for reading, not for parsing.
 * malloc'd, or NULL when out of memory. */
char *cairn_text_printable(const char *text);

/* A 64-bit hash of n bytes (FNV-1a with a final mix): for short, stable
 * names derived from long ones, not for security. */
uint64_t cairn_hash64(const void *p, size_t n);

/* at (at most strlen(s)) moved back to the start of the UTF-8 character
 * it falls inside, so cutting s there splits no character. */
size_t cairn_utf8_cut(const char *s, size_t at);

/* A user-supplied name for a message: s itself when short, else its first
 * 64 bytes (cut at a UTF-8 boundary) and "..." in out. */
const char *cairn_short_name(const char *s, char out[72]);

/* Grows *p to hold need elements of elem bytes.  0 or -ENOMEM. */
int cairn_grow(void **p, size_t *cap, size_t need, size_t elem);

/* 1 when s can name a file inside a directory as it is: not empty, no
 * '/', not "." or "..". */
int cairn_is_plain_name(const char *s);

/* 1 when err (a negative errno; libuv's UV_E* are the same on Unix) says
 * a resource ran out rather than that the request was wrong: EMFILE,
 * ENFILE, ENOSPC (inotify's watches), ENOMEM.  What refuses for such a
 * reason may work later, so it is waited out, not taken for an error. */
int cairn_is_out_of_resources(int err);

/* What getopt_long()'s ':' or '?' (c, with optopt and arg =
 * argv[optind - 1]) was about, in words, into out: "unknown option -x",
 * "--input needs a value", "--once=3: the option takes no value".  For
 * programs that set opterr = 0 and say it their own way. */
void cairn_option_error(int c, int optopt, const char *arg, char *out, size_t len);

/* ts as RFC 3339 UTC with milliseconds, "2026-11-30T21:00:00.000Z". */
void cairn_rfc3339(const struct timespec *ts, char out[32]);

/*
 * NAME     cairn_dir_each - call fn(data, name) for each entry of dir_fd
 * NOTES    reads through a fresh descriptor of the directory (a DIR stream
 *          owns its descriptor and its position), from the start, skipping
 *          "." and "..".  Stops at the first nonzero return of fn.
 * RETURNS  0, fn's nonzero value, or a negative errno
 */
int cairn_dir_each(int dir_fd, int (*fn)(void *data, const char *name), void *data);

/*
 * NAME     cairn_flock_holder - who holds an flock(2) lock on fd's file
 * NOTES    reads /proc/locks (Linux): the pid that took the lock, which
 *          may have handed its descriptor to a child since.  For a
 *          message, never for a decision.
 * RETURNS  0 with *pid the holder, or 0 when none is listed; a negative
 *          errno when fd or /proc/locks cannot be read
 */
int cairn_flock_holder(int fd, long *pid);

#endif /* CAIRN_UTIL_H */
