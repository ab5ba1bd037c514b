/*
 * powerfs - a FUSE file system for tests that loses power on command.
 *
 *   powerfs MOUNTPOINT [-f] [-s] [FUSE options]
 *
 * Everything lives in powerfs's memory, twice (tree.h): what the running
 * system sees, and what a power cut would leave, as the most pessimistic
 * POSIX disk with ordered metadata would: data only by fsync of its file,
 * names only by fsync of their directory (in journal order).  The control
 * file MOUNTPOINT/.powerfs (never listed, never part of the tree) takes
 * one command a write:
 *   cut            lose power now: everything not durable is gone, and
 *                  every call fails with EIO until "on" (a dead disk: the
 *                  processes that were running die with the power);
 *   on             power back: the durable state is served;
 *   cut-after N    lose power right after the Nth mutating call from now
 *                  (create, mkdir, unlink, rmdir, rename, link, write,
 *                  truncate, chmod, utimens, set/removexattr, fsync,
 *                  fsyncdir): the deterministic crash points of a sweep;
 *   disarm         forget the armed crash point;
 *   ignore PATH    calls on paths starting with PATH (as the file system
 *                  sees them: "/in/.cairn/status") are not counted, so
 *                  a file rewritten on a timer does not move crash points
 *                  (at most 4);
 *   sync           make everything durable (a clean shutdown);
 *   zero           reset the counters;
 * and reads back "state=on|dead calls=N syncs=N cuts=N pending=N
 * cut_after=N\n": the mutating calls and fsyncs since the last zero,
 * cuts so far, journal records not yet durable, and the armed crash point
 * (0: none).  Then, oldest first, a line for each of the last 64 counted
 * calls and commands ("call 3: create /out/.cairn....r.tmp -> 0 (power
 * cut)", "command on"): a test that fails prints what the disk was last
 * asked to do, without a second run.
 *
 * With POWERFS_TRACE set in its environment, powerfs writes the same line
 * for each counted call and each command on stderr as it comes: which
 * step of a job's life a crash point cut, over a whole run.
 *
 * Kernel caches are off (entry, attribute and negative timeouts 0, no
 * page cache kept across opens), so what is read after a cut is what the
 * model holds.  syncfs(2) never reaches a FUSE file system (Linux forwards
 * it to virtiofs only): nothing is made durable by it here, as cairnd
 * knows (core/lib/commit.c fsyncs each inode on FUSE).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tree.h"

#define CONTROL     "/.powerfs"

#define MAX_IGNORED 4

/* The last calls remembered for the control file: enough for a job's life
 * and the recovery after it. */
#define RING 64

/* A counted call (or a command, op "command" and no path), as the control
 * file shows it.  Paths longer than the buffer are cut, marked "...". */
struct note {
    unsigned long long call; /* 0 for a command */
    char op[16];
    char path[200];
    int rc;
    int cut; /* this call cut the power */
};

/* A note's line at its longest: "call N: OP PATH -> RC (power cut)\n". */
#define NOTE_LINE_MAX (sizeof(((struct note *)0)->path) + 96)

struct powerfs {
    struct tree t;
    int dead;
    unsigned long long calls, syncs, cuts, cut_after;
    /* Calls under these paths are applied but not counted (a status file
     * rewritten every second would make crash points drift). */
    char *ignored[MAX_IGNORED];
    size_t n_ignored;
    int trace; /* POWERFS_TRACE */
    struct note ring[RING];
    unsigned long long noted;              /* notes ever made: the next goes to noted % RING */
    char text[256 + RING * NOTE_LINE_MAX]; /* the control file's text, made at each read */
};

static struct powerfs *fs(void)
{
    return fuse_get_context()->private_data;
}

/* An open file: its node and the power generation it was opened in. */
struct handle {
    uint64_t id;
    uint64_t generation;
};

static void cut(struct powerfs *p)
{
    tree_cut(&p->t);
    p->dead = 1;
    p->cuts++;
    p->cut_after = 0;
}

/* One note as a line: the control file's and POWERFS_TRACE's format. */
static int format_note(const struct note *n, char *buf, size_t size)
{
    if (n->call == 0)
        return snprintf(buf, size, "command %s\n", n->path);
    return snprintf(buf, size, "call %llu: %s %s -> %d%s\n", n->call, n->op, n->path, n->rc,
                    n->cut ? " (power cut)" : "");
}

