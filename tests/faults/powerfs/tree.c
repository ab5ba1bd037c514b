/*
 * tree.c - the two sides of every node and the journal between them.
 * What becomes durable when: tree.h.
 */
#include "tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static void stamp(struct side *s)
{
    clock_gettime(CLOCK_REALTIME, &s->mtime);
    s->ctime = s->mtime;
}

static void side_free(struct side *s)
{
    size_t i;

    free(s->data);
    for (i = 0; i < s->n_xattrs; i++) {
        free(s->xattrs[i].name);
        free(s->xattrs[i].value);
    }
    free(s->xattrs);
    for (i = 0; i < s->n_entries; i++)
        free(s->entries[i].name);
    free(s->entries);
    memset(s, 0, sizeof(*s));
}

static void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);

    if (q != NULL && n > 0)
        memcpy(q, p, n);
    return q;
}

/* dst := a deep copy of src (dst freed first).  0 or -ENOMEM. */
static int side_copy(struct side *dst, const struct side *src)
{
    struct side c = *src;
    size_t i;

    c.data = dup_bytes(src->data, src->size);
    c.cap = src->size;
    c.xattrs = calloc(src->n_xattrs ? src->n_xattrs : 1, sizeof(*c.xattrs));
    c.entries = calloc(src->n_entries ? src->n_entries : 1, sizeof(*c.entries));
    if (c.data == NULL || c.xattrs == NULL || c.entries == NULL)
        goto fail;
    for (i = 0; i < src->n_xattrs; i++) {
        c.xattrs[i].name = strdup(src->xattrs[i].name);
        c.xattrs[i].value = dup_bytes(src->xattrs[i].value, src->xattrs[i].len);
        c.xattrs[i].len = src->xattrs[i].len;
        if (c.xattrs[i].name == NULL || c.xattrs[i].value == NULL)
            goto fail;
    }
    for (i = 0; i < src->n_entries; i++) {
        c.entries[i].name = strdup(src->entries[i].name);
        c.entries[i].id = src->entries[i].id;
        if (c.entries[i].name == NULL)
            goto fail;
    }
    side_free(dst);
    *dst = c;
    return 0;
fail:
    /* Partly built: free what was made (names past the failure are NULL). */
    c.n_xattrs = src->n_xattrs;
    c.n_entries = src->n_entries;
    side_free(&c);
    return -ENOMEM;
}

static struct node *node_new(struct tree *t, mode_t mode)
{
    struct node *n = calloc(1, sizeof(*n)), **grown;

    if (n == NULL)
        return NULL;
    grown = realloc(t->nodes, (t->n_nodes + 1) * sizeof(*grown));
    if (grown == NULL) {
        free(n);
        return NULL;
    }
    t->nodes = grown;
    n->id = t->n_nodes;
    t->nodes[t->n_nodes++] = n;
    n->v.mode = mode;
    stamp(&n->v);
    return n;
}

int tree_init(struct tree *t)
{
    struct node *root;

    memset(t, 0, sizeof(*t));
    /* Slot 0 unused: FUSE reserves no number, but 0 reads as "none". */
    if (node_new(t, 0) == NULL || (root = node_new(t, S_IFDIR | 0755)) == NULL)
        return -ENOMEM;
    free(t->nodes[0]);
    t->nodes[0] = NULL;
    root->exists_d = 1;
    return side_copy(&root->d, &root->v);
}

static void record_free(struct record *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        free(r->c[i].name);
}

void tree_free(struct tree *t)
{
    size_t i;

    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i] != NULL) {
            side_free(&t->nodes[i]->v);
            side_free(&t->nodes[i]->d);
            free(t->nodes[i]);
        }
    for (i = 0; i < t->n_journal; i++)
        record_free(&t->journal[i]);
    free(t->journal);
    free(t->nodes);
    memset(t, 0, sizeof(*t));
}

struct node *tree_node(const struct tree *t, uint64_t id)
{
    return id < t->n_nodes ? t->nodes[id] : NULL;
}

static struct entry *side_entry(struct side *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_entries; i++)
        if (strcmp(s->entries[i].name, name) == 0)
            return &s->entries[i];
    return NULL;
}

struct entry *tree_entry(struct node *dir, const char *name)
{
    return side_entry(&dir->v, name);
}

struct node *tree_lookup(const struct tree *t, const char *path, int *err)
{
    struct node *n = tree_node(t, TREE_ROOT);
    const char *p = path;

