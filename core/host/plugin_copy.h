/*
 * plugin_copy.h - load a plugin from a private, sealed copy of the file
 * that was vetted, never from the file's path.
 *
 * Two things go wrong when a plugin is dlopen()ed by path:
 *   - the dynamic linker hands back its cached object for a path it has
 *     loaded before, so a new file renamed into place and a reload (SIGHUP)
 *     still run the old code;
 *   - the code is mapped from the file itself, so a file overwritten in
 *     place (`cp new.so dir/x.so`) changes, or truncates, code the daemon
 *     is running: the next call crashes.
 * The copy fixes both: its bytes are read through the descriptor whose
 * owner and mode were checked (nothing is re-opened by name, so nothing
 * can be swapped in between), written to an anonymous memory file
 * (memfd_create), sealed against any change, and dlopen()ed as
 * /proc/self/fd/N: a new inode for every load, which no file system
 * operation can reach.
 */
#ifndef CAIRN_PLUGIN_COPY_H
#define CAIRN_PLUGIN_COPY_H

#include <stddef.h>
#include <sys/stat.h>

#include "plugin_probe.h"

/* A plugin file larger than this is refused rather than copied into
 * memory: the shipped plugins are tens of KiB. */
#define CAIRN_PLUGIN_MAX_BYTES ((off_t)256 << 20)

/*
 * NAME     cairn_plugin_copy_open - dlopen a sealed private copy of a file
 * ARGUMENTS fd is the open plugin file, already vetted through st (its
 *          fstat); path names it in messages; exercise is what a probe
 *          process does with the object first (plugin_probe.h); *dl and
 *          *copy_fd receive the
 *          handle and the copy's descriptor; why (why_len bytes) receives
 *          the reason on failure
 * RETURNS  0; -EINVAL with why filled (the file is too big or cannot be
 *          read, no private copy can be made, its ELF structures are
 *          unsound (plugin_elf.h), loading it killed the probe process,
 *          or dlopen refused it:
 *          "cannot load: " and its text, with the copy's name replaced by
 *          path); -ENOMEM
 * NOTES    RTLD_NOW | RTLD_LOCAL.  The copy must stay open while the handle
 *          is: its /proc/self/fd name is how the dynamic linker knows the
 *          object, and a number reused too early could be mistaken for it.
 *          Close both with cairn_plugin_copy_close().
 */
int cairn_plugin_copy_open(int fd, const struct stat *st, const char *path,
                           cairn_plugin_exercise_fn exercise, void **dl, int *copy_fd, char *why,
                           size_t why_len);

/* dlclose(dl), then close(copy_fd). */
void cairn_plugin_copy_close(void *dl, int copy_fd);

#endif /* CAIRN_PLUGIN_COPY_H */