/* Remembers a call or command in the ring (the oldest goes) and, with
 * POWERFS_TRACE, writes it on stderr at once. */
static void remember(struct powerfs *p, unsigned long long call, const char *op, const char *path,
                     int rc, int was_cut)
{
    struct note *n = &p->ring[p->noted++ % RING];
    size_t len = strlen(path);

    n->call = call;
    snprintf(n->op, sizeof(n->op), "%s", op);
    if (len < sizeof(n->path))
        memcpy(n->path, path, len + 1);
    else
        snprintf(n->path, sizeof(n->path), "%.*s...", (int)sizeof(n->path) - 4, path);
    n->rc = rc;
    n->cut = was_cut;
    if (p->trace) {
        char line[NOTE_LINE_MAX];

        format_note(n, line, sizeof(line));
        fprintf(stderr, "powerfs: %s", line);
    }
}

static int ignored(const struct powerfs *p, const char *path)
{
    size_t i;

    for (i = 0; path != NULL && i < p->n_ignored; i++)
        if (strncmp(path, p->ignored[i], strlen(p->ignored[i])) == 0)
            return 1;
    return 0;
}

/* Counts a mutating call on path that has been applied, notes it, and cuts
 * the power when it is the armed one.  Returns rc. */
static int mutated(struct powerfs *p, const char *op, const char *path, int rc)
{
    int armed;

    if (ignored(p, path))
        return rc;
    p->calls++;
    armed = p->cut_after != 0 && p->calls >= p->cut_after;
    remember(p, p->calls, op, path, rc, armed);
    if (armed)
        cut(p);
    return rc;
}

static int is_control(const char *path)
{
    return strcmp(path, CONTROL) == 0;
}

/* The node of an open handle, or of path; NULL with *err.  Metadata
 * reads (getattr, access) still work on a dead disk, so that the kernel
 * can walk to the control file. */
static struct node *node_at(struct powerfs *p, const char *path, struct fuse_file_info *fi,
                            int *err, int meta)
{
    if (p->dead && !meta) {
        *err = -EIO;
        return NULL;
    }
    if (fi != NULL && fi->fh != 0) {
        struct handle *h = (struct handle *)(uintptr_t)fi->fh;
        struct node *n;

        if (h->generation != p->t.generation || (n = tree_node(&p->t, h->id)) == NULL) {
            *err = -EIO; /* opened before a power cut */
            return NULL;
        }
        return n;
    }
    if (path == NULL) {
        *err = -EIO;
        return NULL;
    }
    return tree_lookup(&p->t, path, err);
}

static struct node *node_of(struct powerfs *p, const char *path, struct fuse_file_info *fi,
                            int *err)
{
    return node_at(p, path, fi, err, 0);
}

static void fill_stat(const struct node *n, struct stat *st)
{
    memset(st, 0, sizeof(*st));
    st->st_ino = n->id;
    st->st_mode = n->v.mode;
    st->st_nlink = S_ISDIR(n->v.mode) ? 2 : 1;
    st->st_uid = getuid();
    st->st_gid = getgid();
    st->st_size = (off_t)n->v.size;
    st->st_blksize = 4096;
    st->st_blocks = (blkcnt_t)((n->v.size + 511) / 512);
    st->st_mtim = n->v.mtime;
    st->st_ctim = n->v.ctime;
    st->st_atim = n->v.mtime;
}

static int pf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if (path != NULL && is_control(path)) {
        memset(st, 0, sizeof(*st));
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        st->st_size = (off_t)sizeof(p->text); /* the most it can hold */
        return 0;
    }
    if ((n = node_at(p, path, fi, &err, 1)) == NULL)
        return err;
    fill_stat(n, st);
    return 0;
}

static int pf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    struct powerfs *p = fs();
    struct node *n;
    size_t i;
    int err = 0;

    (void)off;
    (void)fi;
    (void)flags;
    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    if (!S_ISDIR(n->v.mode))
        return -ENOTDIR;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    for (i = 0; i < n->v.n_entries; i++)
        fill(buf, n->v.entries[i].name, NULL, 0, 0);
    return 0;
}