    while (*p == '/')
        p++;
    while (*p != '\0') {
        const char *end = strchr(p, '/');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        char name[256];
        struct entry *e;

        if (!S_ISDIR(n->v.mode)) {
            *err = -ENOTDIR;
            return NULL;
        }
        if (len >= sizeof(name)) {
            *err = -ENAMETOOLONG;
            return NULL;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        if ((e = side_entry(&n->v, name)) == NULL) {
            *err = -ENOENT;
            return NULL;
        }
        n = tree_node(t, e->id);
        p += len;
        while (*p == '/')
            p++;
    }
    return n;
}

struct node *tree_parent(const struct tree *t, const char *path, const char **name, int *err)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    struct node *d;

    if (slash == NULL || slash[1] == '\0' || (size_t)(slash - path) >= sizeof(dir)) {
        *err = -EINVAL;
        return NULL;
    }
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    d = tree_lookup(t, dir, err);
    if (d != NULL && !S_ISDIR(d->v.mode)) {
        *err = -ENOTDIR;
        return NULL;
    }
    *name = slash + 1;
    return d;
}

/* ---- the volatile side's names --------------------------------------- */

static int side_link(struct side *s, const char *name, uint64_t id)
{
    struct entry *e = side_entry(s, name), *grown;
    char *copy;

    if (e != NULL) {
        e->id = id;
        return 0;
    }
    copy = strdup(name);
    grown = realloc(s->entries, (s->n_entries + 1) * sizeof(*grown));
    if (copy == NULL || grown == NULL) {
        free(copy);
        if (grown != NULL)
            s->entries = grown;
        return -ENOMEM;
    }
    s->entries = grown;
    s->entries[s->n_entries++] = (struct entry){ copy, id };
    return 0;
}

static void side_unlink(struct side *s, const char *name)
{
    struct entry *e = side_entry(s, name);

    if (e == NULL)
        return;
    free(e->name);
    *e = s->entries[--s->n_entries];
}

