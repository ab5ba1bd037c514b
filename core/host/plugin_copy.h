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
#include <stdint.h>
#include <sys/stat.h>

/* A plugin file larger than this is refused rather than copied into
 * memory: the shipped plugins are tens of KiB. */
#define CAIRN_PLUGIN_MAX_BYTES ((off_t)256 << 20)

/*
 * NAME     cairn_plugin_copy_make - a sealed private copy of a plugin file
 * ARGUMENTS fd is the open plugin file, already vetted through st (its
 *          fstat); path names it in messages; *copy_fd receives the copy,
 *          *hash a hash of its bytes, name (name_len bytes)
 *          the /proc/self/fd/N name dlopen() is to get, one no object the
 *          dynamic linker still holds answers to; why (why_len bytes)
 *          receives the reason on failure
 * RETURNS  0; -EINVAL with why filled (the file is too big, cannot be
 *          read or changed while it was, no private copy can be made, or
 *          its ELF structures are unsound (plugin_elf.h)); -ENOMEM
 * NOTES    nothing of the file runs: a probe (plugin_probe.h) loads the
 *          copy first, then cairn_plugin_copy_load().  The copy must stay
 *          open while the object is loaded: its /proc/self/fd name is how
 *          the dynamic linker knows it, and a number reused too early
 *          could be mistaken for it.
 */
int cairn_plugin_copy_make(int fd, const struct stat *st, const char *path, int *copy_fd,
                           uint64_t *hash, char *name, size_t name_len, char *why, size_t why_len);

/*
 * NAME     cairn_plugin_copy_load - dlopen() a copy by the name _make gave
 * RETURNS  0 and *dl; -EINVAL with why filled ("cannot load: " and
 *          dlerror()'s text, the copy's name replaced by path)
 * NOTES    RTLD_NOW | RTLD_LOCAL.  Close both with cairn_plugin_copy_close().
 */
int cairn_plugin_copy_load(const char *name, const char *path, void **dl, char *why,
                           size_t why_len);

/*
 * NAME     cairn_plugin_copy_fresh_name - the /proc/self/fd name of
 *          *copy_fd, one no loaded object answers to
 * NOTES    an object the dynamic linker could not unload keeps answering
 *          to its name after its copy is closed; *copy_fd then moves up
 *          (the old descriptor closed) until its name is free, 64 times
 *          at most.  The probe process names the copies it receives so
 *          too.
 * RETURNS  0 with name filled; -EBUSY (no free name), or a negative errno
 */
int cairn_plugin_copy_fresh_name(int *copy_fd, char *name, size_t name_len);

/* dlclose(dl), then close(copy_fd). */
void cairn_plugin_copy_close(void *dl, int copy_fd);

#endif /* CAIRN_PLUGIN_COPY_H */