static int new_handle(struct powerfs *p, struct node *n, struct fuse_file_info *fi)
{
    struct handle *h = malloc(sizeof(*h));

    if (h == NULL)
        return -ENOMEM;
    h->id = n->id;
    h->generation = p->t.generation;
    n->opens++;
    fi->fh = (uint64_t)(uintptr_t)h;
    /* Nothing cached across opens: after a cut, reads see the model. */
    fi->keep_cache = 0;
    return 0;
}

static int pf_open(const char *path, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if (is_control(path)) {
        fi->fh = 0;
        fi->direct_io = 1;
        return 0;
    }
    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    if ((fi->flags & O_TRUNC) && S_ISREG(n->v.mode))
        (void)mutated(p, "truncate", path, tree_truncate(n, 0));
    return new_handle(p, n, fi);
}

static int pf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *dir, *n;
    const char *name;
    int err = 0, rc;

    if (p->dead)
        return -EIO;
    if ((dir = tree_parent(&p->t, path, &name, &err)) == NULL)
        return err;
    if ((rc = tree_create(&p->t, dir, name, S_IFREG | (mode & 07777), &n)) != 0)
        return rc;
    rc = new_handle(p, n, fi);
    return mutated(p, "create", path, rc);
}

static int pf_mkdir(const char *path, mode_t mode)
{
    struct powerfs *p = fs();
    struct node *dir, *n;
    const char *name;
    int err = 0;

    if (p->dead)
        return -EIO;
    if ((dir = tree_parent(&p->t, path, &name, &err)) == NULL)
        return err;
    return mutated(p, "mkdir", path, tree_create(&p->t, dir, name, S_IFDIR | (mode & 07777), &n));
}

static int remove_name(const char *path, int want_dir)
{
    struct powerfs *p = fs();
    struct node *dir;
    const char *name;
    int err = 0;

    if (p->dead)
        return -EIO;
    if ((dir = tree_parent(&p->t, path, &name, &err)) == NULL)
        return err;
    return mutated(p, want_dir ? "rmdir" : "unlink", path, tree_unlink(&p->t, dir, name, want_dir));
}

static int pf_unlink(const char *path)
{
    return remove_name(path, 0);
}

static int pf_rmdir(const char *path)
{
    return remove_name(path, 1);
}

static int pf_rename(const char *from, const char *to, unsigned int flags)
{
    struct powerfs *p = fs();
    struct node *fd, *td;
    const char *fname, *tname;
    int err = 0;

    if (p->dead)
        return -EIO;
    if ((fd = tree_parent(&p->t, from, &fname, &err)) == NULL ||
        (td = tree_parent(&p->t, to, &tname, &err)) == NULL)
        return err;
    return mutated(p, "rename", to, tree_rename(&p->t, fd, fname, td, tname, flags));
}

static int pf_link(const char *from, const char *to)
{
    struct powerfs *p = fs();
    struct node *n, *td;
    const char *tname;
    int err = 0;

    if ((n = node_of(p, from, NULL, &err)) == NULL ||
        (td = tree_parent(&p->t, to, &tname, &err)) == NULL)
        return err;
    return mutated(p, "link", to, tree_link(&p->t, n, td, tname));
}

static int pf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if ((n = node_of(p, path, fi, &err)) == NULL)
        return err;
    n->v.mode = (n->v.mode & S_IFMT) | (mode & 07777);
    clock_gettime(CLOCK_REALTIME, &n->v.ctime);
    return mutated(p, "chmod", path, 0);
}

static int pf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)path;
    (void)uid;
    (void)gid;
    (void)fi;
    return 0; /* one owner: whoever mounted it */
}

static int pf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if ((n = node_of(p, path, fi, &err)) == NULL)
        return err;
    if (!S_ISREG(n->v.mode))
        return -EISDIR;
    return mutated(p, "truncate", path, tree_truncate(n, size));
}

static int pf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if ((n = node_of(p, path, fi, &err)) == NULL)
        return err;
    if (tv == NULL || tv[1].tv_nsec == UTIME_NOW)
        clock_gettime(CLOCK_REALTIME, &n->v.mtime);
    else if (tv[1].tv_nsec != UTIME_OMIT)
        n->v.mtime = tv[1];
    clock_gettime(CLOCK_REALTIME, &n->v.ctime);
    return mutated(p, "utimens", path, 0);
}

