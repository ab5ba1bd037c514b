/*
 * util.c - formatted allocation and the growable buffer.
 */
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifdef CAIRN_COVERAGE
void __gcov_dump(void); /* libgcov */
#endif

void cairn_exit_now(int status)
{
#ifdef CAIRN_COVERAGE
    __gcov_dump();
#endif
    _exit(status);
}

int cairn_refuse(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

char *cairn_vasprintf(const char *fmt, va_list ap)
{
    char *s;

    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

char *cairn_asprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    s = cairn_vasprintf(fmt, ap);
    va_end(ap);
    return s;
}

int cairn_buf_reserve(struct cairn_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;

    if (extra > SIZE_MAX - b->len)
        return -ENOMEM;
    need = b->len + extra;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (p == NULL)
        return -ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int cairn_buf_append_grow(struct cairn_buf *b, const void *p, size_t n)
{
    if (cairn_buf_reserve(b, n) != 0)
        return -ENOMEM;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

int cairn_buf_printf(struct cairn_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || cairn_buf_reserve(b, (size_t)n + 1) != 0)
        return -ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

/* "00" .. "99": two digits a division, half the divisions of one at a time
 * (every result line renders several integers). */
static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

int cairn_buf_int(struct cairn_buf *b, int64_t v)
{
    char tmp[24];
    char *end = tmp + sizeof(tmp), *p = end;
    /* Work on the magnitude as unsigned so INT64_MIN is safe. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

    while (u >= 100) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * u, 2);
    } else {
        *--p = (char)('0' + u);
    }
    if (v < 0)
        *--p = '-';
    return cairn_buf_append(b, p, (size_t)(end - p));
}

/* Length of the valid UTF-8 sequence at s (n bytes left, s[0] >= 0x80:
 * every caller takes ASCII itself), or 0 when the bytes there are not one
 * (bad lead, missing continuation, overlong form, surrogate, past
 * U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len, i;
    uint32_t cp;

    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2, cp = s[0] & 0x1F;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, cp = s[0] & 0x0F;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

int cairn_buf_json_string(struct cairn_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0;

    if (cairn_buf_reserve(b, n + 2) != 0)
        return -ENOMEM;
    b->data[b->len++] = '"';
    while (i < n) {
        unsigned char c = u[i];
        char esc[6];
        size_t elen = 2, seq;

        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0x80 && (seq = utf8_len(u + i, n - i)) > 0) {
            i += seq;
            continue;
        }
        if (cairn_buf_append(b, s + run, i - run) != 0)
            return -ENOMEM;
        if (c >= 0x80) {
            /* Messages quote input (jansson's "near '...'" may cut a
             * character in two): never let a stray byte out unescaped. */
            if (cairn_buf_append(b, "\\ufffd", 6) != 0)
                return -ENOMEM;
            run = ++i;
            continue;
        }
        run = ++i;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        }
        if (cairn_buf_append(b, esc, elen) != 0)
            return -ENOMEM;
    }
    if (cairn_buf_append(b, s + run, n - run) != 0 || cairn_buf_append(b, "\"", 1) != 0)
        return -ENOMEM;
    return 0;
}

void cairn_buf_free(struct cairn_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int cairn_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* Someone left the descriptor non-blocking: wait, don't spin. */
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
                return -errno;
            continue;
        }
        if (w < 0)
            return -errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

char *cairn_name_escape(const char *name)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)name;
    size_t n = strlen(name), i = 0;
    struct cairn_buf b = { 0 };

    if (cairn_buf_reserve(&b, n + 1) != 0)
        return NULL;
    while (i < n) {
        size_t seq = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 1;
        int rc;

        if (u[i] == '\\') {
            rc = cairn_buf_append(&b, "\\\\", 2);
            seq = 1;
        } else if (seq == 0) {
            char esc[4] = { '\\', 'x', hex[u[i] >> 4], hex[u[i] & 15] };
            rc = cairn_buf_append(&b, esc, 4);
            seq = 1;
        } else {
            rc = cairn_buf_append(&b, name + i, seq);
        }
        if (rc != 0) {
            cairn_buf_free(&b);
            return NULL;
        }
        i += seq;
    }
    if (cairn_buf_append(&b, "", 1) != 0) {
        cairn_buf_free(&b);
        return NULL;
    }
    return b.data;
}

