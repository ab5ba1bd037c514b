/*
 * tree.h - powerfs's model of a disk that loses power: every file and
 * directory twice, as the running system sees it (volatile) and as it
 * would be found after a power cut (durable).
 *
 * What becomes durable, and when (the pessimistic reading of POSIX that
 * LazyFS and the ALICE study use, with ordered metadata as every
 * journaling file system has it):
 *   - a file's data, size, mode and extended attributes: only by fsync or
 *     fdatasync of that file;
 *   - names (create, mkdir, link, unlink, rmdir, rename): kept in order in
 *     a metadata journal; fsync of a directory commits the journal up to
 *     the last change that touched that directory, and every change before
 *     it.  A rename is one journal record: after a cut it has happened
 *     whole or not at all.  fsync of a file does not make its name
 *     durable;
 *   - a name committed for a file whose data never was: the file is found
 *     empty (what delayed allocation leaves).
 * A power cut (tree_cut) throws the volatile side away and serves the
 * durable one; nodes no durable name reaches are freed.  Node numbers are
 * kept across a cut, so inode numbers stay those the system saw.
 *
 * Single-threaded: powerfs runs the FUSE loop on one thread.
 */
#ifndef POWERFS_TREE_H
#define POWERFS_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

struct xattr {
    char *name;
    char *value;
    size_t len;
};

struct entry {
    char *name;
    uint64_t id;
};

/* One side of a node: what is seen now, or what a cut would leave. */
struct side {
    mode_t mode; /* type and permission bits */
    struct timespec mtime, ctime;
    char *data; /* regular files */
    size_t size, cap;
    struct xattr *xattrs;
    size_t n_xattrs;
    struct entry *entries; /* directories */
    size_t n_entries;
};

struct node {
    uint64_t id;
    int exists_d; /* the durable side exists (a committed name made it) */
    unsigned opens;
    struct side v, d;
};

/* A journal record: up to three changes to names, applied together. */
struct change {
    int link; /* 1 link name -> child, 0 unlink name */
    uint64_t dir, child;
    mode_t child_mode; /* the child's mode when it was made */
    char *name;
};

struct record {
    struct change c[3];
    size_t n;
};

struct tree {
    struct node **nodes; /* by id; NULL: freed */
    size_t n_nodes;
    struct record *journal;
    size_t n_journal, cap_journal;
    uint64_t generation; /* bumped by each cut: older handles are stale */
};

#define TREE_ROOT 1

int tree_init(struct tree *t);
void tree_free(struct tree *t);

struct node *tree_node(const struct tree *t, uint64_t id);

/* The node path names ("/a/b"), or NULL with -errno in *err. */
struct node *tree_lookup(const struct tree *t, const char *path, int *err);
/* The parent directory of path, and path's last component in *name (a
 * pointer into path).  NULL with -errno in *err. */
struct node *tree_parent(const struct tree *t, const char *path, const char **name, int *err);
/* Directory entry `name` of dir's volatile side, or NULL. */
struct entry *tree_entry(struct node *dir, const char *name);

/* Name changes: each goes into the journal as one record.  0 or -errno. */
int tree_create(struct tree *t, struct node *dir, const char *name, mode_t mode, struct node **out);
int tree_unlink(struct tree *t, struct node *dir, const char *name, int want_dir);
int tree_rename(struct tree *t, struct node *from, const char *from_name, struct node *to,
                const char *to_name, unsigned flags);
int tree_link(struct tree *t, struct node *n, struct node *dir, const char *name);

/* Data and attributes of the volatile side. 0 or -errno. */
int tree_write(struct node *n, const char *buf, size_t len, off_t off);
int tree_truncate(struct node *n, off_t size);
int tree_setxattr(struct node *n, const char *name, const char *value, size_t len, int flags);
int tree_removexattr(struct node *n, const char *name);
const struct xattr *tree_getxattr(const struct node *n, const char *name);

/* fsync of a file: its data, size, mode and attributes become durable. */
int tree_fsync_file(struct tree *t, struct node *n);
/* fsync of a directory: its attributes, and the journal up to the last
 * record touching it. */
int tree_fsync_dir(struct tree *t, struct node *dir);
/* Everything durable (syncfs, a clean unmount). */
void tree_sync_all(struct tree *t);

/* The power cut: the volatile side becomes the durable one. */
void tree_cut(struct tree *t);

/* Journal records not yet durable, for the control file. */
size_t tree_pending(const struct tree *t);

#endif /* POWERFS_TREE_H */
