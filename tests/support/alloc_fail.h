/*
 * alloc_fail.h - in-process out-of-memory for unit tests: the Nth
 * allocation from now fails with ENOMEM.
 *
 * Linked into a test program, alloc_fail.c's malloc, calloc and realloc
 * replace glibc's for the whole process, so strdup, asprintf, realpath
 * and jansson's allocations come through them too.  Arm it around one
 * call only: Check and gcov allocate as well.
 *
 * A sweep: for n = 1, 2, ... arm n, make the call, disarm; once the call
 * made fewer than n allocations nothing failed and every path was seen.
 */
#ifndef CAIRN_TEST_ALLOC_FAIL_H
#define CAIRN_TEST_ALLOC_FAIL_H

#include <stddef.h>

/* 0 in a sanitizer build: its runtime owns malloc, so nothing here can
 * fail an allocation and the sweeps have nothing to sweep. */
int th_alloc_can_fail(void);

/* The nth allocation from now returns NULL (n >= 1); 0 turns it off. */
void th_alloc_fail_at(long n);

/* Turns it off; 1 when the armed allocation failed. */
int th_alloc_disarm(void);

/* glibc's malloc, never failed here: for json_set_alloc_funcs() when
 * jansson's parser must be left out of a sweep.  Its lexer drops a byte
 * when growing a token's buffer fails and then reads past it (an assert,
 * or a corrupted heap: akheron/jansson#362), so only inputs whose tokens
 * fit the first 16 bytes may be parsed with jansson failing too. */
void *th_alloc_unfailing(size_t n);

#endif /* CAIRN_TEST_ALLOC_FAIL_H */