/* The state line, then the ring's notes oldest first; its length. */
static size_t control_text(struct powerfs *p)
{
    unsigned long long i = p->noted > RING ? p->noted - RING : 0;
    size_t len = (size_t)snprintf(
        p->text, sizeof(p->text),
        "state=%s calls=%llu syncs=%llu cuts=%llu pending=%zu cut_after=%llu\n",
        p->dead ? "dead" : "on", p->calls, p->syncs, p->cuts, tree_pending(&p->t), p->cut_after);

    /* Each line fits NOTE_LINE_MAX, so none is cut. */
    for (; i < p->noted; i++)
        len += (size_t)format_note(&p->ring[i % RING], p->text + len, sizeof(p->text) - len);
    return len < sizeof(p->text) ? len : sizeof(p->text) - 1;
}

static int control_read(struct powerfs *p, char *buf, size_t size, off_t off)
{
    size_t n = control_text(p);

    if (off < 0 || (size_t)off >= n)
        return 0;
    if (n - (size_t)off < size)
        size = n - (size_t)off;
    memcpy(buf, p->text + off, size);
    return (int)size;
}

static int control_write(struct powerfs *p, const char *buf, size_t size)
{
    char cmd[PATH_MAX + 16];
    unsigned long long n;

    if (size >= sizeof(cmd))
        return -EINVAL;
    memcpy(cmd, buf, size);
    cmd[size] = '\0';
    cmd[strcspn(cmd, "\n")] = '\0';
    remember(p, 0, "command", cmd, 0, 0);
    if (strcmp(cmd, "cut") == 0)
        cut(p);
    else if (strcmp(cmd, "on") == 0)
        p->dead = 0;
    else if (strcmp(cmd, "sync") == 0 && !p->dead)
        tree_sync_all(&p->t);
    else if (strcmp(cmd, "zero") == 0)
        p->calls = p->syncs = 0;
    else if (sscanf(cmd, "cut-after %llu", &n) == 1 && n > 0)
        p->cut_after = p->calls + n;
    else if (strcmp(cmd, "disarm") == 0)
        p->cut_after = 0;
    else if (strncmp(cmd, "ignore ", 7) == 0 && p->n_ignored < MAX_IGNORED)
        return (p->ignored[p->n_ignored] = strdup(cmd + 7)) != NULL ? (p->n_ignored++, (int)size)
                                                                    : -ENOMEM;
    else
        return -EINVAL;
    return (int)size;
}

static int pf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if (path != NULL && is_control(path))
        return control_read(p, buf, size, off);
    if ((n = node_of(p, path, fi, &err)) == NULL)
        return err;
    if ((size_t)off >= n->v.size)
        return 0;
    if (n->v.size - (size_t)off < size)
        size = n->v.size - (size_t)off;
    memcpy(buf, n->v.data + off, size);
    return (int)size;
}

static int pf_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0, rc;

    if (path != NULL && is_control(path))
        return control_write(p, buf, size);
    if ((n = node_of(p, path, fi, &err)) == NULL)
        return err;
    if ((fi->flags & O_APPEND) != 0)
        off = (off_t)n->v.size;
    rc = tree_write(n, buf, size, off);
    return mutated(p, "write", path, rc == 0 ? (int)size : rc);
}

static int pf_release(const char *path, struct fuse_file_info *fi)
{
    struct handle *h = (struct handle *)(uintptr_t)fi->fh;
    struct powerfs *p = fs();

    (void)path;
    if (h != NULL) {
        struct node *n = h->generation == p->t.generation ? tree_node(&p->t, h->id) : NULL;
        if (n != NULL && n->opens > 0)
            n->opens--;
        free(h);
    }
    return 0;
}

static int pf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    (void)datasync; /* fdatasync keeps the same here: data and size */
    if ((n = node_of(p, path, fi, &err)) == NULL)
        return err;
    if (!ignored(p, path))
        p->syncs++;
    return mutated(p, "fsync", path,
                   S_ISDIR(n->v.mode) ? tree_fsync_dir(&p->t, n) : tree_fsync_file(&p->t, n));
}

