/*
 * plugin_dir.h - the files of a plugin directory: listed, opened without
 * following links or blocking, and vetted for who may change them.
 */
#ifndef CAIRN_PLUGIN_DIR_H
#define CAIRN_PLUGIN_DIR_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * NAME     cairn_plugin_vet - may whoever can change this be trusted?
 * ARGUMENTS what: "plugin directory" or "plugin file", for the message;
 *          st: its fstat
 * RETURNS  0; -EINVAL with why filled: writable by group or others, or
 *          owned by anyone but root and this process's effective user
 */
int cairn_plugin_vet(const char *what, const struct stat *st, char *why, size_t why_len);

/* The "*.so" names of the directory dfd (not hidden ones), sorted: 0 and
 * *names_out (each and the array to free), or a negative errno. */
int cairn_plugin_dir_list(int dfd, char ***names_out, size_t *n_out);

/*
 * NAME     cairn_plugin_dir_open - open and vet one file of the directory
 * RETURNS  0 with *fd open (O_CLOEXEC) and *st its fstat: everything after
 *          reads through *fd, so the file loaded is the file vetted;
 *          -EINVAL with why filled (not a regular file, a symbolic link,
 *          cannot be opened, or cairn_plugin_vet() refuses it)
 */
int cairn_plugin_dir_open(int dfd, const char *name, int *fd, struct stat *st, char *why,
                          size_t why_len);

#endif /* CAIRN_PLUGIN_DIR_H */
