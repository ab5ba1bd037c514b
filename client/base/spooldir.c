/*
 * spooldir.c - finding the spool the daemon reads and the directory it
 * writes, and where a job is in them.  Like the daemon, everything below
 * a directory is reached by descriptor and plain name, never by a path
 * built from a job name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "layout.h"
#include "names.h"

static int open_dir(struct cairn_client *cl, const char *path, const char *key, const char *origin,
                    int write, int *fd_out)
{
    struct stat st;
    int fd;

    if (path == NULL)
        return cairn_client_fail(cl, -EINVAL,
                                 "%s is not set: give --%s DIR, or -c FILE naming a "
                                 "configuration that sets it",
                                 key, strcmp(key, "input_dir") == 0 ? "input" : "output");
    if (stat(path, &st) != 0) {
        int rc = -errno;
        return cairn_client_fail(cl, rc, "%s %s (%s): %s%s", key, path, origin, strerror(-rc),
                                 rc == -ENOENT && strcmp(key, "output_dir") == 0
                                     ? " (cairnd creates it when it starts: is it running?)"
                                     : "");
    }
    if (!S_ISDIR(st.st_mode))
        return cairn_client_fail(cl, -ENOTDIR, "%s %s (%s) is not a directory", key, path, origin);
    /* access(2) asks with the real IDs, which are the ones that matter
     * for a command a user runs. */
    if (write && access(path, W_OK | X_OK) != 0) {
        int rc = -errno;
        return cairn_client_fail(cl, rc, "cannot write to %s %s (%s): %s%s", key, path, origin,
                                 strerror(-rc),
                                 rc == -EACCES ? " (producers must be in the spool's group)" : "");
    }
    fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int rc = -errno;
        return cairn_client_fail(cl, rc, "cannot open %s %s: %s", key, path, strerror(-rc));
    }
    *fd_out = fd;
    return 0;
}

int cairn_client_open_input(struct cairn_client *cl, int write)
{
    if (cl->in_fd >= 0)
        return 0;
    return open_dir(cl, cl->cfg.input_dir, "input_dir", cl->in_origin, write, &cl->in_fd);
}

int cairn_client_open_output(struct cairn_client *cl)
{
    if (cl->out_fd >= 0)
        return 0;
    return open_dir(cl, cl->cfg.output_dir, "output_dir", cl->out_origin, 0, &cl->out_fd);
}

int cairn_client_state_dir(struct cairn_client *cl, const char *sub)
{
    char path[64];
    int fd;

    if (cl->in_fd < 0)
        return -EBADF;
    if (cairn_state_path(path, sizeof(path), sub) != 0)
        return -ENAMETOOLONG;
    /* O_NOFOLLOW: the daemon never follows a link planted there either. */
    fd = openat(cl->in_fd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static int open_in_state(int in_fd, const char *sub, const char *file)
{
    char path[32];
    int dir, fd;

    if (cairn_state_path(path, sizeof(path), sub) != 0)
        return -ENAMETOOLONG;
    dir = openat(in_fd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return -errno;
    fd = openat(dir, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    fd = fd < 0 ? -errno : fd;
    close(dir);
    return fd;
}

int cairn_client_open_kept_input(int in_fd, const char *file)
{
    static const char *const order[] = { CAIRN_DONE_DIR, CAIRN_ACTIVE_DIR, CAIRN_DONE_DIR };
    int fd = -ENOENT;
    size_t i;

    for (i = 0; i < 3 && fd == -ENOENT; i++)
        fd = open_in_state(in_fd, order[i], file);
    return fd;
}

int cairn_client_job_names(struct cairn_client *cl, const char *arg, char **file, char **base)
{
    size_t n = strlen(arg);
    int is_file =
        n > CAIRN_JOB_SUFFIX_LEN && strcmp(arg + n - CAIRN_JOB_SUFFIX_LEN, CAIRN_JOB_SUFFIX) == 0;

    *file = *base = NULL;
    if (n == 0 || arg[0] == '.' || strchr(arg, '/') != NULL ||
        (!is_file && n + CAIRN_JOB_SUFFIX_LEN > NAME_MAX) || n > NAME_MAX)
        return cairn_client_fail(cl, -EINVAL,
                                 "\"%s\" is not a job name: a job is NAME.jsonl in the spool, "
                                 "with no '/', not starting with '.'",
                                 arg);
    *file = is_file ? strdup(arg) : cairn_job_file_name(arg);
    *base = is_file ? strndup(arg, n - CAIRN_JOB_SUFFIX_LEN) : strdup(arg);
    if (*file == NULL || *base == NULL) {
        free(*file);
        free(*base);
        *file = *base = NULL;
        return -ENOMEM;
    }
    return 0;
}

static int present(int dir_fd, const char *name)
{
    struct stat st;

    return dir_fd >= 0 && fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int cairn_client_locate(struct cairn_client *cl, const char *file, struct cairn_where *w)
{
    static const char *const sub[] = { CAIRN_ACTIVE_DIR, CAIRN_DONE_DIR, CAIRN_FAILED_DIR };
    int *flag[] = { &w->active, &w->done, &w->failed };
    size_t i;

    memset(w, 0, sizeof(*w));
    w->waiting = present(cl->in_fd, file);
    for (i = 0; i < 3; i++) {
        int fd = cairn_client_state_dir(cl, sub[i]);
        *flag[i] = present(fd, file);
        if (fd >= 0)
            close(fd);
    }
    if (cl->out_fd >= 0) {
        char *ob = cairn_output_base(file);
        char *sum = ob != NULL ? cairn_output_name(ob, CAIRN_SUMMARY_SUFFIX) : NULL;

        free(ob);
        if (sum == NULL)
            return -ENOMEM;
        w->summary = present(cl->out_fd, sum);
        free(sum);
    }
    return 0;
}

struct each_file {
    const char *suffix;
    size_t sl;
    int (*fn)(void *data, const char *name);
    void *data;
};

static int each_file_one(void *data, const char *name)
{
    struct each_file *f = data;
    size_t n = strlen(name);

    if (name[0] == '.' || n <= f->sl || strcmp(name + n - f->sl, f->suffix) != 0)
        return 0;
    return f->fn(f->data, name);
}

int cairn_client_each_file(int dir_fd, const char *suffix, int (*fn)(void *data, const char *name),
                           void *data)
{
    struct each_file f = { .suffix = suffix, .sl = strlen(suffix), .fn = fn, .data = data };

    return cairn_dir_each(dir_fd, each_file_one, &f);
}
