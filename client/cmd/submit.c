/*
 * submit.c - the safe hand-off of docs/contract.md, Job files and names, done for the producer:
 * each file is checked and copied into a locked dot-temp in the spool
 * (O_EXCL, never claimed by the daemon), fsync'd, and renamed to
 * NAME.jsonl with RENAME_NOREPLACE, so the daemon sees a whole file or
 * nothing and no existing job is ever replaced.
 *
 * Between its two renames (see publish) a job lies unlocked under
 * .cairn-submit.HEX.j.tmp; the lock that says its writer lives is then on
 * a companion, .cairn.HEX.l.tmp, held from before that name exists until
 * after it is gone.  So the next submit can remove a killed submit's job
 * (sweep_held) and never a live one's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runs.h"
#include "names.h"
#include "submit.h"
#include "layout.h"
#include "tmpfile.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define FLUSH_BYTES (1u << 20)
/* Bytes of a file's base name kept in a generated job name: room for the
 * suffix, and far from the 242 bytes where output names get cut. */
#define NAME_KEEP  100
#define NAME_TRIES 8

struct staged {
    const char *src;
    char *file;
    char *base;
    struct cairn_tmpfile tmp;
    ino_t ino; /* its identity, see cairn_submitted */
    struct cairn_known_summary *before;
    size_t n_before;
};

/* NAME-YYYYMMDDTHHMMSSZ-8 hex: the file's name (without ".jsonl" and
 * leading dots, which would make a dot-file the daemon never takes), the
 * time and 32 random bits.  The time keeps names sortable; the random
 * bits keep two producers in the same second apart. */
static char *generate_base(const char *src)
{
    const char *slash = strrchr(src, '/'), *b = strcmp(src, "-") == 0 ? "stdin" : src;
    size_t n, cut;
    uint32_t rnd = 0;
    char when[32];
    struct tm tm;
    time_t now = time(NULL);

    if (slash != NULL && strcmp(src, "-") != 0)
        b = slash + 1;
    while (*b == '.')
        b++;
    n = strlen(b);
    if (n > CAIRN_JOB_SUFFIX_LEN && strcmp(b + n - CAIRN_JOB_SUFFIX_LEN, CAIRN_JOB_SUFFIX) == 0)
        n -= 6;
    if (n == 0) {
        b = "job";
        n = 3;
    }
    cut = cairn_utf8_cut(b, n < NAME_KEEP ? n : NAME_KEEP);
    if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        rnd = (uint32_t)getpid() ^ (uint32_t)clock();
    gmtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
    return cairn_asprintf("%.*s-%s-%08x", (int)cut, b, when, (unsigned)rnd);
}

/* 1 when a job of this name is waiting, active, finished or failed. */
static int taken(struct cairn_client *cl, const char *file, const char **where)
{
    struct cairn_where w;

    if (cairn_client_locate(cl, file, &w) != 0)
        return -ENOMEM;
    *where = w.waiting   ? "it is waiting in the spool"
             : w.active  ? "it is being processed (" CAIRN_ACTIVE_PATH "/)"
             : w.summary ? "it has a summary in the output directory (a finished job)"
             : w.failed  ? "it is in " CAIRN_FAILED_PATH "/"
             : w.done    ? "its input is in " CAIRN_DONE_PATH "/"
                         : NULL;
    return *where != NULL;
}

static int choose_name(struct cairn_client *cl, const struct cairn_submit_opts *o, struct staged *s)
{
    const char *where;
    int tries, rc;

    free(s->file);
    free(s->base);
    s->file = s->base = NULL;
    if (o->name != NULL) {
        if ((rc = cairn_client_job_names(cl, o->name, &s->file, &s->base)) != 0)
            return rc;
        if ((rc = taken(cl, s->file, &where)) < 0)
            return rc;
        if (rc == 1)
            return cairn_client_fail(cl, -EEXIST,
                                     "--name %s: a job of that name exists already: %s; "
                                     "choose another name (outputs are never overwritten)",
                                     o->name, where);
        return 0;
    }
    for (tries = 0; tries < NAME_TRIES; tries++) {
        s->base = generate_base(s->src);
        s->file = s->base != NULL ? cairn_job_file_name(s->base) : NULL;
        if (s->file == NULL)
            return -ENOMEM;
        if ((rc = taken(cl, s->file, &where)) <= 0)
            return rc;
        free(s->file);
        free(s->base);
        s->file = s->base = NULL;
    }
    return cairn_client_fail(cl, -EEXIST, "no free job name for %s after %d tries", s->src,
                             NAME_TRIES);
}

