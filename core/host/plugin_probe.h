/*
 * plugin_probe.h - load each plugin in a throw-away child process first.
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
 * One child takes the files one after the other, as the loader hands
 * them over (their sealed copies' descriptors, passed on a socket), and
 * loads, exercises and unloads each, saying after each step that it
 * returned.  So the loader copies the next file, and loads for real the
 * ones already through, while the child probes: a sound set costs one
 * fork, and most of the probe's time is spent beside the loader's own.
 * A child that dies names the file it died on; a new child takes the
 * files after it.
 *
 * The fork is safe in a process with threads: the child calls dlopen and
 * malloc only, whose locks glibc resets in the child, and only one thread
 * at a time ever loads plugins.  A plugin's constructors run twice: once
 * in the child, once for real.
 */
#ifndef CAIRN_PLUGIN_PROBE_H
#define CAIRN_PLUGIN_PROBE_H

#include <stddef.h>

/* Per step (one file's load, or its unload). */
#define CAIRN_PLUGIN_PROBE_SECONDS 10

/* What the child does with each loaded object: the same reads the real
 * load will do.  Its return value is ignored. */
typedef int (*cairn_plugin_exercise_fn)(void *dl);

/* What the probe made of a file. */
enum cairn_probe_state {
    CAIRN_PROBE_PENDING, /* not through a child yet */
    CAIRN_PROBE_PASSED,  /* loaded (or refused by dlopen), exercised and unloaded */
    CAIRN_PROBE_REFUSED, /* killed, ended or outlasted a child: see why */
    CAIRN_PROBE_UNKNOWN, /* no child could be made: it passes, nothing is known */
};

struct cairn_probe;

/* A probe with no file yet, or NULL (out of memory).  early: start the
 * child now, before the first file, when every file will need it: a new
 * process takes milliseconds to get going on some machines (2-4 ms on a
 * 2-vCPU VM), and the first files are copied meanwhile. */
struct cairn_probe *cairn_probe_new(cairn_plugin_exercise_fn exercise, int early);

/*
 * NAME     cairn_probe_add - hand one file over
 * ARGUMENTS fd: the sealed copy (plugin_copy.h), which must stay open
 *          until cairn_probe_free()
 * RETURNS  the file's index (0, 1, ... in the order handed over), or
 *          -ENOMEM.  The first file starts the child.
 */
int cairn_probe_add(struct cairn_probe *p, int fd);

/*
 * NAME     cairn_probe_state - the verdict on file i
 * ARGUMENTS wait: 0 reads only what the child has said so far; 1 waits
 *          until file i has its verdict (cairn_probe_add() cannot be
 *          called after a wait)
 * RETURNS  its state; why receives the reason when CAIRN_PROBE_REFUSED
 *          ("loading it killed a probe process with signal 7 (Bus error):
 *          ..."), in why_len bytes
 */
enum cairn_probe_state cairn_probe_state(struct cairn_probe *p, size_t i, int wait, char *why,
                                         size_t why_len);

/* How many probe processes were handed files: 1 for a sound set, one
 * more for each file refused, 0 when nothing needed one. */
unsigned cairn_probe_children(const struct cairn_probe *p);

/* Ends the probe: waits for its child (which by then only has to exit)
 * and frees p.  NULL is fine. */
void cairn_probe_free(struct cairn_probe *p);

#endif /* CAIRN_PLUGIN_PROBE_H */
