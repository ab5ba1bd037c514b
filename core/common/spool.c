/*
 * spool.c - directory descriptors, job names, claiming (scans: scanner.c).
 */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "layout.h"
#include "names.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Opens dir below at (creating it), refusing to follow a symlink. */
static int open_dir_at(int at, const char *name, mode_t mode)
{
    int fd;

    if (mkdirat(at, name, mode) != 0 && errno != EEXIST)
        return -errno;
    fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

const char *const cairn_spool_state_folders[CAIRN_SPOOL_N_STATE] = {
    CAIRN_ACTIVE_DIR, CAIRN_DONE_DIR, CAIRN_FAILED_DIR, CAIRN_STATUS_DIR
};

/* The output directory at path, opened, with the spool's reference. */
static int outdir_open(const char *path, const struct cairn_log *log, struct cairn_outdir **out)
{
    struct cairn_outdir *o = malloc(sizeof(*o));
    struct stat st;
    int rc;

    if (o == NULL)
        return -ENOMEM;
    o->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->fd < 0 || fstat(o->fd, &st) != 0) {
        rc = -errno;
        if (o->fd >= 0)
            close(o->fd);
        free(o);
        return rc;
    }
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    o->refs = 1;
    o->owner.fd = -1;
    o->owner_tried = 0;
    o->log = log;
    *out = o;
    return 0;
}

int cairn_spool_open(struct cairn_spool *sp, const char *input_dir, const char *output_dir,
                     const char **what)
{
    int state;

    sp->in_fd = sp->active_fd = sp->done_fd = sp->failed_fd = sp->status_fd = -1;
    sp->out = NULL;
    sp->commit = NULL;
    *what = input_dir;
    if ((state = cairn_commit_new(&sp->commit)) != 0)
        return state;
    sp->in_fd = open(input_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sp->in_fd < 0)
        goto fail_errno;
    *what = CAIRN_STATE_DIR;
    state = open_dir_at(sp->in_fd, CAIRN_STATE_DIR, 0755);
    if (state < 0)
        goto fail_rc;
    *what = CAIRN_STATE_DIR "/" CAIRN_ACTIVE_DIR;
    sp->active_fd = open_dir_at(state, CAIRN_ACTIVE_DIR, 0755);
    if (sp->active_fd >= 0) {
        *what = CAIRN_STATE_DIR "/" CAIRN_DONE_DIR;
        sp->done_fd = open_dir_at(state, CAIRN_DONE_DIR, 0755);
    }
    if (sp->done_fd >= 0) {
        *what = CAIRN_STATE_DIR "/" CAIRN_FAILED_DIR;
        sp->failed_fd = open_dir_at(state, CAIRN_FAILED_DIR, 0755);
    }
    if (sp->failed_fd >= 0) {
        *what = CAIRN_STATE_DIR "/" CAIRN_STATUS_DIR;
        sp->status_fd = open_dir_at(state, CAIRN_STATUS_DIR, 0755);
    }
    close(state);
    if (sp->active_fd < 0 || sp->done_fd < 0 || sp->failed_fd < 0 || sp->status_fd < 0) {
        int rc = sp->active_fd < 0   ? sp->active_fd
                 : sp->done_fd < 0   ? sp->done_fd
                 : sp->failed_fd < 0 ? sp->failed_fd
                                     : sp->status_fd;
        cairn_spool_close(sp);
        return rc;
    }
    *what = output_dir;
    if (mkdir(output_dir, 0755) != 0 && errno != EEXIST)
        goto fail_errno;
    if ((state = outdir_open(output_dir, sp->log, &sp->out)) != 0)
        goto fail_rc;
    return 0;
fail_errno:
    state = -errno;
fail_rc:
    cairn_spool_close(sp);
    return state;
}

void cairn_spool_close(struct cairn_spool *sp)
{
    int *fds[] = { &sp->in_fd, &sp->active_fd, &sp->done_fd, &sp->failed_fd, &sp->status_fd };
    size_t i;

    for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    /* Jobs still holding it (an abandoned run) keep it open. */
    cairn_outdir_release(sp->out);
    sp->out = NULL;
    cairn_commit_free(sp->commit);
    sp->commit = NULL;
}

int cairn_spool_follow_output(struct cairn_spool *sp, const char *output_dir)
{
    struct cairn_outdir *o;
    struct stat now;
    int rc;

    if (stat(output_dir, &now) != 0)
        return -errno;
    if (!S_ISDIR(now.st_mode))
        return -ENOTDIR;
    /* The same inode: still the directory we hold (held open, a removed
     * one keeps its inode number, so no new directory can have it). */
    if (sp->out != NULL && sp->out->dev == now.st_dev && sp->out->ino == now.st_ino)
        return 0;
    if ((rc = outdir_open(output_dir, sp->log, &o)) != 0)
        return rc;
    cairn_outdir_release(sp->out);
    sp->out = o;
    return 0;
}