static int flush(struct cairn_buf *b, int fd)
{
    int rc = cairn_write_all(fd, b->data, b->len);

    b->len = 0;
    return rc;
}

/* Copies the source into the temporary, checking each line.  Memory is
 * the longest line (once: a long line is written as it is, not buffered)
 * and what the check needs, a few bytes per object key. */
static int copy_checked(struct cairn_client *cl, const struct cairn_submit_opts *o,
                        struct staged *s, FILE *in)
{
    const char *label = strcmp(s->src, "-") == 0 ? "<stdin>" : s->src;
    struct cairn_buf out = { 0 };
    char *line = NULL, why[256];
    size_t cap = 0;
    unsigned long long no = 0;
    ssize_t n;
    int rc = 0;

    while ((n = cairn_client_getline(in, &line, &cap)) > 0) {
        no++;
        size_t bom = cairn_client_bom(line, (size_t)n, no);

        if (!o->no_check &&
            (rc = cairn_client_check_line(line + bom, (size_t)n - bom, why, sizeof(why))) < 0) {
            if (rc == -ENOMEM)
                rc = cairn_client_fail(cl, rc, "%s:%llu: %s (nothing was submitted)", label, no,
                                       why);
            else
                rc = cairn_client_fail(cl, rc,
                                       "%s:%llu: not a JSON lines job file: %s (nothing was "
                                       "submitted; --no-check submits it as it is)",
                                       label, no, why);
            goto out;
        }
        if ((size_t)n >= FLUSH_BYTES) {
            if ((rc = flush(&out, s->tmp.fd)) != 0 ||
                (rc = cairn_write_all(s->tmp.fd, line, (size_t)n)) != 0)
                goto write_error;
            continue;
        }
        if ((rc = cairn_buf_append(&out, line, (size_t)n)) != 0) {
            rc = cairn_client_fail(cl, rc,
                                   "%s:%llu: out of memory copying the line (nothing was "
                                   "submitted)",
                                   label, no);
            goto out;
        }
        if (out.len >= FLUSH_BYTES && (rc = flush(&out, s->tmp.fd)) != 0)
            goto write_error;
    }
    if (n == -ENOMEM) {
        rc = cairn_client_fail(cl, (int)n,
                               "%s:%llu: out of memory reading the line (%zu bytes of it held "
                               "so far; nothing was submitted)",
                               label, no + 1, cap);
        goto out;
    }
    if (n < 0) {
        rc = cairn_client_fail(cl, (int)n, "cannot read %s at line %llu: %s", label, no + 1,
                               strerror((int)-n));
        goto out;
    }
    if ((rc = flush(&out, s->tmp.fd)) != 0)
        goto write_error;
    if (fsync(s->tmp.fd) != 0) {
        rc = -errno;
        goto write_error;
    }
    goto out;
write_error:
    rc = cairn_client_fail(cl, rc, "cannot write %s in %s: %s", s->tmp.name, cl->cfg.input_dir,
                           strerror(-rc));
out:
    free(line);
    cairn_buf_free(&out);
    return rc;
}

/* The daemon often reads the spool as another user, through the group
 * the spool's directory gives its files (a setgid spool: its own).  A
 * producer's umask of 077 would make the job 0600, which that daemon
 * cannot read and so quarantines: the group's read bit is added to what
 * the umask left; nothing else is widened.  0 or -errno. */
static int group_readable(int fd)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return -errno;
    if ((st.st_mode & S_IRGRP) != 0)
        return 0;
    return fchmod(fd, (st.st_mode & 07777) | S_IRGRP) == 0 ? 0 : -errno;
}

static int stage(struct cairn_client *cl, const struct cairn_submit_opts *o, struct staged *s)
{
    FILE *in;
    int rc;

    if (strcmp(s->src, "-") == 0) {
        in = stdin;
    } else if ((in = fopen(s->src, "re")) == NULL) {
        rc = -errno;
        return cairn_client_fail(cl, rc, "cannot open %s: %s", s->src, strerror(-rc));
    }
    rc = cairn_tmpfile_open(&s->tmp, cl->in_fd, 'j', 0644);
    if (rc != 0)
        rc = cairn_client_fail(cl, rc, "cannot create a temporary file in %s: %s",
                               cl->cfg.input_dir, strerror(-rc));
    else if ((rc = group_readable(s->tmp.fd)) != 0)
        rc = cairn_client_fail(cl, rc, "cannot make %s in %s readable to its group: %s",
                               s->tmp.name, cl->cfg.input_dir, strerror(-rc));
    else
        rc = copy_checked(cl, o, s, in);
    if (in != stdin)
        fclose(in);
    return rc;
}

