/*
 * plugin_probe.h - load a plugin in a throw-away child process first.
 *
 * plugin_elf.h refuses a file whose structures would make the dynamic
 * linker fault, but it cannot tell damaged code from code: a constructor
 * or an entry function whose bytes were flipped faults only when it runs.
 * Whatever runs at load time (the linker, the constructors, the entry
 * symbol and the reading of its descriptor, the destructors) runs first
 * in a fork()ed child; a child killed by a signal, ended by an exit of
 * the plugin's, or still loading after CAIRN_PLUGIN_PROBE_SECONDS, gets
 * the file refused, and the daemon never runs it.  The child's verdict on anything else (dlopen's errors, a
 * missing symbol, a bad descriptor) is ignored: the real load that follows
 * finds the same thing and says it in full.
 *
 * The fork is safe in a process with threads: the child calls dlopen and
 * malloc only, whose locks glibc resets in the child, and only the loop
 * thread ever loads plugins.  A plugin's constructors run twice: once in
 * the child, once for real.
 */
#ifndef CAIRN_PLUGIN_PROBE_H
#define CAIRN_PLUGIN_PROBE_H

#include <stddef.h>

#define CAIRN_PLUGIN_PROBE_SECONDS 10

/* What the child does with the loaded object before it exits: the same
 * reads the real load will do.  Its return value is ignored. */
typedef int (*cairn_plugin_exercise_fn)(void *dl);

/*
 * NAME     cairn_plugin_probe - dlopen name in a child and exercise it
 * ARGUMENTS name is what dlopen() gets (a /proc/self/fd/N path: the child
 *          inherits the descriptor); exercise may be NULL; why (why_len
 *          bytes) receives the reason on failure
 * RETURNS  0 when the child said, on a pipe, that dlopen returned and the
 *          rest ran (or no pipe or child could be made: the probe is a
 *          second line of defence, not a gate);
 *          -EINVAL with why filled when loading killed it ("loading it
 *          killed a probe process with signal 7 (Bus error)"), made it
 *          exit, or took longer than CAIRN_PLUGIN_PROBE_SECONDS
 */
int cairn_plugin_probe(const char *name, cairn_plugin_exercise_fn exercise, char *why,
                       size_t why_len);

#endif /* CAIRN_PLUGIN_PROBE_H */
