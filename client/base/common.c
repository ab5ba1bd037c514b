/*
 * common.c - the client's message slot and small conversions every
 * command uses: escaped names back to bytes, RFC 3339 times, sizes,
 * reading a line of any length.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

int cairn_client_fail(struct cairn_client *cl, int rc, const char *fmt, ...)
{
    va_list ap;
    char *m;

    va_start(ap, fmt);
    m = cairn_vasprintf(fmt, ap);
    va_end(ap);
    /* Messages name files and jobs: shown printable, like cairnd's log.
     * Out of memory: main() falls back to the errno's own text. */
    free(cl->msg);
    cl->msg = m != NULL ? cairn_text_printable(m) : NULL;
    free(m);
    return rc;
}

const char *cairn_shown(struct cairn_shown *s, const char *text)
{
    char **slot = &s->slot[s->next++ % CAIRN_SHOWN_SLOTS];

    if (text == NULL)
        return NULL;
    free(*slot);
    *slot = cairn_text_printable(text);
    return *slot != NULL ? *slot : "(out of memory)";
}

void cairn_shown_free(struct cairn_shown *s)
{
    for (unsigned i = 0; i < CAIRN_SHOWN_SLOTS; i++) {
        free(s->slot[i]);
        s->slot[i] = NULL;
    }
}

void cairn_client_close(struct cairn_client *cl)
{
    if (cl->in_fd >= 0)
        close(cl->in_fd);
    if (cl->out_fd >= 0)
        close(cl->out_fd);
    cl->in_fd = cl->out_fd = -1;
    cairn_config_free(&cl->cfg);
    free(cl->msg);
    cl->msg = NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *cairn_client_unescape(const char *s)
{
    size_t n = strlen(s), i, o = 0;
    char *out = malloc(n + 1);

    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] != '\\') {
            out[o++] = s[i];
        } else if (s[i + 1] == '\\') {
            out[o++] = '\\';
            i++;
        } else if (s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0) {
            out[o++] = (char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3]));
            i += 3;
        } else {
            free(out); /* not something cairn_name_escape() writes */
            return NULL;
        }
    }
    out[o] = '\0';
    return out;
}

double cairn_client_parse_time(const char *s)
{
    struct tm tm;
    const char *p;
    double frac = 0, scale = 0.1;

    if (s == NULL)
        return -1;
    memset(&tm, 0, sizeof(tm));
    p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (p == NULL)
        return -1;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            frac += (*p - '0') * scale;
    if (strcmp(p, "Z") != 0)
        return -1;
    return (double)timegm(&tm) + frac;
}

void cairn_client_bytes(uint64_t n, char out[32])
{
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
    double v = (double)n;
    int u = -1;

    if (n < 1024) {
        snprintf(out, 32, "%llu B", (unsigned long long)n);
        return;
    }
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    snprintf(out, 32, "%.1f %s", v, unit[u]);
}

ssize_t cairn_client_getline(FILE *f, char **line, size_t *cap)
{
    ssize_t n;

    errno = 0;
    n = getline(line, cap, f);
    if (n >= 0)
        return n;
    /* A line that does not fit in memory ends getline() as the end of the
     * file does, without the stream's error flag: only errno tells them
     * apart, and taking it for the end would cut the file short. */
    if (errno == ENOMEM)
        return -ENOMEM;
    return ferror(f) ? -(errno ? errno : EIO) : 0;
}