#define HELD_PREFIX   ".cairn-submit."
#define LOCK_PREFIX   ".cairn."
#define HEX_DIGITS    32
#define HELD_NAME_MAX (sizeof(HELD_PREFIX) + HEX_DIGITS + sizeof(".j.tmp"))

/* The held name of a job whose companion lock is lock_name
 * (".cairn.HEX.l.tmp"): ".cairn-submit.HEX.j.tmp". */
static void held_name(const char *lock_name, char out[HELD_NAME_MAX])
{
    snprintf(out, HELD_NAME_MAX, "%s%.*s.j.tmp", HELD_PREFIX, HEX_DIGITS,
             lock_name + strlen(LOCK_PREFIX));
}

/* The summaries of runs of s's name there before it is handed over:
 * none of them is its run (runs.h). */
static int note_before(struct cairn_client *cl, struct staged *s)
{
    struct cairn_submitted j = { .base = s->base, .before = s->before };
    int rc = cairn_client_runs_before(cl, &j);

    s->before = j.before;
    s->n_before = j.n_before;
    return rc;
}

/*
 * The temporary becomes NAME.jsonl; a generated name that some job took
 * meanwhile is replaced by a fresh one.
 *
 * Its lock must be gone before the job is in: cairnd takes a job file it
 * cannot lock for another daemon's running job and leaves it in
 * .cairn/active/.  So it is first renamed, still locked, to a dot-name no
 * tmpfile sweep matches (one would take an unlocked temporary for a dead
 * writer's), then unlocked, then renamed in.  A companion temporary, locked
 * before the held name exists and removed only once it is gone, says for
 * all that time that this writer lives (sweep_held).
 */
static int publish(struct cairn_client *cl, const struct cairn_submit_opts *o, struct staged *s)
{
    struct cairn_tmpfile lock = { .fd = -1 };
    char held[HELD_NAME_MAX];
    struct stat st;
    int tries, rc = 0;

    if ((rc = cairn_tmpfile_open(&lock, cl->in_fd, 'l', 0600)) != 0)
        return cairn_client_fail(cl, rc, "cannot create a lock file in %s: %s", cl->cfg.input_dir,
                                 strerror(-rc));
    held_name(lock.name, held);
    if (renameat(cl->in_fd, s->tmp.name, cl->in_fd, held) != 0) {
        rc = -errno;
        cairn_tmpfile_discard(&lock);
        return cairn_client_fail(cl, rc, "cannot rename %s in %s: %s", s->tmp.name,
                                 cl->cfg.input_dir, strerror(-rc));
    }
    if (fstat(s->tmp.fd, &st) == 0)
        s->ino = st.st_ino;
    close(s->tmp.fd);
    s->tmp.fd = -1;
    for (tries = 0; tries < NAME_TRIES; tries++) {
        if ((rc = choose_name(cl, o, s)) != 0 || (rc = note_before(cl, s)) != 0)
            break;
        if (renameat2(cl->in_fd, held, cl->in_fd, s->file, RENAME_NOREPLACE) == 0) {
            struct cairn_shown sh = { 0 };

            cairn_tmpfile_discard(&lock); /* only now: the held name is gone */
            /* The name is all the producer gets back: a name that cannot
             * be written is said here (main() then exits 1), with the job
             * handed over all the same. */
            printf("%s\n", cairn_shown(&sh, s->base));
            if (fflush(stdout) != 0)
                fprintf(stderr,
                        "cairn: %s is in the spool, but its name cannot be written to "
                        "standard output: %s\n",
                        cairn_shown(&sh, s->base), strerror(errno));
            cairn_shown_free(&sh);
            return 0;
        }
        rc = -errno;
        if (rc != -EEXIST || o->name != NULL) {
            rc = cairn_client_fail(cl, rc, "cannot rename %s to %s in %s: %s", held, s->file,
                                   cl->cfg.input_dir, strerror(-rc));
            break;
        }
    }
    if (tries == NAME_TRIES)
        rc = cairn_client_fail(cl, -EEXIST, "no free job name for %s after %d tries", s->src,
                               NAME_TRIES);
    unlinkat(cl->in_fd, held, 0);
    cairn_tmpfile_discard(&lock);
    return rc;
}

/* HEX when name is ".cairn-submit.HEX.j.tmp" (32 lowercase hex digits),
 * else NULL. */
