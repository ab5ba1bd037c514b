/*
 * plugin_verdicts.c - the probe's passes kept between runs (see
 * plugin_verdicts.h).
 *
 * The file is text, so an operator can read what is trusted:
 *
 *   cairn plugin verdicts 1
 *   cairnd 0.9.0 plugin ABI 1.1
 *   boot 5c0ffd1e-...
 *   DEVICE INODE SIZE MTIME_S.MTIME_NS HASH      one line per pass
 *
 * The first three lines are the header: a file whose header is not this
 * cairnd's, in this boot, is not read, nor one with a line out of shape
 * (a file cut short included): it is written anew.
 */
#include "plugin_verdicts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cairn/plugin.h"
#include "plugin_dir.h"
#include "tmpfile.h"
#include "util.h"
#include "version.h"

/* Far more than CAIRN_VERDICTS_MAX lines make: a bigger file is not ours. */
#define STORE_MAX_BYTES (64 * 1024)

/* This boot's identity, or "-" where /proc does not show it (systemd's
 * ProcSubset=pid): the run-time folders are emptied at each boot anyway,
 * the name guards a folder that is not. */
static void boot_id(char *out, size_t len)
{
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;
    ssize_t i;

    if (fd >= 0)
        close(fd);
    while (n > 0 && out[n - 1] == '\n')
        n--;
    for (i = 0; i < n; i++)
        if (!(out[i] == '-' || (out[i] >= '0' && out[i] <= '9') ||
              (out[i] >= 'a' && out[i] <= 'f')))
            n = -1;
    if (n <= 0)
        n = snprintf(out, len, "-");
    out[n] = '\0';
}

/* The header of a file this cairnd writes in this boot; NULL: no memory. */
static char *header(void)
{
    char boot[64];

    boot_id(boot, sizeof(boot));
    return cairn_asprintf("cairn plugin verdicts 1\ncairnd %s plugin ABI %d.%d\nboot %s\n",
                          CAIRN_VERSION, CAIRN_PLUGIN_ABI_MAJOR, CAIRN_PLUGIN_ABI_MINOR, boot);
}

/* The store's folder: *dir (to free) and whether to make it.  -ENOENT:
 * none for this process; -ENOMEM. */
static int folder(char **dir, int *make)
{
    const char *rd = getenv("RUNTIME_DIRECTORY"), *xdg = getenv("XDG_RUNTIME_DIR");

    *make = 1;
    if (rd != NULL && rd[0] == '/') {
        /* systemd made it, and lists one folder per RuntimeDirectory=. */
        *make = 0;
        *dir = strndup(rd, strcspn(rd, ":"));
    } else if (xdg != NULL && xdg[0] == '/') {
        *dir = cairn_asprintf("%s/cairn", xdg);
    } else if (geteuid() == 0) {
        *dir = strdup("/run/cairn");
    } else {
        *dir = NULL;
        return -ENOENT;
    }
    return *dir != NULL ? 0 : -ENOMEM;
}

/* One number of a line, then the separator sep.  0 or -EINVAL. */
static int field(const char **p, int base, char sep, uintmax_t *out)
{
    char *end;

    if (!((**p >= '0' && **p <= '9') || (base == 16 && **p >= 'a' && **p <= 'f')))
        return -EINVAL;
    errno = 0;
    *out = strtoumax(*p, &end, base);
    if (errno != 0 || *end != sep)
        return -EINVAL;
    *p = end + 1;
    return 0;
}

/* One pass line (its newline included) into v.  0 or -EINVAL. */
static int parse_line(const char *p, struct cairn_plugin_verdict *v)
{
    uintmax_t dev, ino, size, sec, nsec, hash;

    if (field(&p, 10, ' ', &dev) != 0 || field(&p, 10, ' ', &ino) != 0 ||
        field(&p, 10, ' ', &size) != 0 || field(&p, 10, '.', &sec) != 0 ||
        field(&p, 10, ' ', &nsec) != 0 || field(&p, 16, '\n', &hash) != 0)
        return -EINVAL;
    if (nsec >= 1000000000 || size > INT64_MAX || sec > INT64_MAX)
        return -EINVAL;
    *v = (struct cairn_plugin_verdict){ .dev = (dev_t)dev,
                                        .ino = (ino_t)ino,
                                        .size = (off_t)size,
                                        .mtime = { .tv_sec = (time_t)sec, .tv_nsec = (long)nsec },
                                        .hash = (uint64_t)hash };
    return 0;
}

/* The passes of text[0, len), after the header s->head: 0 (s->v, s->n
 * set; s->stale cleared), -EINVAL (not this cairnd's, or out of shape)
 * or -ENOMEM. */
static int parse(struct cairn_verdict_store *s, const char *text, size_t len)
{
    size_t hl = strlen(s->head), lines = 0, i;
    const char *p, *end = text + len;

    if (len < hl || memcmp(text, s->head, hl) != 0 || text[len - 1] != '\n')
        return -EINVAL;
    for (p = text + hl; p < end; p++)
        lines += *p == '\n';
    if (lines > CAIRN_VERDICTS_MAX)
        return -EINVAL;
    if (lines > 0 && (s->v = calloc(lines, sizeof(*s->v))) == NULL)
        return -ENOMEM;
    for (p = text + hl, i = 0; i < lines; i++, p = strchr(p, '\n') + 1)
        if (parse_line(p, &s->v[i]) != 0) {
            free(s->v);
            s->v = NULL;
            return -EINVAL;
        }
    s->n = lines;
    s->stale = 0;
    return 0;
}

