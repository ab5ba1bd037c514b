/*
 * plugin_verdicts.h - the load probe's passes kept between runs, so a
 * start whose plugin files are unchanged forks no probe.
 *
 * A reload already skips the probe for a file it finds unchanged
 * (plugin_loader.h); a start has no earlier load to ask, and the probe
 * process is the largest part of a start's time (each `cairnd --filter`
 * under GNU parallel, each Slurm shard, each `cairn gen`).  The store is
 * that memory kept in a file: one line per plugin file that went through
 * a probe, known by its device, inode, size, modification time and the
 * hash of its sealed copy's bytes, as a reload knows it.  Only passes are
 * kept: a file refused (perhaps only because a loaded machine let its
 * probe outlast the allowance) is probed again at the next start.
 *
 * The store lives in the run-time folder of whoever runs cairn, which the
 * system empties at each boot: $RUNTIME_DIRECTORY (systemd's
 * RuntimeDirectory=, the unit's), else $XDG_RUNTIME_DIR/cairn, else
 * /run/cairn for root; none for anyone else.  The folder and the file are
 * trusted as a plugin directory is (plugin_dir.h: owned by root or this
 * user, writable by no one else), or not used.  The file also names the
 * cairnd version and the boot it was written in: another version's or
 * boot's file is not read.  Anything wrong with the store (no folder, a
 * damaged file, a full disk) only means the files are probed, as with no
 * store: it never stops a start.
 */
#ifndef CAIRN_PLUGIN_VERDICTS_H
#define CAIRN_PLUGIN_VERDICTS_H

#include <stddef.h>

#include "registry.h"

/* The file's name in the folder. */
#define CAIRN_VERDICTS_FILE "plugin-verdicts"

/* Passes kept at most: this load's first, then earlier ones (other
 * plugin directories) while there is room. */
#define CAIRN_VERDICTS_MAX 256

struct cairn_verdict_store {
    int dir_fd;                     /* the folder, or -1: no store */
    char *dir;                      /* its path, for messages; NULL with dir_fd */
    char *head;                     /* the header of this cairnd's file in this boot, once opened */
    struct cairn_plugin_verdict *v; /* the passes read (every why NULL) */
    size_t n;
    int stale; /* no file, or one not read: written anew at the next keep */
};

/*
 * NAME     cairn_verdict_store_open - find the store and read its passes
 * RETURNS  0 (s->dir_fd >= 0; s->n passes, maybe none); -ENOENT: no
 *          folder for this user, or it is not to be trusted or made
 *          (why says which); -ENOMEM.  s is ready for _close() either way.
 */
int cairn_verdict_store_open(struct cairn_verdict_store *s, char *why, size_t why_len);

/*
 * NAME     cairn_verdict_store_keep - keep a load's passes
 * ARGUMENTS v[0, n): a load's verdicts (registry.h); refusals are skipped
 * RETURNS  0 when nothing new was to be kept, 1 when the file was written,
 *          or a negative errno (why says what failed)
 * NOTES    written to a temporary and renamed over the file, so a reader
 *          sees the old file or the new one; not synced (it is a cache,
 *          and a file cut short by a crash is ignored whole).
 */
int cairn_verdict_store_keep(struct cairn_verdict_store *s, const struct cairn_plugin_verdict *v,
                             size_t n, char *why, size_t why_len);

/* Closes the folder and frees what was read.  Twice is fine. */
void cairn_verdict_store_close(struct cairn_verdict_store *s);

#endif /* CAIRN_PLUGIN_VERDICTS_H */