static const char *held_hex(const char *name)
{
    size_t p = strlen(HELD_PREFIX), i;

    if (strlen(name) != p + HEX_DIGITS + strlen(".j.tmp") || strncmp(name, HELD_PREFIX, p) != 0 ||
        strcmp(name + p + HEX_DIGITS, ".j.tmp") != 0)
        return NULL;
    for (i = p; i < p + HEX_DIGITS; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return NULL;
    return name + p;
}

/* A held job whose companion lock nobody holds (or that has none) is a
 * killed submit's: removed.  Its writer removes the companion only after
 * the held name is gone, so a companion missing or unlocked means the
 * held name is gone already (the unlink finds nothing) or its writer is
 * dead.  A companion that cannot be looked at keeps the job. */
static int sweep_one_held(void *data, const char *name)
{
    int dir_fd = *(int *)data, fd, stale;
    const char *hex = held_hex(name);
    char lock[CAIRN_TMPFILE_NAME_MAX];

    if (hex == NULL)
        return 0;
    snprintf(lock, sizeof(lock), "%s%.*s.l.tmp", LOCK_PREFIX, HEX_DIGITS, hex);
    fd = openat(dir_fd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        stale = errno == ENOENT;
    } else {
        stale = flock(fd, LOCK_EX | LOCK_NB) == 0;
        close(fd); /* its own leftover: cairn_tmpfile_sweep takes it next */
    }
    if (stale)
        (void)unlinkat(dir_fd, name, 0);
    return 0;
}

/* Before this process holds any lock in the spool: where flock(2) is
 * emulated with POSIX locks (NFS), a process does not conflict with its
 * own. */
static void sweep_held(int dir_fd)
{
    (void)cairn_dir_each(dir_fd, sweep_one_held, &dir_fd); /* best effort */
}

int cairn_client_submit(struct cairn_client *cl, const struct cairn_submit_opts *o,
                        struct cairn_submitted **jobs)
{
    struct staged *s = calloc(o->n_files ? o->n_files : 1, sizeof(*s));
    size_t i, done = 0;
    int rc = 0;

    *jobs = NULL;
    if (s == NULL)
        return -ENOMEM;
    for (i = 0; i < o->n_files; i++) {
        s[i].src = o->files[i];
        s[i].tmp.fd = -1;
    }
    /* Summaries name taken jobs too.  No output directory yet means no
     * summary yet: not an error here (--wait checked it already). */
    if (cl->cfg.output_dir != NULL && cairn_client_open_output(cl) != 0) {
        free(cl->msg);
        cl->msg = NULL;
    }
    /* What a killed `cairn submit` left: held jobs whose companion lock
     * nobody holds, then temporaries nobody holds the lock of. */
    sweep_held(cl->in_fd);
    cairn_tmpfile_sweep(cl->in_fd);
    /* With --name, refuse before reading a possibly long file. */
    if (o->name != NULL && (rc = choose_name(cl, o, &s[0])) != 0)
        goto out;
    for (i = 0; i < o->n_files && rc == 0; i++)
        rc = stage(cl, o, &s[i]);
    for (i = 0; i < o->n_files && rc == 0; i++, done++)
        rc = publish(cl, o, &s[i]);
    /* The renames themselves reach the disk: a crash now cannot lose a
     * job whose name was printed.  If that fails the jobs are handed over
     * all the same (the daemon may hold them already): said, not undone,
     * so nobody submits them a second time. */
    if (done > 0 && fsync(cl->in_fd) != 0 && rc == 0)
        fprintf(stderr,
                "cairn: warning: cannot fsync %s: %s; the job(s) are handed over, but a power "
                "cut before the disk writes the spool back could lose the hand-off\n",
                cl->cfg.input_dir, strerror(errno));
    if (rc == 0) {
        *jobs = calloc(o->n_files ? o->n_files : 1, sizeof(**jobs));
        if (*jobs == NULL) {
            rc = -ENOMEM;
            goto out;
        }
        for (i = 0; i < o->n_files; i++) {
            (*jobs)[i].file = s[i].file;
            (*jobs)[i].base = s[i].base;
            (*jobs)[i].ino = s[i].ino;
            (*jobs)[i].before = s[i].before;
            (*jobs)[i].n_before = s[i].n_before;
            s[i].file = s[i].base = NULL;
            s[i].before = NULL;
        }
    }
out:
    for (i = 0; i < o->n_files; i++) {
        cairn_tmpfile_discard(&s[i].tmp);
        free(s[i].file);
        free(s[i].base);
        free(s[i].before);
    }
    free(s);
    return rc;
}

void cairn_submitted_free(struct cairn_submitted *jobs, size_t n)
{
    size_t i;

    for (i = 0; jobs != NULL && i < n; i++) {
        free(jobs[i].file);
        free(jobs[i].base);
        free(jobs[i].ran_as);
        free(jobs[i].before);
    }
    free(jobs);
}