struct cairn_outdir *cairn_spool_hold_output(const struct cairn_spool *sp)
{
    sp->out->refs++;
    return sp->out;
}

void cairn_outdir_drop_owner(struct cairn_outdir *o)
{
    char id[CAIRN_TMPOWNER_HEX + 1];
    int rc;

    if (o == NULL || o->owner.fd < 0)
        return;
    memcpy(id, o->owner.id, sizeof(id));
    if ((rc = cairn_tmpowner_close(&o->owner, o->fd)) != 0 && o->log != NULL)
        cairn_log(o->log, CAIRN_LOG_WARNING,
                  "cannot remove the output directory's lock file .cairn.%s.lock: %s (the next "
                  "start removes it)",
                  id, uv_strerror(rc));
}

void cairn_outdir_release(struct cairn_outdir *o)
{
    if (o == NULL || --o->refs > 0)
        return;
    /* Every job that began with it has ended: none of its temporaries is
     * left. */
    cairn_outdir_drop_owner(o);
    close(o->fd);
    free(o);
}

struct cairn_tmpowner *cairn_outdir_owner(struct cairn_outdir *o)
{
    int rc;

    if (!o->owner_tried) {
        o->owner_tried = 1;
        if ((rc = cairn_tmpowner_open(&o->owner, o->fd)) != 0 && o->log != NULL)
            cairn_log(o->log, CAIRN_LOG_WARNING,
                      "cannot make the output directory's lock file (.cairn.*.lock): %s; each "
                      "temporary file locks itself instead",
                      uv_strerror(rc));
    }
    return o->owner.fd >= 0 ? &o->owner : NULL;
}

/* 1 when fd is the directory .cairn/<name> names now. */
static int still_there(int in_fd, const char *path, int fd)
{
    struct stat held, now;

    return fstat(fd, &held) == 0 && held.st_nlink > 0 &&
           fstatat(in_fd, path, &now, AT_SYMLINK_NOFOLLOW) == 0 && held.st_dev == now.st_dev &&
           held.st_ino == now.st_ino;
}

int cairn_spool_repair(struct cairn_spool *sp)
{
    const char *const *sub = cairn_spool_state_folders;
    int *fds[] = { &sp->active_fd, &sp->done_fd, &sp->failed_fd, &sp->status_fd };
    int state = -1, repaired = 0, i;

    for (i = 0; i < CAIRN_SPOOL_N_STATE; i++) {
        char path[32];
        int fd;

        if (cairn_state_path(path, sizeof(path), sub[i]) == 0 &&
            still_there(sp->in_fd, path, *fds[i]))
            continue;
        if (state < 0 && (state = open_dir_at(sp->in_fd, CAIRN_STATE_DIR, 0755)) < 0)
            return state;
        fd = open_dir_at(state, sub[i], 0755);
        if (fd < 0) {
            close(state);
            return fd;
        }
        /* dup2 swaps what the number names in one step: a worker finishing
         * a job through it meanwhile sees the old folder or the new one,
         * never a closed or reused descriptor. */
        if (dup2(fd, *fds[i]) < 0) {
            int rc = -errno;
            close(fd);
            close(state);
            return rc;
        }
        close(fd);
        repaired |= 1 << i;
    }
    if (state >= 0)
        close(state);
    return repaired;
}

int cairn_spool_is_job_name(const char *name)
{
    size_t n = strlen(name);

    return n > CAIRN_JOB_SUFFIX_LEN && name[0] != '.' &&
           strcmp(name + n - CAIRN_JOB_SUFFIX_LEN, CAIRN_JOB_SUFFIX) == 0 &&
           strchr(name, '/') == NULL;
}

int cairn_spool_is_never_taken(const char *name)
{
    size_t n = strlen(name);

    return n > 0 && name[0] != '.' && !(n >= 4 && strcmp(name + n - 4, ".tmp") == 0) &&
           !cairn_spool_is_job_name(name);
}

int cairn_spool_claim(const struct cairn_spool *sp, const char *name)
{
    return cairn_spool_claim_as(sp, name, name);
}

int cairn_spool_claim_as(const struct cairn_spool *sp, const char *name, const char *as)
{
    if (renameat2(sp->in_fd, name, sp->active_fd, as, RENAME_NOREPLACE) != 0)
        return -errno;
    return 0;
}

int cairn_spool_unclaim(const struct cairn_spool *sp, const char *name)
{
    return cairn_spool_unclaim_as(sp, name, name);
}

int cairn_spool_unclaim_as(const struct cairn_spool *sp, const char *name, const char *as)
{
    if (renameat2(sp->active_fd, name, sp->in_fd, as, RENAME_NOREPLACE) != 0)
        return -errno;
    return 0;
}