/* Appends a record of n changes (names copied).  0 or -ENOMEM. */
static int journal_add(struct tree *t, const struct change *c, size_t n)
{
    struct record r = { .n = n };
    size_t i;

    if (t->n_journal == t->cap_journal) {
        size_t cap = t->cap_journal ? 2 * t->cap_journal : 64;
        struct record *grown = realloc(t->journal, cap * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        t->journal = grown;
        t->cap_journal = cap;
    }
    for (i = 0; i < n; i++) {
        r.c[i] = c[i];
        if ((r.c[i].name = strdup(c[i].name)) == NULL) {
            r.n = i;
            record_free(&r);
            return -ENOMEM;
        }
    }
    t->journal[t->n_journal++] = r;
    return 0;
}

int tree_create(struct tree *t, struct node *dir, const char *name, mode_t mode, struct node **out)
{
    struct node *n;
    struct change c;
    int rc;

    if (tree_entry(dir, name) != NULL)
        return -EEXIST;
    if ((n = node_new(t, mode)) == NULL)
        return -ENOMEM;
    c = (struct change){
        .link = 1, .dir = dir->id, .child = n->id, .child_mode = mode, .name = (char *)name
    };
    if ((rc = side_link(&dir->v, name, n->id)) != 0 || (rc = journal_add(t, &c, 1)) != 0)
        return rc;
    stamp(&dir->v);
    *out = n;
    return 0;
}

int tree_link(struct tree *t, struct node *n, struct node *dir, const char *name)
{
    struct change c = {
        .link = 1, .dir = dir->id, .child = n->id, .child_mode = n->v.mode, .name = (char *)name
    };
    int rc;

    if (tree_entry(dir, name) != NULL)
        return -EEXIST;
    if (S_ISDIR(n->v.mode))
        return -EPERM;
    if ((rc = side_link(&dir->v, name, n->id)) != 0 || (rc = journal_add(t, &c, 1)) != 0)
        return rc;
    stamp(&dir->v);
    return 0;
}

int tree_unlink(struct tree *t, struct node *dir, const char *name, int want_dir)
{
    struct entry *e = tree_entry(dir, name);
    struct change c = { .link = 0, .dir = dir->id, .name = (char *)name };
    struct node *n;
    int rc;

    if (e == NULL)
        return -ENOENT;
    n = tree_node(t, e->id);
    if (want_dir && !S_ISDIR(n->v.mode))
        return -ENOTDIR;
    if (!want_dir && S_ISDIR(n->v.mode))
        return -EISDIR;
    if (want_dir && n->v.n_entries > 0)
        return -ENOTEMPTY;
    c.child = n->id;
    if ((rc = journal_add(t, &c, 1)) != 0)
        return rc;
    side_unlink(&dir->v, name);
    stamp(&dir->v);
    return 0;
}

int tree_rename(struct tree *t, struct node *from, const char *from_name, struct node *to,
                const char *to_name, unsigned flags)
{
    struct entry *src = tree_entry(from, from_name), *dst = tree_entry(to, to_name);
    struct change c[3];
    struct node *moving, *over = NULL;
    size_t n = 0;
    uint64_t id;
    int rc;

    if (flags & ~(unsigned)RENAME_NOREPLACE)
        return -EINVAL; /* RENAME_EXCHANGE, RENAME_WHITEOUT: not modelled */
    if (src == NULL)
        return -ENOENT;
    moving = tree_node(t, src->id);
    if (dst != NULL) {
        if (flags & RENAME_NOREPLACE)
            return -EEXIST;
        over = tree_node(t, dst->id);
        if (over == moving)
            return 0;
        if (S_ISDIR(over->v.mode) && !S_ISDIR(moving->v.mode))
            return -EISDIR;
        if (!S_ISDIR(over->v.mode) && S_ISDIR(moving->v.mode))
            return -ENOTDIR;
        if (S_ISDIR(over->v.mode) && over->v.n_entries > 0)
            return -ENOTEMPTY;
        c[n++] =
            (struct change){ .link = 0, .dir = to->id, .child = over->id, .name = (char *)to_name };
    }
    id = moving->id;
    c[n++] = (struct change){ .link = 0, .dir = from->id, .child = id, .name = (char *)from_name };
    c[n++] = (struct change){
        .link = 1, .dir = to->id, .child = id, .child_mode = moving->v.mode, .name = (char *)to_name
    };
    if ((rc = journal_add(t, c, n)) != 0)
        return rc;
    side_unlink(&from->v, from_name);
    if ((rc = side_link(&to->v, to_name, id)) != 0)
        return rc;
    stamp(&from->v);
    stamp(&to->v);
    return 0;
}

/* ---- data and attributes --------------------------------------------- */

int tree_write(struct node *n, const char *buf, size_t len, off_t off)
{
    size_t end = (size_t)off + len;

    if (end > n->v.cap) {
        size_t cap = n->v.cap ? n->v.cap : 4096;
        char *grown;

        while (cap < end)
            cap *= 2;
        if ((grown = realloc(n->v.data, cap)) == NULL)
            return -ENOMEM;
        n->v.data = grown;
        n->v.cap = cap;
    }
    if ((size_t)off > n->v.size)
        memset(n->v.data + n->v.size, 0, (size_t)off - n->v.size);
    memcpy(n->v.data + off, buf, len);
    if (end > n->v.size)
        n->v.size = end;
    stamp(&n->v);
    return 0;
}

int tree_truncate(struct node *n, off_t size)
{
    if (size < 0)
        return -EINVAL;
    if ((size_t)size > n->v.size) {
        char zero = 0;
        int rc = tree_write(n, &zero, 1, size - 1);
        if (rc != 0)
            return rc;
    }
    n->v.size = (size_t)size;
    stamp(&n->v);
    return 0;
}

static struct xattr *find_xattr(const struct side *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_xattrs; i++)
        if (strcmp(s->xattrs[i].name, name) == 0)
            return &s->xattrs[i];
    return NULL;
}

const struct xattr *tree_getxattr(const struct node *n, const char *name)
{
    return find_xattr(&n->v, name);
}

int tree_setxattr(struct node *n, const char *name, const char *value, size_t len, int flags)
{
    struct xattr *x = find_xattr(&n->v, name), *grown;
    char *v;

    if (x != NULL && (flags & XATTR_CREATE))
        return -EEXIST;
    if (x == NULL && (flags & XATTR_REPLACE))
        return -ENODATA;
    if ((v = dup_bytes(value, len)) == NULL)
        return -ENOMEM;
    if (x != NULL) {
        free(x->value);
        x->value = v;
        x->len = len;
    } else {
        char *nm = strdup(name);
        grown = realloc(n->v.xattrs, (n->v.n_xattrs + 1) * sizeof(*grown));
        if (nm == NULL || grown == NULL) {
            free(nm);
            free(v);
            if (grown != NULL)
                n->v.xattrs = grown;
            return -ENOMEM;
        }
        n->v.xattrs = grown;
        n->v.xattrs[n->v.n_xattrs++] = (struct xattr){ nm, v, len };
    }
    clock_gettime(CLOCK_REALTIME, &n->v.ctime);
    return 0;
}