char *cairn_text_printable(const char *text)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)text;
    size_t n = strlen(text), i = 0;
    struct cairn_buf b = { 0 };

    if (cairn_buf_reserve(&b, n + 1) != 0)
        return NULL;
    while (i < n) {
        size_t seq = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 1;
        int rc;

        if (u[i] < 0x20 || u[i] == 0x7f || seq == 0) {
            char esc[4] = { '\\', 'x', hex[u[i] >> 4], hex[u[i] & 15] };
            rc = cairn_buf_append(&b, esc, 4);
            seq = 1;
        } else if (seq == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0) {
            char esc[6] = { '\\', 'u', '0', '0', hex[u[i + 1] >> 4], hex[u[i + 1] & 15] };
            rc = cairn_buf_append(&b, esc, 6);
        } else {
            rc = cairn_buf_append(&b, text + i, seq);
        }
        if (rc != 0) {
            cairn_buf_free(&b);
            return NULL;
        }
        i += seq;
    }
    if (cairn_buf_append(&b, "", 1) != 0) {
        cairn_buf_free(&b);
        return NULL;
    }
    return b.data;
}

uint64_t cairn_hash64(const void *p, size_t n)
{
    const unsigned char *u = p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);

    /* FNV-1a, then a final avalanche (splitmix64's) so that every input
     * bit reaches every output bit. */
    for (size_t i = 0; i < n; i++)
        h = (h ^ u[i]) * UINT64_C(0x100000001b3);
    h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
    return h ^ (h >> 31);
}

size_t cairn_utf8_cut(const char *s, size_t at)
{
    while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80)
        at--;
    return at;
}

const char *cairn_short_name(const char *s, char out[72])
{
    size_t n = strlen(s), cut;

    if (n <= 64)
        return s;
    cut = cairn_utf8_cut(s, 64);
    memcpy(out, s, cut);
    memcpy(out + cut, "...", 4);
    return out;
}

int cairn_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    void *q;

    if (need <= *cap)
        return 0;
    if (need > SIZE_MAX / elem)
        return -ENOMEM;
    q = realloc(*p, need * elem);
    if (q == NULL)
        return -ENOMEM;
    *p = q;
    *cap = need;
    return 0;
}

int cairn_is_plain_name(const char *s)
{
    return s[0] != '\0' && strchr(s, '/') == NULL && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

int cairn_is_out_of_resources(int err)
{
    return err == -EMFILE || err == -ENFILE || err == -ENOSPC || err == -ENOMEM;
}

void cairn_rfc3339(const struct timespec *ts, char out[32])
{
    struct tm tm;
    size_t n;

    gmtime_r(&ts->tv_sec, &tm);
    n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03ldZ", ts->tv_nsec / 1000000);
}

int cairn_dir_each(int dir_fd, int (*fn)(void *data, const char *name), void *data)
{
    struct dirent *e;
    int fd, rc = 0;
    DIR *d;

    fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if ((d = fdopendir(fd)) == NULL) {
        rc = -errno;
        close(fd);
        return rc;
    }
    /* readdir() ends a listing and fails the same way, with NULL: only
     * errno tells a directory read to the end from one cut short. */
    for (;;) {
        errno = 0;
        if ((e = readdir(d)) == NULL) {
            if (errno != 0 && rc == 0)
                rc = -errno;
            break;
        }
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (rc = fn(data, e->d_name)) != 0)
            break;
    }
    closedir(d);
    return rc;
}

void cairn_option_error(int c, int optopt, const char *arg, char *out, size_t len)
{
    if (c == ':')
        snprintf(out, len, "%s needs a value", arg);
    else if (optopt > 0 && optopt < 128 && isalnum(optopt)) /* a short option */
        snprintf(out, len, "unknown option -%c", optopt);
    else if (optopt != 0) /* a long option's value: it was given one */
        snprintf(out, len, "%s: the option takes no value", arg);
    else
        snprintf(out, len, "unknown option %s", arg);
}

/* A held flock(2) lock is a line "ID: FLOCK ADVISORY WRITE PID MAJ:MIN:INO
 * 0 EOF" (the device numbers in hex); a process waiting for it is a line
 * "ID: -> FLOCK ...", skipped since its second word is "->". */
int cairn_flock_holder(int fd, long *pid)
{
    char line[256], kind[16];
    unsigned long long ino;
    unsigned maj, min;
    struct stat st;
    long who;
    FILE *f;

    *pid = 0;
    if (fstat(fd, &st) != 0)
        return -errno;
    if ((f = fopen("/proc/locks", "re")) == NULL)
        return -errno;
    while (*pid == 0 && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &who, &maj, &min, &ino) == 5 &&
            strcmp(kind, "FLOCK") == 0 && maj == major(st.st_dev) && min == minor(st.st_dev) &&
            ino == (unsigned long long)st.st_ino)
            *pid = who;
    fclose(f);
    return 0;
}
