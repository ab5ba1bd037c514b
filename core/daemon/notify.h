/*
 * notify.h - the systemd notification protocol (sd_notify(3)): READY,
 * STATUS, RELOADING, STOPPING and the watchdog.  Does nothing when
 * NOTIFY_SOCKET is unset, so the daemon runs the same outside systemd.
 */
#ifndef CAIRN_NOTIFY_H
#define CAIRN_NOTIFY_H

#include <stdint.h>

/* Sends one state string, e.g. "READY=1\nSTATUS=...".  0, or a negative
 * errno (which callers log and otherwise ignore). */
int cairn_notify(const char *state);

/* RELOADING=1 with the MONOTONIC_USEC= systemd expects next to it. */
int cairn_notify_reloading(void);

/* The watchdog period in microseconds from WATCHDOG_USEC (for this
 * process), or 0 when systemd does not watch us. */
uint64_t cairn_notify_watchdog_usec(void);

#endif /* CAIRN_NOTIFY_H */