int tree_removexattr(struct node *n, const char *name)
{
    struct xattr *x = find_xattr(&n->v, name);

    if (x == NULL)
        return -ENODATA;
    free(x->name);
    free(x->value);
    *x = n->v.xattrs[--n->v.n_xattrs];
    return 0;
}

/* ---- durability -------------------------------------------------------- */

/* The attributes and data of n's volatile side, made durable; the durable
 * entries (a directory's) are the journal's business and stay. */
static int make_attrs_durable(struct node *n)
{
    struct side keep = { .entries = n->d.entries, .n_entries = n->d.n_entries };
    struct side copy = { 0 };
    struct side src = n->v;
    int rc;

    src.entries = NULL;
    src.n_entries = 0;
    if ((rc = side_copy(&copy, &src)) != 0)
        return rc;
    free(copy.entries);
    n->d.entries = NULL;
    n->d.n_entries = 0;
    side_free(&n->d);
    n->d = copy;
    n->d.entries = keep.entries;
    n->d.n_entries = keep.n_entries;
    return 0;
}

int tree_fsync_file(struct tree *t, struct node *n)
{
    (void)t;
    return make_attrs_durable(n);
}

static int apply(struct tree *t, const struct change *c)
{
    struct node *dir = tree_node(t, c->dir), *child = tree_node(t, c->child);

    if (dir == NULL)
        return 0;
    if (!c->link) {
        side_unlink(&dir->d, c->name);
        return 0;
    }
    if (child == NULL)
        return 0;
    if (!child->exists_d) {
        /* Named durably before any fsync of its own: found empty. */
        child->exists_d = 1;
        child->d.mode = c->child_mode;
        child->d.mtime = child->d.ctime = child->v.ctime;
    }
    return side_link(&dir->d, c->name, c->child);
}

/* Commits journal records [0, upto). */
static int commit(struct tree *t, size_t upto)
{
    size_t i, j;
    int rc = 0;

    for (i = 0; i < upto && rc == 0; i++)
        for (j = 0; j < t->journal[i].n && rc == 0; j++)
            rc = apply(t, &t->journal[i].c[j]);
    for (j = 0; j < i; j++)
        record_free(&t->journal[j]);
    memmove(t->journal, t->journal + i, (t->n_journal - i) * sizeof(*t->journal));
    t->n_journal -= i;
    return rc;
}

int tree_fsync_dir(struct tree *t, struct node *dir)
{
    size_t i, last = 0;
    int rc;

    for (i = 0; i < t->n_journal; i++) {
        size_t j;

        for (j = 0; j < t->journal[i].n; j++)
            if (t->journal[i].c[j].dir == dir->id)
                last = i + 1;
    }
    if ((rc = commit(t, last)) != 0)
        return rc;
    return make_attrs_durable(dir);
}

void tree_sync_all(struct tree *t)
{
    size_t i;

    (void)commit(t, t->n_journal);
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i] != NULL && t->nodes[i]->exists_d)
            (void)make_attrs_durable(t->nodes[i]);
}

size_t tree_pending(const struct tree *t)
{
    return t->n_journal;
}

static void mark(struct tree *t, uint64_t id, unsigned char *seen)
{
    struct node *n = tree_node(t, id);
    size_t i;

    if (n == NULL || seen[id])
        return;
    seen[id] = 1;
    for (i = 0; i < n->d.n_entries; i++)
        mark(t, n->d.entries[i].id, seen);
}

void tree_cut(struct tree *t)
{
    unsigned char *seen = calloc(t->n_nodes ? t->n_nodes : 1, 1);
    size_t i;

    for (i = 0; i < t->n_journal; i++)
        record_free(&t->journal[i]);
    t->n_journal = 0;
    if (seen != NULL)
        mark(t, TREE_ROOT, seen);
    for (i = 0; i < t->n_nodes; i++) {
        struct node *n = t->nodes[i];

        if (n == NULL)
            continue;
        if (seen != NULL && !seen[i]) {
            side_free(&n->v);
            side_free(&n->d);
            free(n);
            t->nodes[i] = NULL;
            continue;
        }
        n->opens = 0;
        if (side_copy(&n->v, &n->d) != 0)
            fprintf(stderr, "powerfs: out of memory in a power cut\n");
    }
    free(seen);
    t->generation++;
}
