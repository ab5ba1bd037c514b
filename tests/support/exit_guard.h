/*
 * exit_guard.h - a test process that exits before its test returns fails.
 *
 * Check passes a forked test whose process ends with the status it allows
 * (0) and no failure said, even when the test ran half-way: a plugin's
 * constructor calling exit(0) inside cairn_registry_load() once made a test
 * pass that should have failed.  Every test program is compiled with
 * `-include exit_guard.h` (tests/meson.build), so each tcase_create() below
 * gets a checked fixture: armed before the test, disarmed after it, and an
 * atexit handler that, while armed in the test's own process, ends it with
 * TH_EXIT_GUARD_STATUS, which Check reports as "Early exit with return
 * value 99".  A failed assertion leaves with _exit (no handlers); children
 * a test forks are not its process and exit as they like.
 */
#ifndef CAIRN_TEST_EXIT_GUARD_H
#define CAIRN_TEST_EXIT_GUARD_H

#include <check.h>

#define TH_EXIT_GUARD_STATUS 99

TCase *th_guarded_tcase_create(const char *name);

#define tcase_create(name) th_guarded_tcase_create(name)

#endif /* CAIRN_TEST_EXIT_GUARD_H */