/* The file's passes, when it is there, trusted and this cairnd's: 0
 * either way, or -ENOMEM. */
static int read_passes(struct cairn_verdict_store *s)
{
    struct stat st;
    char why[256], *text;
    ssize_t got = 0, n = 0;
    int fd, rc;

    fd = openat(s->dir_fd, CAIRN_VERDICTS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > STORE_MAX_BYTES ||
        st.st_size == 0 || cairn_plugin_vet("file", &st, why, sizeof(why)) != 0) {
        close(fd);
        return 0;
    }
    if ((text = malloc((size_t)st.st_size)) == NULL) {
        close(fd);
        return -ENOMEM;
    }
    while (got < st.st_size && (n = read(fd, text + got, (size_t)(st.st_size - got))) > 0)
        got += n;
    close(fd);
    rc = got == st.st_size ? parse(s, text, (size_t)got) : -EINVAL;
    free(text);
    return rc == -ENOMEM ? rc : 0;
}

/* No store after all: why says why.  -ENOENT. */
static int no_store(struct cairn_verdict_store *s, char *why, size_t why_len, const char *what,
                    int err)
{
    cairn_refuse(why, why_len, "cannot %s %s: %s", what, s->dir, strerror(err));
    if (s->dir_fd >= 0)
        close(s->dir_fd);
    s->dir_fd = -1;
    return -ENOENT;
}

int cairn_verdict_store_open(struct cairn_verdict_store *s, char *why, size_t why_len)
{
    struct stat st;
    int make, rc;

    memset(s, 0, sizeof(*s));
    s->dir_fd = -1;
    s->stale = 1;
    if ((rc = folder(&s->dir, &make)) == -ENOENT) {
        cairn_refuse(why, why_len, "no run-time folder for uid %u", (unsigned)geteuid());
        return rc;
    }
    if (rc != 0)
        return rc;
    if (make && mkdir(s->dir, 0700) != 0 && errno != EEXIST)
        return no_store(s, why, why_len, "make", errno);
    if ((s->dir_fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return no_store(s, why, why_len, "open", errno);
    if (fstat(s->dir_fd, &st) != 0)
        return no_store(s, why, why_len, "stat", errno);
    /* Whoever may write here chooses which files pass unprobed. */
    if (cairn_plugin_vet(s->dir, &st, why, why_len) != 0) {
        close(s->dir_fd);
        s->dir_fd = -1;
        return -ENOENT;
    }
    if ((s->head = header()) == NULL)
        return -ENOMEM;
    return read_passes(s);
}

static int among(const struct cairn_plugin_verdict *v, size_t n,
                 const struct cairn_plugin_verdict *one)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (v[i].why == NULL && cairn_plugin_verdict_same(&v[i], one))
            return 1;
    return 0;
}

static int add_line(struct cairn_buf *b, const struct cairn_plugin_verdict *v)
{
    return cairn_buf_printf(b, "%ju %ju %jd %jd.%09ld %016" PRIx64 "\n", (uintmax_t)v->dev,
                            (uintmax_t)v->ino, (intmax_t)v->size, (intmax_t)v->mtime.tv_sec,
                            (long)v->mtime.tv_nsec, v->hash);
}

int cairn_verdict_store_keep(struct cairn_verdict_store *s, const struct cairn_plugin_verdict *v,
                             size_t n, char *why, size_t why_len)
{
    struct cairn_buf b = { 0 };
    struct cairn_tmpfile t;
    size_t i, kept = 0;
    int fresh = 0, rc = 0;

    if (s->dir_fd < 0 || s->head == NULL)
        return 0;
    for (i = 0; i < n; i++)
        fresh |= v[i].why == NULL && !among(s->v, s->n, &v[i]);
    if (!fresh && !s->stale)
        return 0;
    if (cairn_buf_puts(&b, s->head) != 0)
        return -ENOMEM;
    /* This load's first (a file listed twice is one line), then the
     * earlier ones it did not meet, while there is room. */
    for (i = 0; i < n && rc == 0 && kept < CAIRN_VERDICTS_MAX; i++)
        if (v[i].why == NULL && !among(v, i, &v[i]) && (rc = add_line(&b, &v[i])) == 0)
            kept++;
    for (i = 0; i < s->n && rc == 0 && kept < CAIRN_VERDICTS_MAX; i++)
        if (!among(v, n, &s->v[i]) && (rc = add_line(&b, &s->v[i])) == 0)
            kept++;
    if (rc != 0) {
        cairn_buf_free(&b);
        return rc;
    }
    /* A writer killed between its create and its rename left a temporary. */
    cairn_tmpfile_sweep(s->dir_fd);
    if ((rc = cairn_tmpfile_open(&t, s->dir_fd, 'v', 0600)) == 0) {
        if ((rc = cairn_write_all(t.fd, b.data, b.len)) != 0)
            cairn_tmpfile_discard(&t);
        else
            rc = cairn_tmpfile_commit(&t, CAIRN_VERDICTS_FILE);
    }
    cairn_buf_free(&b);
    if (rc != 0) {
        cairn_refuse(why, why_len, "cannot write %s/%s: %s", s->dir, CAIRN_VERDICTS_FILE,
                     strerror(-rc));
        return rc;
    }
    s->stale = 0;
    return 1;
}

void cairn_verdict_store_close(struct cairn_verdict_store *s)
{
    if (s->dir_fd >= 0)
        close(s->dir_fd);
    s->dir_fd = -1;
    free(s->dir);
    s->dir = NULL;
    free(s->head);
    s->head = NULL;
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