static int pf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    (void)datasync;
    (void)fi;
    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    if (!ignored(p, path))
        p->syncs++;
    return mutated(p, "fsyncdir", path, tree_fsync_dir(&p->t, n));
}

static int pf_setxattr(const char *path, const char *name, const char *value, size_t size,
                       int flags)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    return mutated(p, "setxattr", path, tree_setxattr(n, name, value, size, flags));
}

static int pf_getxattr(const char *path, const char *name, char *value, size_t size)
{
    struct powerfs *p = fs();
    const struct xattr *x;
    struct node *n;
    int err = 0;

    if (is_control(path))
        return -ENODATA;
    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    if ((x = tree_getxattr(n, name)) == NULL)
        return -ENODATA;
    if (size == 0)
        return (int)x->len;
    if (size < x->len)
        return -ERANGE;
    memcpy(value, x->value, x->len);
    return (int)x->len;
}

static int pf_listxattr(const char *path, char *list, size_t size)
{
    struct powerfs *p = fs();
    struct node *n;
    size_t i, need = 0;
    int err = 0;

    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    for (i = 0; i < n->v.n_xattrs; i++)
        need += strlen(n->v.xattrs[i].name) + 1;
    if (size == 0)
        return (int)need;
    if (size < need)
        return -ERANGE;
    for (i = 0; i < n->v.n_xattrs; i++) {
        size_t l = strlen(n->v.xattrs[i].name) + 1;
        memcpy(list, n->v.xattrs[i].name, l);
        list += l;
    }
    return (int)need;
}

static int pf_removexattr(const char *path, const char *name)
{
    struct powerfs *p = fs();
    struct node *n;
    int err = 0;

    if ((n = node_of(p, path, NULL, &err)) == NULL)
        return err;
    return mutated(p, "removexattr", path, tree_removexattr(n, name));
}

static int pf_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    memset(st, 0, sizeof(*st));
    st->f_bsize = st->f_frsize = 4096;
    st->f_blocks = st->f_bfree = st->f_bavail = 1 << 20;
    st->f_files = st->f_ffree = 1 << 20;
    st->f_namemax = 255;
    return 0;
}

static int pf_access(const char *path, int mask)
{
    struct powerfs *p = fs();
    int err = 0;

    (void)mask;
    if (is_control(path))
        return 0;
    return node_at(p, path, NULL, &err, 1) != NULL ? 0 : err;
}

static void *pf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->use_ino = 1;       /* inode numbers are the model's node numbers */
    cfg->hard_remove = 1;   /* no .fuse_hidden files: the model keeps them */
    cfg->entry_timeout = 0; /* the kernel asks every time: a cut is seen */
    cfg->attr_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->kernel_cache = 0;
    cfg->auto_cache = 0;
    return fuse_get_context()->private_data;
}

static const struct fuse_operations ops = {
    .init = pf_init,
    .getattr = pf_getattr,
    .readdir = pf_readdir,
    .open = pf_open,
    .create = pf_create,
    .mkdir = pf_mkdir,
    .unlink = pf_unlink,
    .rmdir = pf_rmdir,
    .rename = pf_rename,
    .link = pf_link,
    .chmod = pf_chmod,
    .chown = pf_chown,
    .truncate = pf_truncate,
    .utimens = pf_utimens,
    .read = pf_read,
    .write = pf_write,
    .release = pf_release,
    .fsync = pf_fsync,
    .fsyncdir = pf_fsyncdir,
    .setxattr = pf_setxattr,
    .getxattr = pf_getxattr,
    .listxattr = pf_listxattr,
    .removexattr = pf_removexattr,
    .statfs = pf_statfs,
    .access = pf_access,
};

int main(int argc, char **argv)
{
    static struct powerfs p;
    int rc;

    p.trace = getenv("POWERFS_TRACE") != NULL;
    if (tree_init(&p.t) != 0) {
        fprintf(stderr, "powerfs: out of memory\n");
        return 1;
    }
    rc = fuse_main(argc, argv, &ops, &p);
    tree_free(&p.t);
    while (p.n_ignored > 0)
        free(p.ignored[--p.n_ignored]);
    return rc;
}
