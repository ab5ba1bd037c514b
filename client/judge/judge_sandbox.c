/*
 * judge_sandbox.c - the candidate's command as `cairn judge` runs it: the
 * executable found in PATH, and, unless --no-sandbox or bubblewrap is not
 * installed, wrapped in bwrap (checked first with /usr/bin/true in the
 * same sandbox).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge_state.h"

/* An executable file of that name in PATH (or the path given), made
 * absolute: malloc'd, or NULL. */
static char *find_exe(const char *name)
{
    const char *path = getenv("PATH"), *p, *colon;
    char buf[PATH_MAX];

    if (strchr(name, '/') != NULL)
        return access(name, X_OK) == 0 ? realpath(name, NULL) : NULL;
    for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = *colon ? colon + 1 : colon) {
        colon = strchrnul(p, ':');
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)(colon - p), p, name);
        if (colon > p && access(buf, X_OK) == 0)
            return realpath(buf, NULL);
    }
    return NULL;
}

struct argv_buf {
    char **v;
    size_t n, cap;
};

static int push(struct argv_buf *a, const char *s)
{
    char *copy = s != NULL ? strdup(s) : NULL;

    if (s != NULL && copy == NULL)
        return -ENOMEM;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        char **v = realloc(a->v, cap * sizeof(*v));

        if (v == NULL) {
            free(copy);
            return -ENOMEM;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = copy;
    return 0;
}

void cairn_judge_argv_free(char **v)
{
    size_t i;

    for (i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

/*
 * The command as run.  In bubblewrap: no network (every namespace of its
 * own), a read-only view of the system (/usr, /bin, /lib*, /etc), a
 * private /tmp, the candidate's own files read-only at their real paths
 * (its arguments naming files are rewritten to those), and bwrap ends
 * with cairn.
 */
static int build_argv(struct judge *j, const char *exe, const char *bwrap)
{
    static const char *const system_dirs[] = { "/bin",   "/sbin",   "/lib", "/lib32",
                                               "/lib64", "/libx32", "/etc" };
    struct argv_buf a = { 0 };
    size_t i;
    int rc = 0;

    if (bwrap != NULL) {
        const char *pre[] = { bwrap,           "--unshare-all", "--die-with-parent",
                              "--new-session", "--ro-bind",     "/usr",
                              "/usr" };

        for (i = 0; rc == 0 && i < sizeof(pre) / sizeof(pre[0]); i++)
            rc = push(&a, pre[i]);
        for (i = 0; rc == 0 && i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
            if ((rc = push(&a, "--ro-bind-try")) == 0 && (rc = push(&a, system_dirs[i])) == 0)
                rc = push(&a, system_dirs[i]);
        const char *post[] = { "--proc", "/proc",     "--dev", "/dev", "--tmpfs",
                               "/tmp",   "--ro-bind", exe,     exe };
        for (i = 0; rc == 0 && i < sizeof(post) / sizeof(post[0]); i++)
            rc = push(&a, post[i]);
        for (i = 1; rc == 0 && i < j->o->n_cmd; i++) {
            struct stat st;
            char *real;

            if (stat(j->o->cmd[i], &st) != 0 || !S_ISREG(st.st_mode) ||
                (real = realpath(j->o->cmd[i], NULL)) == NULL)
                continue;
            if ((rc = push(&a, "--ro-bind")) == 0 && (rc = push(&a, real)) == 0)
                rc = push(&a, real);
            free(real);
        }
        if (rc == 0 && (rc = push(&a, "--chdir")) == 0 && (rc = push(&a, "/")) == 0)
            rc = push(&a, "--");
    }
    if (rc == 0)
        rc = push(&a, exe);
    for (i = 1; rc == 0 && i < j->o->n_cmd; i++) {
        struct stat st;
        char *real = bwrap != NULL && stat(j->o->cmd[i], &st) == 0 && S_ISREG(st.st_mode)
                         ? realpath(j->o->cmd[i], NULL)
                         : NULL;

        rc = push(&a, real != NULL ? real : j->o->cmd[i]);
        free(real);
    }
    if (rc == 0)
        rc = push(&a, NULL);
    if (rc != 0) {
        a.v[a.n > 0 ? a.n - 1 : 0] = NULL;
        cairn_judge_argv_free(a.v);
        return rc;
    }
    j->runner.argv = a.v;
    return 0;
}

/* The runner: the command found, and bwrap unless --no-sandbox or not
 * installed; an installed bwrap that cannot run here is an error that
 * names --no-sandbox, never a silent run without it. */
int cairn_judge_settle_runner(struct judge *j)
{
    char *exe = find_exe(j->o->cmd[0]), *bwrap = NULL;
    struct cairn_judge_run probe;
    int rc;

    if (exe == NULL)
        return cairn_client_fail(j->cl, -ENOENT, "judge: %s: no such executable file%s",
                                 j->o->cmd[0], strchr(j->o->cmd[0], '/') ? "" : " in PATH");
    j->sandbox = "none (--no-sandbox)";
    if (!j->o->no_sandbox) {
        bwrap = find_exe("bwrap");
        j->sandbox = bwrap != NULL ? "bwrap (no network, read-only system, private /tmp)"
                                   : "none (bwrap is not installed; Debian's bubblewrap)";
    }
    if (bwrap != NULL) {
        /* /usr/bin/true inside the same sandbox: it must exit 0. */
        char *const probe_cmd[] = { "/usr/bin/true" };
        struct cairn_judge_opts po = *j->o;
        const struct cairn_judge_opts *keep = j->o;

        po.cmd = probe_cmd;
        po.n_cmd = 1;
        j->o = &po;
        rc = build_argv(j, "/usr/bin/true", bwrap);
        j->o = keep;
        if (rc == 0)
            rc = cairn_judge_run(j->cl, &j->runner, "", 0, 1, &probe);
        cairn_judge_argv_free(j->runner.argv);
        j->runner.argv = NULL;
        if (rc == 0 && probe.fault != CAIRN_JUDGE_TOO_FEW) {
            char *err = cairn_text_printable(probe.err_tail);

            rc = cairn_client_fail(j->cl, -ENOTSUP,
                                   "judge: bwrap is installed (%s) but cannot run a sandbox "
                                   "here: %s; --no-sandbox runs the candidate without one",
                                   bwrap, err != NULL ? err : "(out of memory)");
            free(err);
        }
        if (rc == 0)
            cairn_judge_run_free(&probe);
        else if (probe.out != NULL)
            cairn_judge_run_free(&probe);
        if (rc != 0) {
            free(exe);
            free(bwrap);
            return rc;
        }
    }
    rc = build_argv(j, exe, bwrap);
    j->runner.sandboxed = bwrap != NULL;
    free(exe);
    free(bwrap);
    return rc;
}
