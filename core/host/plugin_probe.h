/*
 * plugin_probe.h - load a set of plugins in a throw-away child process
 * first.
 *
 * plugin_elf.h refuses a file whose structures would make the dynamic
 * linker fault, but it cannot tell damaged code from code: a constructor
 * or an entry function whose bytes were flipped faults only when it runs.
 * Whatever runs at load time (the linker, the constructors, the entry
 * symbol and the reading of its descriptor) and at unload time (the
 * destructors) runs first in a fork()ed child; a file whose loading or
 * unloading kills the child, ends it through an exit of the plugin's, or
 * takes longer than CAIRN_PLUGIN_PROBE_SECONDS, is refused, and the
 * daemon never runs it.  The child's verdict on anything else (dlopen's
 * errors, a missing symbol, a bad descriptor) is ignored: the real load
 * that follows finds the same thing and says it in full.
 *
 * One child loads the whole set, in the order the daemon will, and
 * unloads it, saying on a pipe after each step that the step returned: a
 * child that dies names the file it died on, which is refused, and a new
 * child takes the rest.  A sound set costs one fork, not one per file
 * (each fork and wait was most of a start-up's time).
 *
 * The fork is safe in a process with threads: the child calls dlopen and
 * malloc only, whose locks glibc resets in the child, and only one thread
 * at a time ever loads plugins.  A plugin's constructors run twice: once
 * in the child, once for real.
 */
#ifndef CAIRN_PLUGIN_PROBE_H
#define CAIRN_PLUGIN_PROBE_H

#include <stddef.h>
#include <sys/types.h>

/* Per step (one file's load, or its unload). */
#define CAIRN_PLUGIN_PROBE_SECONDS 10

/* What the child does with each loaded object: the same reads the real
 * load will do.  Its return value is ignored. */
typedef int (*cairn_plugin_exercise_fn)(void *dl);

/* One file of the set. */
struct cairn_probe_item {
    const char *name; /* what dlopen() gets: a /proc/self/fd/N path (the
                       * child inherits the descriptor) */
    int refused;      /* out: 1 when loading or unloading it killed, ended
                       * or outlasted a probe process */
    int unknown;      /* out: 1 when no probe process could be made for it
                       * (it passes, and nothing is known of it) */
    char why[320];    /* out, when refused: "loading it killed a probe
                       * process with signal 7 (Bus error): ..." */
};

/*
 * NAME     cairn_plugin_probe_set - dlopen, exercise and dlclose every item
 *          in probe processes, as few as the set allows
 * ARGUMENTS items[0, n) in the order the real load takes them; exercise
 *          may be NULL; *running receives a probe process that has said
 *          all it had to and may still be exiting (or 0): the caller reaps
 *          it with cairn_plugin_probe_reap() after its own load, which
 *          then runs while the child tears down
 * RETURNS  how many probe processes ran: 1 for a sound set, one more per
 *          refused file; 0 when n is 0.  When no pipe or child can be
 *          made, the items not yet probed pass (the probe is a second line
 *          of defence, not a gate); -ENOMEM.
 */
int cairn_plugin_probe_set(struct cairn_probe_item *items, size_t n,
                           cairn_plugin_exercise_fn exercise, pid_t *running);

/* Waits for the probe process pid to end (0: none). */
void cairn_plugin_probe_reap(pid_t pid);

#endif /* CAIRN_PLUGIN_PROBE_H */
